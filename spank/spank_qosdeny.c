/* SPDX-License-Identifier: GPL-2.0-or-later
 * spank_qosdeny.so: the SPANK entry points, dispatching to one file per
 * context. Loaded by slurmd, slurmstepd, srun, salloc and sbatch alike
 * through a plugstack.conf line (docs/install.md, "plugstack.conf"); each
 * parses the options, so a bad line fails everywhere, loudly.
 */
#include <slurm/spank.h>

#include "spank_priv.h"

SPANK_PLUGIN(qosdeny, 1);

static struct qd_spank_opts opts;

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	char err[1024];

	qd_spank_opts_init(&opts);
	if (qd_spank_opts_parse(&opts, ac, av, err, sizeof(err))) {
		slurm_error("%s", err);
		return -1;
	}
	(void)sp;
	if (spank_context() == S_CTX_SLURMD && qd_slurmd_init(&opts))
		return -1;
	return ESPANK_SUCCESS;
}

/*
 * In `slurmstepd spank prolog|epilog`, started by slurmd once per job per
 * node, as root, at the job's start and end there: GPU usage reporting.
 */
int slurm_spank_job_prolog(spank_t sp, int ac, char **av)
{
	(void)sp;
	return qd_job_script(ac, av, false);
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	(void)sp;
	return qd_job_script(ac, av, true);
}

/*
 * In slurmstepd, as root, once per task: the task is forked, in Slurm's
 * cgroups and waiting to exec the user's program, which it does only if
 * every plugin succeeds here.
 */
int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE)
		return ESPANK_SUCCESS;
	/* slurmstepd stops the tasks only on a negative value: an ESPANK_*
	 * code (positive) would be logged and the task started anyway. */
	return qd_remote_task_post_fork(sp, &opts) == ESPANK_SUCCESS ? 0 : -1;
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE)
		return ESPANK_SUCCESS;
	return qd_remote_task_exit(sp);
}

/* In slurmd, as it shuts down. */
int slurm_spank_slurmd_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	qd_slurmd_exit();
	return ESPANK_SUCCESS;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	if (spank_context() == S_CTX_REMOTE)
		qd_remote_exit();
	return ESPANK_SUCCESS;
}
