/* SPDX-License-Identifier: GPL-2.0-or-later
 * Where a process's cgroup is on this machine: its path in /proc/PID/cgroup
 * read against this process's mounts (/proc/self/mountinfo). Only reads;
 * the facade (cgroup.c) asks it once per task to pick the cgroup path.
 */
#ifndef QD_CGROUP_LOCATE_H
#define QD_CGROUP_LOCATE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * pid's cgroup directory in the v1 hierarchy holding controller, or (NULL)
 * in cgroup2, from /proc/PID/cgroup and this process's mountinfo; *top gets
 * the mount point. -1 with err saying which part is missing.
 */
int cg_dir_of(pid_t pid, const char *controller, char *dir, size_t dirlen,
	      char *top, size_t toplen, char *err, size_t errlen);

/*
 * This process's mount of the v1 hierarchy that has controller, or (NULL) of
 * cgroup2: where it is mounted and which cgroup is its root.
 */
int cg_mount(const char *controller, char *mnt, size_t mntlen, char *root,
	     size_t rootlen, char *err, size_t errlen);

#endif
