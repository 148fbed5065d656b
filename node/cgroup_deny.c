/* SPDX-License-Identifier: GPL-2.0-or-later
 * The device numbers a GPU binding refuses; see cgroup_deny.h. The control
 * devices are never among them (cgroup.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cgroup_deny.h"
#include "errmsg.h"

/* Shared by every task of every step; denying them breaks CUDA for all. */
static const char *const control_devices[] = {
    "nvidiactl",
    "nvidia-uvm",
    "nvidia-uvm-tools",
    "nvidia-modeset",
};

static bool is_control_device(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0;
	     i < sizeof(control_devices) / sizeof(*control_devices); i++)
		if (!strcmp(base, control_devices[i]))
			return true;
	return false;
}

int qd_char_device(const char *path, dev_t *rdev, char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st))
		return qd_errf(err, errlen, "%s: %s", path, strerror(errno));
	if (!S_ISCHR(st.st_mode))
		return qd_errf(err, errlen, "%s: not a character device", path);
	if (rdev)
		*rdev = st.st_rdev;
	return 0;
}

int cg_deny_set(const struct qd_paths *gpus, const struct qd_paths *allowed,
		struct qd_dev **out, size_t *n, char *err, size_t errlen)
{
	int rv = -1;
	dev_t *keep = NULL, rdev;
	struct qd_dev *deny = NULL;
	size_t nkeep = 0, ndeny = 0, i, j;

	*out = NULL;
	*n = 0;
	keep = calloc(allowed->n + 1, sizeof(*keep));
	deny = calloc(gpus->n + 1, sizeof(*deny));
	if (!keep || !deny) {
		qd_errf(err, errlen, "out of memory");
		goto fail;
	}
	/* A bad allowed path is an error too: it means the GPU list is wrong.
	 */
	for (i = 0; i < allowed->n; i++) {
		if (qd_char_device(allowed->v[i], &rdev, err, errlen))
			goto fail;
		keep[nkeep++] = rdev;
	}
	for (i = 0; i < gpus->n; i++) {
		if (is_control_device(gpus->v[i]))
			continue;
		if (qd_char_device(gpus->v[i], &rdev, err, errlen))
			goto fail;
		/* Two names for one device: allowing one allows both. */
		for (j = 0; j < nkeep && keep[j] != rdev; j++)
			;
		if (j < nkeep)
			continue;
		for (j = 0; j < ndeny; j++)
			if (deny[j].major == major(rdev) &&
			    deny[j].minor == minor(rdev))
				break;
		if (j < ndeny)
			continue;
		deny[ndeny].major = major(rdev);
		deny[ndeny].minor = minor(rdev);
		ndeny++;
	}
	*out = deny;
	*n = ndeny;
	deny = NULL;
	rv = 0;
fail:
	free(keep);
	free(deny);
	return rv;
}
