/* SPDX-License-Identifier: GPL-2.0-or-later
 * Which process's cgroups are the extern step's (PrologFlags=Contain), as
 * its task_post_fork hook finds them (spank_remote.c): up to 24.11 its one
 * process, a `sleep` slurmstepd forked; from 25.05, which starts no sleep,
 * slurmstepd itself. On cgroup v1 (25.11, seen on the test cluster) that
 * slurmstepd is in Slurm's devices cgroup job_ID/step_extern where
 * ConstrainDevices=yes, and in slurmd's otherwise, as the sleep was.
 */
#ifndef QD_EXTERN_PROCESS_H
#define QD_EXTERN_PROCESS_H

#include <sys/types.h>

/* Its pid, or 0 when it cannot be found (up to 24.11). */
pid_t qd_extern_process(void);

#endif
