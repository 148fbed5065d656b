/*
 * slurmd context. Steps that start in slurmd's own cgroup (TaskPlugin
 * task/none) get their qosdeny_* child cgroups there; a slurmstepd killed
 * before its step's exit hook leaves them behind, empty once its processes
 * are gone. slurmd's start is the moment to remove them: no step of this
 * slurmd is being set up yet, and ones still in use are refused by the
 * kernel.
 *
 * It is also where what holds for every job of the node is said, once:
 * the job prolog and epilog run per job, and a line there would repeat
 * twice per job.
 */
#include <stdlib.h>
#include <unistd.h>

#include "cgroup.h"
#include "site.h"
#include "spank_priv.h"

static void sweep_cgroups(const struct qd_spank_opts *o)
{
	char err[1024];
	int n;

	if (o->cgroup == QD_CG_OFF)
		return;
	n = qd_cg_sweep(getpid(), err, sizeof(err));
	if (n < 0)
		slurm_verbose("qosdeny: no leftover cgroups looked for: %s",
			      err);
	else if (n > 0)
		slurm_info("qosdeny: removed %d leftover cgroup%s of ended "
			   "steps",
			   n, n == 1 ? "" : "s");
}

/*
 * Without accounting a job has no account unless it names one (--account),
 * and its records carry none (usage_job.c). slurmd set SLURM_CONF to the
 * slurm.conf it read before loading plugins (slurmd.c), so the site is
 * slurmd's own. A slurm.conf qosdeny cannot read is said by each job's
 * prolog, which needs it.
 */
static void say_accounting(void)
{
	char err[QD_SITE_ERR_MAX];
	/* struct qd_site is large: not on slurmd's stack. */
	struct qd_site *site = malloc(sizeof(*site));

	if (!site)
		return;
	if (qd_site_load(site, err, sizeof(err)))
		slurm_verbose("qosdeny: %s", err);
	else if (qd_site_accounting_off(site))
		slurm_info("qosdeny: accounting is off "
			   "(AccountingStorageType=%s): GPU usage is reported "
			   "under the user with an empty account, unless the "
			   "job names one (--account)",
			   site->accounting[0] ? site->accounting
					       : "accounting_storage/none");
	free(site);
}

void qd_slurmd_init(const struct qd_spank_opts *o)
{
	sweep_cgroups(o);
	say_accounting();
}
