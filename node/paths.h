/* SPDX-License-Identifier: GPL-2.0-or-later
 * A growable list of file paths: the node's GPU device files and the ones a
 * step may use. Shared by the GPU list code and the cgroup module.
 */
#ifndef QD_PATHS_H
#define QD_PATHS_H

#include <stddef.h>

struct qd_paths {
	char **v;
	size_t n;
	size_t cap;
};

/* Appends a copy of path. Returns 0, or -1 with errno ENOMEM. */
int qd_paths_add(struct qd_paths *p, const char *path);

/* Index of path in p, or -1. */
long qd_paths_find(const struct qd_paths *p, const char *path);

void qd_paths_free(struct qd_paths *p);

#endif
