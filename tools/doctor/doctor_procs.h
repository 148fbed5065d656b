/* SPDX-License-Identifier: GPL-2.0-or-later
 * Which Slurm daemons run on this host with a given slurm.conf, from /proc:
 * a daemon's slurm.conf is its -f argument, else its SLURM_CONF, else
 * Slurm's default path; a slurmd's node name its -N argument, else the
 * short host name (as slurmd takes it).
 */
#ifndef QD_DOCTOR_PROCS_H
#define QD_DOCTOR_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "site.h"

#define QD_PROCS_SLURMD_MAX 64

struct qd_proc_slurmd {
	pid_t pid;
	char node[QD_NAME_MAX];
};

struct qd_procs {
	bool slurmctld;
	size_t n_slurmd; /* slurmd[] sorted by node name */
	struct qd_proc_slurmd slurmd[QD_PROCS_SLURMD_MAX];
	char hostname[QD_NAME_MAX];
};

void qd_procs_find(const struct qd_site *s, struct qd_procs *p);

#endif
