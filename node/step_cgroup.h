/* SPDX-License-Identifier: GPL-2.0-or-later
 * Where Slurm puts a step's processes on cgroup v2: the one place that knows
 * it. The task binding, the extern step's confinement for ssh sessions,
 * pam_qosdeny.so and `qosdeny doctor` all ask here (docs/gpu-and-usage.md,
 * "Cgroup layouts").
 *
 * Slurm's cgroup/v2 plugin gives every step a directory with two children,
 * the same from 22.05 to 26.05: `slurm`, where slurmstepd moves itself, and
 * `user`, holding the tasks' cgroups (`task_N`, `task_special`), whose
 * cgroup.procs files are where proctrack/cgroup finds the pids it signals.
 * The job's directory above it is named `job_N` up to 25.11, and from 26.05
 * after the job's SLUID unless cgroup.conf has CgroupJobIdPaths=yes; so no
 * directory name of the job is ever looked at. A step is known by its
 * slurmstepd: a cgroup is Slurm's when it is STEP/user or below it and
 * STEP/slurm holds a process named slurmstepd.
 *
 * Nothing here depends on SPANK, PAM or the rest of the cgroup module: it
 * reads cgroup.procs and /proc, and makes and changes nothing.
 */
#ifndef QD_STEP_CGROUP_H
#define QD_STEP_CGROUP_H

#include <stddef.h>

/*
 * Whether the cgroup2 directory dir (a path in the mounted hierarchy) is one
 * Slurm's cgroup/v2 tracks a step's processes by: 1, with the step's
 * directory (STEP above) in step when step is not NULL; 0 when it is not, or
 * cannot be read. The deepest such step wins.
 */
int qd_step_cgroup(const char *dir, char *step, size_t steplen);

/*
 * The step of a slurmstepd from its own cgroup2 directory stepd_dir
 * (STEP/slurm, where it moved itself): 1 with STEP in step; 0 when
 * stepd_dir is no such directory (Slurm tracks the step by no cgroup2
 * cgroup: cgroup v1, or no cgroup/v2 plugin).
 */
int qd_step_cgroup_of_stepd(const char *stepd_dir, char *step, size_t steplen);

#endif
