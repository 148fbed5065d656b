/* SPDX-License-Identifier: GPL-2.0-or-later
 * The cgroup v1 path of the GPU binding (cgroup.h, "cgroup v1 (or
 * hybrid)"): deny rules in a child of the process's devices cgroup. Called
 * by the facade (cgroup.c) only; calls the primitives in cgroup_file.c.
 */
#ifndef QD_CGROUP_V1_H
#define QD_CGROUP_V1_H

#include <stddef.h>

#include "cgroup.h"
#include "cgroup_deny.h"

/*
 * Makes b->dir, the child name of the devices cgroup parent, refusing the n
 * devices of deny, and moves b->pid into it unless b->nomove. On failure,
 * -1 with err set and nothing left behind (b->dir empty).
 */
int cg_v1_confine(struct qd_cg_binding *b, const char *parent, const char *name,
		  const struct qd_dev *deny, size_t n, char *err,
		  size_t errlen);

#endif
