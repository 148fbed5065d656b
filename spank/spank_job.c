/* SPDX-License-Identifier: GPL-2.0-or-later
 * Job script context: slurmd runs `slurmstepd spank prolog|epilog` once per
 * job per node, as root, whenever a plugin has these hooks, with or without
 * a Prolog=/Epilog= script. Its environment is the one slurmd builds for
 * prolog scripts; slurm_spank_init is not called there, so the options are
 * parsed here.
 *
 * Reporting never fails the job: a negative return would drain the node
 * (the plugin is `required`), which costs the site more than a record kept
 * in the spool. Everything that goes wrong goes to slurmd's log as an
 * error, with the record.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "adopt.h"
#include "errmsg.h"
#include "gpu_devices.h"
#include "job_held.h"
#include "job_qos.h"
#include "job_weigh.h"
#include "spank_priv.h"
#include "usage_qos_env.h"
#include "spool_unrecorded.h"
#include "usage_report.h"

/* scontrol's own RPC gives up after MessageTimeout (10 s by default). */
#define SCONTROL_TIMEOUT_MS 15000

struct job_env {
	bool epilog;
	bool asked;
	char qos[QD_NAME_MAX];
};

/*
 * The environment slurmd built, with one addition. Before 26.05 it gives
 * no SLURM_JOB_QOS, and for a job that lists several QoS (24.11 and later:
 * job_submit/qosdeny's label is a list) only slurmctld knows the one Slurm
 * picked. The epilog asks it, once, for those jobs alone (job_qos.h); on
 * failure the label's first QoS stands (usage_job.c).
 */
static const char *job_env(const char *name, void *arg)
{
	struct job_env *je = arg;
	const char *v = getenv(name), *label, *id = getenv("SLURM_JOB_ID");
	char err[256];
	unsigned long job;
	char *end;

	if (v || !je->epilog || strcmp(name, "SLURM_JOB_QOS"))
		return v;
	if (je->asked)
		return je->qos[0] ? je->qos : NULL;
	je->asked = true;
	label = getenv(QD_QOS_ENV);
	if (!label || !strchr(label, ',') || !id)
		return NULL;
	job = strtoul(id, &end, 10);
	if (*end || !job || job > UINT32_MAX)
		return NULL;
	if (qd_job_qos_ask(job, SCONTROL_TIMEOUT_MS, je->qos, sizeof(je->qos),
			   err, sizeof(err))) {
		slurm_error("qosdeny: job %lu epilog: the QoS it ran under is "
			    "unknown, its record says %.*s: %s",
			    job, (int)strcspn(label, ","), label, err);
		je->qos[0] = '\0';
		return NULL;
	}
	return je->qos;
}

void qd_spank_log(enum qd_log_level level, const char *msg, void *arg)
{
	(void)arg;
	if (level == QD_LOG_ERROR)
		slurm_error("%s", msg);
	else if (level == QD_LOG_INFO)
		slurm_info("%s", msg);
	else
		slurm_verbose("%s", msg);
}

/* The job id and node slurmd gave the prolog or epilog; 0 when either is
 * missing or malformed. */
static uint32_t job_here(const char **node)
{
	const char *id = getenv("SLURM_JOB_ID");
	unsigned long job;
	char *end;

	*node = getenv("SLURMD_NODENAME");
	if (!id || !*node || !**node)
		return 0;
	job = strtoul(id, &end, 10);
	return *end || job > UINT32_MAX ? 0 : (uint32_t)job;
}

/*
 * The job's GPUs on this node for its extern step, whose environment has
 * none (adopt.h): written at the prolog, before slurmd starts the extern
 * step, and removed at the epilog with the extern step's record. A failure
 * leaves ssh sessions into the job refused, not the job failed.
 */
