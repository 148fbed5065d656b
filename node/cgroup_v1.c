/* SPDX-License-Identifier: GPL-2.0-or-later
 * cgroup v1: deny rules in a child of the task's devices cgroup.
 *
 * A new devices cgroup copies its parent's behaviour and exceptions, and a
 * deny never needs the parent's permission, so the child can only be
 * narrower than where the task was (Slurm's task cgroup under
 * ConstrainDevices, slurmd's own otherwise).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup_file.h"
#include "cgroup_v1.h"
#include "errmsg.h"

/* "*" or a number, as devices.list prints a major or minor. */
static bool num_matches(const char *field, unsigned value)
{
	char *end;
	unsigned long v;

	if (!strcmp(field, "*"))
		return true;
	v = strtoul(field, &end, 10);
	return !*end && v == value;
}

/*
 * The kernel shows "a *:* rwm" for a cgroup that allows by default (our
 * denies are then exceptions to it), else the list of what is allowed. In
 * that allow-list form a deny only removes an exactly matching entry, so one
 * covering the GPU by wildcard ("c 195:* rwm") would silently keep it usable:
 * check that nothing listed still grants a denied device.
 */
static int check_list(const char *dir, const struct qd_dev *deny, size_t n,
		      char *err, size_t errlen)
{
	int rv = -1;
	char path[PATH_MAX + 16], type, maj[16], min[16], acc[8];
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices.list", dir);
	f = fopen(path, "re");
	if (!f)
		return qd_errf(err, errlen, "cgroup v1: %s: %s", path,
			       strerror(errno));
	while (fscanf(f, " %c %15[^:]:%15s %7s", &type, maj, min, acc) == 4) {
		if (type == 'a' && !strcmp(maj, "*") && !strcmp(min, "*"))
			continue;
		if (type != 'a' && type != 'c')
			continue;
		for (size_t i = 0; i < n; i++) {
			if (!num_matches(maj, deny[i].major) ||
			    !num_matches(min, deny[i].minor))
				continue;
			qd_errf(err, errlen,
				"cgroup v1: %s still allows c %u:%u through "
				"its parent's rule '%c %s:%s %s', which a deny "
				"cannot narrow",
				dir, deny[i].major, deny[i].minor, type, maj,
				min, acc);
			goto fail;
		}
	}
	rv = 0;
fail:
	fclose(f);
	return rv;
}

int cg_v1_confine(struct qd_cg_binding *b, const char *parent, const char *name,
		  const struct qd_dev *deny, size_t n, char *err, size_t errlen)
{
	char path[PATH_MAX + 16], rule[64], why[PATH_MAX + 256];

	if (cg_mkchild(parent, name, b->dir, sizeof(b->dir), why,
		       sizeof(why))) {
		b->dir[0] = '\0';
		return qd_errf(err, errlen, "cgroup v1: %s", why);
	}
	snprintf(path, sizeof(path), "%s/devices.deny", b->dir);
	for (size_t i = 0; i < n; i++) {
		snprintf(rule, sizeof(rule), "c %u:%u rwm\n", deny[i].major,
			 deny[i].minor);
		if (cg_write(path, rule, why, sizeof(why))) {
			qd_errf(err, errlen, "cgroup v1: %s", why);
			goto fail;
		}
	}
	if (check_list(b->dir, deny, n, err, errlen))
		goto fail;
	/* Last, so the task is never in a cgroup with half the rules. */
	if (!b->nomove && cg_move(b->dir, b->pid, why, sizeof(why))) {
		qd_errf(err, errlen, "cgroup v1: %s", why);
		goto fail;
	}
	return 0;
fail:
	rmdir(b->dir);
	b->dir[0] = '\0';
	return -1;
}
