/*
 * slurmd context. Steps that start in slurmd's own cgroup (TaskPlugin
 * task/none) get their qosdeny_* child cgroups there; a slurmstepd killed
 * before its step's exit hook leaves them behind, empty once its processes
 * are gone. slurmd's start is the moment to remove them: no step of this
 * slurmd is being set up yet, and ones still in use are refused by the
 * kernel.
 */
#include <unistd.h>

#include "cgroup.h"
#include "spank_priv.h"

void qd_slurmd_init(const struct qd_spank_opts *o)
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
