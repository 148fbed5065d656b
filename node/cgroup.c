/* SPDX-License-Identifier: GPL-2.0-or-later
 * The cgroup module's facade (cgroup.h): decides the layout for a process
 * and hands the work to the path for it, cgroup_v1.c or cgroup_v2.c. The
 * top layer: it calls the paths and the primitives below them
 * (cgroup_file.c, cgroup_locate.c, cgroup_deny.c), none of which calls back.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "cgroup_deny.h"
#include "cgroup_file.h"
#include "cgroup_locate.h"
#include "cgroup_v1.h"
#include "cgroup_v2.h"
#include "errmsg.h"
#include "step_cgroup.h"

const char *qd_cg_layout_name(enum qd_cg_layout layout)
{
	switch (layout) {
	case QD_CG_LAYOUT_OFF:
		return "off";
	case QD_CG_LAYOUT_V1_CHILD:
		return "v1 child cgroup";
	case QD_CG_LAYOUT_V2_CHILD:
		return "v2 child cgroup";
	case QD_CG_LAYOUT_V2_IN_PLACE:
		return "v2 in place";
	}
	return "?";
}

enum qd_cg_layout qd_cg_layout_of(enum qd_cg_mode resolved, bool slurm_step)
{
	if (resolved == QD_CG_V1)
		return QD_CG_LAYOUT_V1_CHILD;
	if (resolved != QD_CG_V2)
		return QD_CG_LAYOUT_OFF;
	/*
	 * Slurm's cgroup/v2 lists a step's processes from each task cgroup's
	 * cgroup.procs, not their descendants: a process moved below is never
	 * signalled ("Kill task failed", a drained node). There, in place.
	 */
	return slurm_step ? QD_CG_LAYOUT_V2_IN_PLACE : QD_CG_LAYOUT_V2_CHILD;
}

/*
 * The layout for pid, its cgroup directory (dir) and that hierarchy's
 * mount (top), each looked up once: every task's launch waits for this
 * (docs/performance.md "Launch cost"). With mode auto, v1 where pid has
 * a v1 devices cgroup, else v2.
 */
static int decide(pid_t pid, enum qd_cg_mode mode, enum qd_cg_layout *layout,
		  char *dir, size_t dirlen, char *top, size_t toplen, char *err,
		  size_t errlen)
{
	char why1[512] = "", why2[512];
	bool autodetect = mode == QD_CG_AUTO; /* else errors go to err */

	*layout = QD_CG_LAYOUT_OFF;
	if (dirlen)
		dir[0] = '\0';
	if (mode == QD_CG_OFF)
		return 0;
	if (mode != QD_CG_V2) {
		if (!cg_dir_of(pid, "devices", dir, dirlen, top, toplen,
			       autodetect ? why1 : err,
			       autodetect ? sizeof(why1) : errlen)) {
			*layout = QD_CG_LAYOUT_V1_CHILD;
			return 0;
		}
		if (!autodetect)
			return -1;
	}
	if (cg_dir_of(pid, NULL, dir, dirlen, top, toplen,
		      autodetect ? why2 : err,
		      autodetect ? sizeof(why2) : errlen))
		return autodetect
			   ? qd_errf(err, errlen,
				     "no cgroup to confine devices in: %s; %s",
				     why1, why2)
			   : -1;
	*layout = qd_cg_layout_of(QD_CG_V2, qd_step_cgroup(dir, NULL, 0) == 1);
	return 0;
}

int qd_cg_decide_layout(pid_t pid, enum qd_cg_mode mode,
			enum qd_cg_layout *layout, char *dir, size_t dirlen,
			char *err, size_t errlen)
{
	char top[PATH_MAX];

	return decide(pid, mode, layout, dir, dirlen, top, sizeof(top), err,
		      errlen);
}

int qd_cg_resolve(pid_t pid, enum qd_cg_mode mode, enum qd_cg_mode *out,
		  char *err, size_t errlen)
{
	enum qd_cg_layout layout;
	char dir[PATH_MAX];

	*out = mode;
	if (mode != QD_CG_AUTO)
		return 0;
	if (qd_cg_decide_layout(pid, mode, &layout, dir, sizeof(dir), err,
				errlen))
		return -1;
	*out = layout == QD_CG_LAYOUT_V1_CHILD ? QD_CG_V1 : QD_CG_V2;
	return 0;
}

static bool valid_name(const char *name)
{
	size_t len = strlen(name);

	return !strncmp(name, QD_CG_PREFIX, strlen(QD_CG_PREFIX)) &&
	       len < NAME_MAX && !strchr(name, '/');
}

