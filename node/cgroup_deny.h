/* SPDX-License-Identifier: GPL-2.0-or-later
 * The device numbers a GPU binding refuses, from the GPU files it is given
 * (cgroup.h). Both cgroup paths (cgroup_v1.c, cgroup_v2.c) and the device
 * program (cgroup_bpf.c) take this list; it knows nothing of cgroups.
 */
#ifndef QD_CGROUP_DENY_H
#define QD_CGROUP_DENY_H

#include <stddef.h>
#include <sys/types.h>

#include "paths.h"

/* A character device to refuse. */
struct qd_dev {
	unsigned major;
	unsigned minor;
};

/*
 * Whether path is a character device, as every GPU file must be for a
 * binding to name it (doctor's gpus line asks the same): 0 with its device
 * number in *rdev (unless NULL), or -1 with "path: why" in err.
 */
int qd_char_device(const char *path, dev_t *rdev, char *err, size_t errlen);

/*
 * The device numbers of gpus that no allowed file shares, control devices
 * left out, each once. -1 with err naming the path that cannot be stat()ed or
 * is no character device.
 */
int cg_deny_set(const struct qd_paths *gpus, const struct qd_paths *allowed,
		struct qd_dev **out, size_t *n, char *err, size_t errlen);

#endif