static void adopt_gpus(const struct qd_spank_opts *o, bool epilog)
{
	const char *gpus = getenv("SLURM_JOB_GPUS"), *node;
	char err[PATH_MAX + 256];
	uint32_t job;

	if (o->cgroup == QD_CG_OFF || !(job = job_here(&node)))
		return;
	if (epilog) {
		if (qd_adopt_remove(o->adopt_dir, node, job, "gpus", err,
				    sizeof(err)) ||
		    qd_adopt_remove(o->adopt_dir, node, job, "adopt", err,
				    sizeof(err)))
			slurm_error("qosdeny: job %" PRIu32 " epilog: %s", job,
				    err);
		return;
	}
	if (qd_adopt_write(o->adopt_dir, node, job, "gpus", gpus ? gpus : "",
			   err, sizeof(err)))
		slurm_error("qosdeny: job %" PRIu32
			    " prolog: ssh sessions into the "
			    "job on %s will be refused: %s",
			    job, node, err);
}

/* A GPU job no record can be made of, once (at its prolog), for doctor
 * to count (spool_unrecorded.h). */
static void note_unrecorded(const struct qd_spank_opts *o, const char *why,
			    int64_t now)
{
	char err[QD_REPORT_ERR_MAX];
	struct qd_reporter *rp;
	const char *node;
	uint32_t job = job_here(&node);

	if (!job)
		return;
	/* struct qd_reporter is large: not on the stack of a hook. */
	rp = malloc(sizeof(*rp));
	if (!rp)
		return;
	if (qd_reporter_init(rp, o, node, qd_spank_log, NULL, err,
			     sizeof(err)) ||
	    qd_spool_note_unrecorded(rp->spool, job, now, why, err,
				     sizeof(err)))
		slurm_error("qosdeny: job %" PRIu32 " prolog: %s", job, err);
	free(rp);
}

/*
 * A GPU job where jobs may hold part of a GPU (job_held.h) gets no share
 * count in its prolog's environment: slurmctld's word replaces the count
 * of SLURM_JOB_GPUS, never raising it (a whole GPU is the most a GPU it
 * lists can cost). Where it cannot be had, the record charges the whole
 * GPUs, and slurmd's log says so.
 */
static void held_here(const struct qd_reporter *rp, struct qd_usage_record *job)
{
	char path[PATH_MAX], tool[PATH_MAX], err[PATH_MAX + 256], num[32];
	/* slurmd's name for the node: job->node is the stored form. */
	const char *node = getenv("SLURMD_NODENAME");
	uint32_t m = 0;
	Dl_info self;
	int rc;

	qd_gres_conf_path(path, sizeof(path));
	if (!node ||
	    !qd_job_held_needed(qd_site_has_shares(&rp->site), path, node))
		return;
	/* The plugin's own file: a build tree has the tool beside it. */
	if (!dladdr((void *)held_here, &self))
		self.dli_fname = NULL;
	rc = qd_job_held_tool(self.dli_fname, tool, sizeof(tool), err,
			      sizeof(err));
	if (!rc)
		rc = qd_job_held_ask(tool, job->job_id, node,
				     SCONTROL_TIMEOUT_MS, &m, err, sizeof(err));
	if (!rc && (!m || m > job->mgpus))
		rc = qd_errf(err, sizeof(err),
			     "slurmctld says it holds %s GPU(s) there",
			     qd_milli_text(m, num, sizeof(num)));
	if (rc) {
		slurm_error("qosdeny: job %" PRIu32
			    " prolog: its share of its GPUs on %s is unknown "
			    "(%s); charged as %s whole GPU(s)",
			    job->job_id, node, err,
			    qd_milli_text(job->mgpus, num, sizeof(num)));
		return;
	}
	job->mgpus = m;
}

/*
 * The GPUs weighed by the partition's TRESBillingWeights for their types
 * (job_weigh.h). Where the weights cannot be read, each GPU weighs 1 and
 * slurmd's log says why.
 */
static void weigh_here(const struct qd_reporter *rp,
		       struct qd_usage_record *job)
{
	char gres[PATH_MAX], err[PATH_MAX + 256], was[32], now[32];
	struct qd_job_weigh j = {
	    .slurm_conf = rp->site.slurm_conf,
	    .gres_conf = gres,
	    .node = getenv("SLURMD_NODENAME"),
	    .partition = getenv("SLURM_JOB_PARTITION"),
	    .job_gpus = getenv("SLURM_JOB_GPUS"),
	};
	uint32_t m = job->mgpus;
	size_t untyped;
	int rc;