static struct qd_cg_binding *new_binding(enum qd_cg_layout layout, pid_t pid,
					 int nomove, char *err, size_t errlen)
{
	struct qd_cg_binding *b = calloc(1, sizeof(*b));

	if (!b) {
		qd_errf(err, errlen, "out of memory");
		return NULL;
	}
	b->layout = layout;
	b->mode = layout == QD_CG_LAYOUT_V1_CHILD ? QD_CG_V1 : QD_CG_V2;
	b->pid = pid;
	b->nomove = nomove;
	b->prog_fd = b->map_fd = b->chain_fd = -1;
	return b;
}

static int confine(pid_t pid, enum qd_cg_mode mode, const char *name,
		   const struct qd_paths *gpus, const struct qd_paths *allowed,
		   int nomove, struct qd_cg_binding **out, char *err,
		   size_t errlen)
{
	int rv = -1;
	struct qd_cg_binding *b = NULL;
	struct qd_dev *deny = NULL;
	enum qd_cg_layout layout;
	size_t n;
	char parent[PATH_MAX], top[PATH_MAX];

	*out = NULL;
	if (mode == QD_CG_OFF)
		return 0;
	if (!valid_name(name))
		return qd_errf(err, errlen,
			       "cgroup name '%s' must start with " QD_CG_PREFIX
			       " and hold no '/'",
			       name);
	if (cg_deny_set(gpus, allowed, &deny, &n, err, errlen))
		goto fail;
	if (!n) {
		rv = 0; /* every GPU allowed, or none on the node */
		goto fail;
	}
	if (decide(pid, mode, &layout, parent, sizeof(parent), top, sizeof(top),
		   err, errlen))
		goto fail;
	b = new_binding(layout, pid, nomove, err, errlen);
	if (!b)
		goto fail;
	if (layout == QD_CG_LAYOUT_V1_CHILD
		? cg_v1_confine(b, parent, name, deny, n, err, errlen)
		: cg_v2_confine(b, parent, top, name, deny, n, err, errlen))
		goto fail;
	b->ndenied = n;
	*out = b;
	b = NULL;
	rv = 0;
fail:
	free(b);
	free(deny);
	return rv;
}

static int attach_dir(const char *dir, bool above, const struct qd_paths *gpus,
		      const struct qd_paths *allowed,
		      struct qd_cg_binding **out, char *err, size_t errlen)
{
	int rv = -1;
	struct qd_cg_binding *b = NULL;
	struct qd_dev *deny = NULL;
	char top[PATH_MAX], root[PATH_MAX], why[512];
	size_t n;

	*out = NULL;
	if (cg_deny_set(gpus, allowed, &deny, &n, err, errlen))
		goto fail;
	if (!n) {
		rv = 0;
		goto fail;
	}
	if (cg_mount(NULL, top, sizeof(top), root, sizeof(root), why,
		     sizeof(why))) {
		qd_errf(err, errlen, "cgroup v2: %s", why);
		goto fail;
	}
	if (strncmp(dir, top, strlen(top))) {
		qd_errf(err, errlen,
			"cgroup v2: %s is not below the mount at %s", dir, top);
		goto fail;
	}
	b = new_binding(QD_CG_LAYOUT_V2_IN_PLACE, 0, 1, err, errlen);
	if (b)
		b->above = above;
	if (!b ||
	    cg_v2_confine(b, dir, top, QD_CG_PREFIX, deny, n, err, errlen))
		goto fail;
	b->ndenied = n;
	*out = b;
	b = NULL;
	rv = 0;
fail:
	free(b);
	free(deny);
	return rv;
}

int qd_cg_attach_dir(const char *dir, const struct qd_paths *gpus,
		     const struct qd_paths *allowed, struct qd_cg_binding **out,
		     char *err, size_t errlen)
{
	return attach_dir(dir, false, gpus, allowed, out, err, errlen);
}

int qd_cg_attach_above(const char *dir, const struct qd_paths *gpus,
		       const struct qd_paths *allowed,
		       struct qd_cg_binding **out, char *err, size_t errlen)
{
	return attach_dir(dir, true, gpus, allowed, out, err, errlen);
}

int qd_cg_confine(pid_t pid, enum qd_cg_mode mode, const char *name,
		  const struct qd_paths *gpus, const struct qd_paths *allowed,
		  struct qd_cg_binding **out, char *err, size_t errlen)
{
	return confine(pid, mode, name, gpus, allowed, 0, out, err, errlen);
}

int qd_cg_prepare(pid_t pid, enum qd_cg_mode mode, const char *name,
		  const struct qd_paths *gpus, const struct qd_paths *allowed,
		  struct qd_cg_binding **out, char *err, size_t errlen)
{
	return confine(pid, mode, name, gpus, allowed, 1, out, err, errlen);
}

