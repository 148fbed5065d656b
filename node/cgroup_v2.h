/* SPDX-License-Identifier: GPL-2.0-or-later
 * The cgroup v2 paths of the GPU binding (cgroup.h: a child cgroup, or in
 * place): where our device program goes, with which flags, what it
 * tail-calls, and undoing that. Called by the facade (cgroup.c) only; calls
 * the primitives in cgroup_file.c and the program's builder in cgroup_bpf.c.
 */
#ifndef QD_CGROUP_V2_H
#define QD_CGROUP_V2_H

#include <stddef.h>

#include "cgroup.h"
#include "cgroup_deny.h"

/*
 * Attaches a program refusing the n devices of deny for b's layout: to a
 * new child name of parent (b->dir, b->pid moved in unless b->nomove) or to
 * parent itself (b->attached). top is the cgroup2 mount, above which the
 * attach flags cannot be read. On failure, -1 with err set and nothing left
 * behind.
 */
int cg_v2_confine(struct qd_cg_binding *b, const char *parent, const char *top,
		  const char *name, const struct qd_dev *deny, size_t n,
		  char *err, size_t errlen);

/* Whether device program id is effective in the cgroup at dir: 1, 0, -1.
 * With others set, also whether every program effective at others is
 * effective at dir (*covers). */
int cg_v2_effective(const char *dir, unsigned id, const char *others,
		    int *covers, char *err, size_t errlen);

/* v2 release beyond the rmdir: put a replaced program back, close fds. */
int cg_v2_release(struct qd_cg_binding *b, char *err, size_t errlen);
void cg_v2_close(struct qd_cg_binding *b);

#endif
