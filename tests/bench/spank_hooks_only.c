/* SPDX-License-Identifier: GPL-2.0-or-later
 * A SPANK plugin with a job prolog and a job epilog that do nothing: what
 * Slurm itself charges any plugin with those hooks (slurmd starts a
 * `slurmstepd spank prolog|epilog` process per job for them), measured
 * beside spank_qosdeny.so by tests/bench/launch.sh (docs/performance.md
 * "Launch cost").
 */
#include <slurm/spank.h>

SPANK_PLUGIN(qd_hooks_only, 1);

int slurm_spank_job_prolog(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	return 0;
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	return 0;
}
