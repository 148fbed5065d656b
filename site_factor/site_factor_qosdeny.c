/* SPDX-License-Identifier: GPL-2.0-or-later
 * site_factor/qosdeny: GPU fair share in job priority (docs/fair-share.md,
 * "GPU fair share in job priority"). Each pending job's site factor is
 * round(weight x FairShare) of its association, FairShare as `qosdeny share`
 * prints it.
 *
 * priority/multifactor calls site_factor_p_set at submission, update,
 * release and requeue (job and node write locks held) and
 * site_factor_p_update every PriorityCalcPeriod (job write lock held).
 * Both only look factors up in a table that a background thread rebuilds
 * every interval (refresh.c): nothing here waits for Redis, a file or a
 * name lookup while slurmctld's locks are held. Jobs are found by
 * association id: 22.05 leaves user_name empty on pending jobs.
 */
#include "slurm_compat.h" /* first: Slurm's calls by their exported names */

#include <dlfcn.h>
#include <stdbool.h>

#include "factor_params.h"
#include "metrics_sf.h"
#include "refresh.h"

const char plugin_name[] = "qosdeny: GPU fair share as the site factor";
const char plugin_type[] = "site_factor/qosdeny";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static int params_from_conf(struct qd_factor_params *p, char *err,
			    size_t errlen)
{
	return qd_factor_params_parse(slurm_conf.site_factor_params, p, err,
				      errlen);
}

/*
 * Whether this process started the site factor before. From 23.11 a failed
 * `scontrol reconfigure` (the new slurmctld died, e.g. on a broken
 * qosdeny.conf) resumes the running slurmctld, which calls fini and then
 * init again (src/slurmctld/controller.c, "Resuming operation, reconfigure
 * failed"); the file that stopped the new one must not stop it too
 * (docs/troubleshooting.md). pin() keeps this across Slurm's dlclose.
 */
static bool started_before;

static void pin(void)
{
	Dl_info self = {0};

	/* A reference never closed, and RTLD_NODELETE: the module and its
	 * statics stay as long as the process. */
	if (!dladdr((void *)pin, &self) || !self.dli_fname ||
	    !dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE))
		error("qosdeny: site factor: cannot pin %s in memory (%s): a "
		      "failed scontrol reconfigure would treat a broken "
		      "qosdeny.conf as at a first start",
		      self.dli_fname ? self.dli_fname : "the plugin",
		      dlerror());
}

extern int init(void)
{
	char err[QD_FACTOR_ERR_MAX + 4096];
	struct qd_factor_params p;

	/* 22.05 ignores init's result: a bad setting must stop slurmctld
	 * itself, as a broken slurm.conf does. The parameters come from the
	 * slurm.conf this process runs on, valid if it ran before. */
	if (params_from_conf(&p, err, sizeof(err)) ||
	    qd_sf_start(slurm_conf.slurm_conf, slurm_conf.cluster_name,
			slurm_conf.state_save_location, &p, started_before, err,
			sizeof(err)))
		fatal("qosdeny: site factor: %s", err);
	if (!started_before)
		pin();
	started_before = true;
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	qd_sf_stop();
	return SLURM_SUCCESS;
}

#if QD_SITE_FACTOR_RECONFIG
/* 22.05's scontrol reconfigure: new parameters (a bad one is logged and the
 * old ones kept, as slurmctld keeps running) and a refresh now. From 23.11
 * a reconfigure starts a new slurmctld, which calls init. */
extern void site_factor_p_reconfig(void)
{
	char err[QD_FACTOR_ERR_MAX];
	struct qd_factor_params p;

	if (params_from_conf(&p, err, sizeof(err))) {
		error("qosdeny: site factor: %s; the previous parameters stay "
		      "in force",
		      err);
		return;
	}
	qd_sf_reconfigure(&p);
	info("qosdeny: site factor: reconfigured: weight=%u interval=%u",
	     p.weight, p.interval_s);
}
#endif

/*
 * Until the first table of a slurmctld just started (from 23.11 also at
 * every reconfigure), or while Redis stays unreachable, the factors its
 * jobs had, kept in its state files, stand ("the factors keep their last
 * values", docs/fair-share.md, "GPU fair share in job priority"); only a job
 * without one yet gets the whole weight.
 */
extern void site_factor_p_set(job_record_t *job_ptr)
{
	qd_sf_table_lock();
	if (qd_sf_have_table() || job_ptr->site_factor == NICE_OFFSET) {
		job_ptr->site_factor =
		    qd_sf_factor(job_ptr->assoc_id) + NICE_OFFSET;
		qd_sf_metrics_jobs_set(1);
	}
	qd_sf_table_unlock();
}

static int refresh_pending_job(void *x, void *arg)
{
	job_record_t *job_ptr = x;

	if (IS_JOB_PENDING(job_ptr)) {
		job_ptr->site_factor =
		    qd_sf_factor(job_ptr->assoc_id) + NICE_OFFSET;
		(*(uint64_t *)arg)++;
	}
	return 0;
}

extern void site_factor_p_update(void)
{
	uint64_t n = 0;

	qd_sf_table_lock();
	if (qd_sf_have_table())
		list_for_each(job_list, refresh_pending_job, &n);
	qd_sf_table_unlock();
	qd_sf_metrics_jobs_set(n);
}