int qd_cg_dir(pid_t pid, enum qd_cg_mode mode, char *dir, size_t len, char *err,
	      size_t errlen)
{
	char top[PATH_MAX];

	if (mode != QD_CG_V1 && mode != QD_CG_V2)
		return qd_errf(err, errlen, "cgroup mode %s has no directory",
			       qd_cg_mode_name(mode));
	return cg_dir_of(pid, mode == QD_CG_V1 ? "devices" : NULL, dir, len,
			 top, sizeof(top), err, errlen);
}

/* Whether path is dir or below it. */
static bool at_or_below(const char *path, const char *dir)
{
	size_t len = strlen(dir);

	return !strncmp(path, dir, len) && (!path[len] || path[len] == '/');
}

int qd_cg_join(pid_t pid, enum qd_cg_mode mode, const char *dir,
	       unsigned prog_id, int *moved, char *err, size_t errlen)
{
	char cur[PATH_MAX], why[PATH_MAX + 256];
	int covers = 0, r;

	*moved = 0;
	if (qd_cg_dir(pid, mode, cur, sizeof(cur), err, errlen))
		return -1;
	if (mode == QD_CG_V1) {
		if (at_or_below(cur, dir))
			return 0;
		/* A v1 devices cgroup holds every rule of its ancestors;
		 * whether another allows more cannot be read (devices.list
		 * shows "a *:* rwm" whatever it denies), so none is left. */
		if (!at_or_below(dir, cur))
			return qd_errf(err, errlen,
				       "cgroup v1: pid %d's devices cgroup %s "
				       "is not above %s: moving it could widen "
				       "what it may open",
				       (int)pid, cur, dir);
	} else {
		r = cg_v2_effective(cur, prog_id, NULL, NULL, err, errlen);
		if (r < 0)
			return -1;
		if (r)
			return 0;
		if (qd_step_cgroup(cur, NULL, 0) == 1)
			return qd_errf(err, errlen,
				       "cgroup v2: pid %d is in %s, where "
				       "Slurm's cgroup/v2 plugin tracks it; "
				       "moving it would hide it from Slurm",
				       (int)pid, cur);
		if (cg_v2_effective(dir, prog_id, cur, &covers, err, errlen) <
		    0)
			return -1;
		if (!covers)
			return qd_errf(err, errlen,
				       "cgroup v2: a device program effective "
				       "for pid %d in %s is not in %s: moving "
				       "it could widen what it may open",
				       (int)pid, cur, dir);
	}
	if (cg_move(dir, pid, why, sizeof(why)))
		return qd_errf(err, errlen, "cgroup %s: %s",
			       mode == QD_CG_V1 ? "v1" : "v2", why);
	*moved = 1;
	/* The kernel's word, not ours: where pid is now. */
	if (qd_cg_dir(pid, mode, cur, sizeof(cur), err, errlen))
		return -1;
	if (mode == QD_CG_V1
		? strcmp(cur, dir) != 0
		: cg_v2_effective(cur, prog_id, NULL, NULL, err, errlen) != 1)
		return qd_errf(err, errlen,
			       "pid %d was moved to %s but is not confined "
			       "there (%s)",
			       (int)pid, dir, cur);
	return 0;
}

int qd_cg_release(struct qd_cg_binding *b, char *err, size_t errlen)
{
	if (!b)
		return 0;
	if (b->dir[0]) {
		if (cg_rmdir(b->dir, err, errlen))
			return -1;
		b->dir[0] = '\0';
	}
	if (b->mode == QD_CG_V2 && cg_v2_release(b, err, errlen))
		return -1;
	free(b);
	return 0;
}

void qd_cg_forget(struct qd_cg_binding *b)
{
	if (!b)
		return;
	if (b->mode == QD_CG_V2)
		cg_v2_close(b);
	free(b);
}

int qd_cg_sweep(pid_t pid, char *err, size_t errlen)
{
	char dir[PATH_MAX], top[PATH_MAX], why1[512], why2[512];
	int removed = 0, found = 0;

	if (!cg_dir_of(pid, "devices", dir, sizeof(dir), top, sizeof(top), why1,
		       sizeof(why1))) {
		found++;
		removed += cg_sweep_dir(dir, QD_CG_PREFIX);
	}
	if (!cg_dir_of(pid, NULL, dir, sizeof(dir), top, sizeof(top), why2,
		       sizeof(why2))) {
		found++;
		removed += cg_sweep_dir(dir, QD_CG_PREFIX);
	}
	if (!found)
		return qd_errf(err, errlen, "%s; %s", why1, why2);
	return removed;
}
