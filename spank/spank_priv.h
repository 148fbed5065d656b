/* SPDX-License-Identifier: GPL-2.0-or-later
 * What the SPANK dispatch (spank_qosdeny.c) and the per-context files
 * share. Only these files see SPANK types.
 */
#ifndef QD_SPANK_PRIV_H
#define QD_SPANK_PRIV_H

#include <stdbool.h>

#include <slurm/spank.h>

#include "spank_opts.h"
#include "usage_report.h"

/*
 * Slurm's step ids for the special steps (slurm.h of 22.05; stable since
 * 20.11). Only <slurm/spank.h> is included, so they are spelled out here.
 */
#define QD_STEP_EXTERN	    0xfffffffcu
#define QD_STEP_BATCH	    0xfffffffbu
#define QD_STEP_INTERACTIVE 0xfffffffau

/* slurmstepd (remote context): GPU binding of each task. */
int qd_remote_task_post_fork(spank_t sp, const struct qd_spank_opts *o);
int qd_remote_task_exit(spank_t sp);
void qd_remote_exit(void);

/* slurmd: leftovers of steps whose slurmstepd died, usage records of jobs
 * that ended without their epilog, and slurmd's heartbeat. */
int qd_slurmd_init(const struct qd_spank_opts *o); /* -1: slurmd stops */
void qd_slurmd_exit(void);

/* qd_report_log_fn into Slurm's log: error, info or verbose. */
void qd_spank_log(enum qd_log_level level, const char *msg, void *arg);

/* Job script context (job prolog and epilog): GPU usage reporting. Always
 * returns 0: reporting never fails the job. */
int qd_job_script(int ac, char **av, bool epilog);

#endif