	if (!rp->site.have_slurm_conf || !j.node || !j.partition || !j.job_gpus)
		return;
	qd_gres_conf_path(gres, sizeof(gres));
	rc = qd_job_weigh(&j, &m, &untyped, err, sizeof(err));
	if (rc < 0) {
		slurm_error("qosdeny: job %" PRIu32
			    " prolog: its GPUs on %s are not weighed by "
			    "partition %s's TRESBillingWeights (%s); each "
			    "weighs 1",
			    job->job_id, j.node, j.partition, err);
		return;
	}
	if (!rc)
		return;
	slurm_verbose("qosdeny: job %" PRIu32 " prolog: %s GPU(s) on %s "
		      "weighed by partition %s's TRESBillingWeights: %s",
		      job->job_id, qd_milli_text(job->mgpus, was, sizeof(was)),
		      j.node, j.partition, qd_milli_text(m, now, sizeof(now)));
	if (untyped)
		slurm_info("qosdeny: job %" PRIu32 " prolog: %zu of its GPUs "
			   "on %s have no Type= in gres.conf, so partition "
			   "%s's weights for GPU types leave them at 1",
			   job->job_id, untyped, j.node, j.partition);
	job->mgpus = m;
}

int qd_job_script(int ac, char **av, bool epilog)
{
	const char *hook = epilog ? "epilog" : "prolog";
	char err[QD_REPORT_ERR_MAX];
	struct qd_spank_opts opts;
	struct qd_usage_record job;
	struct qd_reporter *rp = NULL;
	struct job_env je = {.epilog = epilog};
	/* Before anything that may wait (the QoS lookup in qd_job_record()
	 * asks slurmctld): the job's end on this node is when its epilog
	 * began. */
	int64_t now = time(NULL);

	qd_spank_opts_init(&opts);
	if (qd_spank_opts_parse(&opts, ac, av, err, sizeof(err))) {
		slurm_error("%s; GPU usage not reported", err);
		return 0;
	}
	adopt_gpus(&opts, epilog);
	if (qd_job_record(job_env, &je, opts.cluster, &job, err, sizeof(err))) {
		/* Quiet for jobs without GPUs here: nothing to count. */
		if (job.mgpus ||
		    (getenv("SLURM_JOB_GPUS") && *getenv("SLURM_JOB_GPUS"))) {
			slurm_error("qosdeny: job %.16s %s: GPU usage not "
				    "reported: %s",
				    getenv("SLURM_JOB_ID")
					? getenv("SLURM_JOB_ID")
					: "?",
				    hook, err);
			if (!epilog)
				note_unrecorded(&opts, err, now);
		} else {
			slurm_verbose("qosdeny: job %s: %s", hook, err);
		}
		return 0;
	}
	/* struct qd_site is large: not on the stack of a hook. */
	rp = malloc(sizeof(*rp));
	if (!rp || qd_reporter_init(rp, &opts, job.node, qd_spank_log, NULL,
				    err, sizeof(err))) {
		slurm_error("qosdeny: job %u %s: GPU usage not reported: %s",
			    job.job_id, hook, rp ? err : "out of memory");
		goto out;
	}
	if (epilog) {
		qd_report_epilog(rp, &job, now);
	} else {
		if (job.mgpus) {
			held_here(rp, &job);
			weigh_here(rp, &job);
		}
		qd_report_prolog(rp, &job, now);
	}
	if (job.user[0] == '~' || job.account[0] == '~') {
		const char *names[] = {getenv("SLURM_JOB_USER"),
				       getenv("SLURM_JOB_ACCOUNT")};

		qd_report_names(rp, job.cluster, job.job_id, names, 2);
	}
out:
	free(rp);
	return 0;
}
