/* SPDX-License-Identifier: GPL-2.0-or-later
 * The cgroup file primitives: making a child cgroup, moving a process into
 * one, writing a control file, counting and removing. The bottom layer of
 * the cgroup module: the v1 and v2 paths (cgroup_v1.c, cgroup_v2.c) and the
 * facade (cgroup.c) call these, and these call none of them, whatever the
 * cgroup version (both hierarchies have the same cgroup.procs and rmdir
 * rules).
 */
#ifndef QD_CGROUP_FILE_H
#define QD_CGROUP_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* Writes text to path in one write(), as cgroup files want. */
int cg_write(const char *path, const char *text, char *err, size_t errlen);

/* dir/name, created fresh: an empty stale one is removed first. */
int cg_mkchild(const char *parent, const char *name, char *child,
	       size_t childlen, char *err, size_t errlen);

/* Moves pid (all its threads) into dir. */
int cg_move(const char *dir, pid_t pid, char *err, size_t errlen);

/* rmdir, retried briefly while an empty cgroup is still draining. */
int cg_rmdir(const char *dir, char *err, size_t errlen);

/* How many processes dir's cgroup.procs lists, or -1 (err set, errno kept). */
int cg_nprocs(const char *dir, char *err, size_t errlen);

/* Whether dir's cgroup.procs lists exactly pid: 1, 0, or -1 (err set). */
int cg_holds_only(const char *dir, pid_t pid, char *err, size_t errlen);

/*
 * Removes the empty cgroups whose names start with prefix directly under
 * dir, once each, without waiting for any to drain; one holding processes
 * stays. How many were removed (0 when dir cannot be read).
 */
int cg_sweep_dir(const char *dir, const char *prefix);

#endif
