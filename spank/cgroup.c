/*
 * The parts of the cgroup module that do not depend on the cgroup version:
 * device numbers, finding a process's cgroup, creating and removing the
 * child cgroups. See cgroup.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cgroup_priv.h"
#include "step_cgroup.h"

/* Shared by every task of every step; denying them breaks CUDA for all. */
static const char *const control_devices[] = {
    "nvidiactl",
    "nvidia-uvm",
    "nvidia-uvm-tools",
    "nvidia-modeset",
};

const char *qd_cg_mode_name(enum qd_cg_mode mode)
{
	switch (mode) {
	case QD_CG_AUTO:
		return "auto";
	case QD_CG_V1:
		return "v1";
	case QD_CG_V2:
		return "v2";
	case QD_CG_OFF:
		return "off";
	}
	return "?";
}

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

static int char_device(const char *path, dev_t *rdev, char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st))
		return qd_errf(err, errlen, "%s: %s", path, strerror(errno));
	if (!S_ISCHR(st.st_mode))
		return qd_errf(err, errlen, "%s: not a character device", path);
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
		if (char_device(allowed->v[i], &rdev, err, errlen))
			goto fail;
		keep[nkeep++] = rdev;
	}
	for (i = 0; i < gpus->n; i++) {
		if (is_control_device(gpus->v[i]))
			continue;
		if (char_device(gpus->v[i], &rdev, err, errlen))
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

/*
 * The path in /proc/PID/cgroup of pid's cgroup in the v1 hierarchy that has
 * controller, or (NULL) in the v2 one ("0::/path").
 */
static int proc_cgroup(pid_t pid, const char *controller, char *path,
		       size_t len, char *err, size_t errlen)
{
	int rv = -1;
	char file[64], *line = NULL, *ctls, *p, *tok, *save;
	size_t cap = 0;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return qd_errf(err, errlen, "%s: %s", file, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		/* "ID:CONTROLLERS:PATH"; the path may itself hold ':' */
		ctls = strchr(line, ':');
		if (!ctls)
			continue;
		*ctls++ = '\0';
		p = strchr(ctls, ':');
		if (!p)
			continue;
		*p++ = '\0';
		if (!controller) {
			if (strcmp(line, "0") || *ctls)
				continue;
		} else {
			for (tok = strtok_r(ctls, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save))
				if (!strcmp(tok, controller))
					break;
			if (!tok)
				continue;
		}
		if (snprintf(path, len, "%s", p) >= (int)len) {
			qd_errf(err, errlen, "%s: path too long", file);
			goto fail;
		}
		rv = 0;
		goto fail;
	}
	if (controller)
		qd_errf(err, errlen, "pid %d is in no v1 %s cgroup (%s)",
			(int)pid, controller, file);
	else
		qd_errf(err, errlen, "pid %d is in no cgroup2 cgroup (%s)",
			(int)pid, file);
fail:
	free(line);
	fclose(f);
	return rv;
}

/* mountinfo escapes blanks, tabs, newlines and '\' as \ooo. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

static bool has_option(const char *opts, const char *want)
{
	size_t len = strlen(want);

	for (const char *p = opts; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (!strncmp(p, want, len) && (p[len] == ',' || !p[len]))
			return true;
	}
	return false;
}

/*
 * This process's mount of the v1 hierarchy that has controller, or (NULL) of
 * cgroup2: where it is mounted and which cgroup is its root.
 */
int cg_mount(const char *controller, char *mnt, size_t mntlen, char *root,
	     size_t rootlen, char *err, size_t errlen)
{
	int rv = -1;
	char *line = NULL, *f[6], *sep, *fstype, *opts, *save;
	size_t cap = 0;
	int i;
	FILE *m = fopen("/proc/self/mountinfo", "re");

	if (!m)
		return qd_errf(err, errlen, "/proc/self/mountinfo: %s",
			       strerror(errno));
	while (getline(&line, &cap, m) > 0) {
		line[strcspn(line, "\n")] = '\0';
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE
		 * SOURCE SUPEROPTS */
		f[0] = strtok_r(line, " ", &save);
		for (i = 1; i < 6 && f[i - 1]; i++)
			f[i] = strtok_r(NULL, " ", &save);
		if (i < 6 || !f[5])
			continue;
		while ((sep = strtok_r(NULL, " ", &save)) && strcmp(sep, "-"))
			;
		fstype = strtok_r(NULL, " ", &save);
		if (!sep || !fstype || !strtok_r(NULL, " ", &save))
			continue;
		opts = strtok_r(NULL, " ", &save);
		if (controller) {
			if (strcmp(fstype, "cgroup") || !opts ||
			    !has_option(opts, controller))
				continue;
		} else if (strcmp(fstype, "cgroup2")) {
			continue;
		}
		unescape(f[3]);
		unescape(f[4]);
		if (snprintf(mnt, mntlen, "%s", f[4]) >= (int)mntlen ||
		    snprintf(root, rootlen, "%s", f[3]) >= (int)rootlen) {
			qd_errf(err, errlen, "mount point %s: path too long",
				f[4]);
			goto fail;
		}
		rv = 0;
		goto fail;
	}
	if (controller)
		qd_errf(err, errlen, "no v1 %s controller mounted", controller);
	else
		qd_errf(err, errlen, "no cgroup2 file system mounted");
fail:
	free(line);
	fclose(m);
	return rv;
}

int cg_dir_of(pid_t pid, const char *controller, char *dir, size_t dirlen,
	      char *top, size_t toplen, char *err, size_t errlen)
{
	char path[PATH_MAX], root[PATH_MAX], mnt[PATH_MAX];
	const char *rel = path;
	const char *v = controller ? "cgroup v1" : "cgroup v2";
	size_t rootlen;
	char why[512];

	if (proc_cgroup(pid, controller, path, sizeof(path), why,
			sizeof(why)) ||
	    cg_mount(controller, mnt, sizeof(mnt), root, sizeof(root), why,
		     sizeof(why)))
		return qd_errf(err, errlen, "%s: %s", v, why);
	/*
	 * A mount of part of the hierarchy (a container's, or a cgroup
	 * namespace's) shows the cgroups below its root only.
	 */
	rootlen = strlen(root);
	if (strcmp(root, "/")) {
		if (strncmp(path, root, rootlen) ||
		    (path[rootlen] && path[rootlen] != '/'))
			return qd_errf(err, errlen,
				       "%s: pid %d's cgroup %s is outside the "
				       "mount at %s (root %s)",
				       v, (int)pid, path, mnt, root);
		rel = path + rootlen;
	}
	if (!strcmp(rel, "/"))
		rel = "";
	if (snprintf(dir, dirlen, "%s%s", mnt, rel) >= (int)dirlen ||
	    snprintf(top, toplen, "%s", mnt) >= (int)toplen)
		return qd_errf(err, errlen, "%s: %s%s: path too long", v, mnt,
			       rel);
	return 0;
}

int cg_write(const char *path, const char *text, char *err, size_t errlen)
{
	int rv = -1;
	size_t len = strlen(text);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return qd_errf(err, errlen, "open %s: %s", path,
			       strerror(errno));
	n = write(fd, text, len);
	if (n < 0) {
		qd_errf(err, errlen, "write '%.*s' to %s: %s",
			(int)strcspn(text, "\n"), text, path, strerror(errno));
		goto fail;
	}
	if ((size_t)n != len) {
		qd_errf(err, errlen, "write '%.*s' to %s: short write",
			(int)strcspn(text, "\n"), text, path);
		goto fail;
	}
	rv = 0;
fail:
	close(fd);
	return rv;
}

int cg_mkchild(const char *parent, const char *name, char *child,
	       size_t childlen, char *err, size_t errlen)
{
	if (snprintf(child, childlen, "%s/%s", parent, name) >= (int)childlen)
		return qd_errf(err, errlen, "%s/%s: path too long", parent,
			       name);
	if (!mkdir(child, 0755))
		return 0;
	if (errno != EEXIST)
		return qd_errf(err, errlen, "mkdir %s: %s", child,
			       strerror(errno));
	/*
	 * Left by a step that ended without cleaning up (slurmstepd killed).
	 * Its rules were for other GPUs: start afresh, never reuse it.
	 */
	if (cg_rmdir(child, err, errlen))
		return -1;
	if (mkdir(child, 0755))
		return qd_errf(err, errlen, "mkdir %s: %s", child,
			       strerror(errno));
	return 0;
}

int cg_move(const char *dir, pid_t pid, char *err, size_t errlen)
{
	char procs[PATH_MAX + 16], text[32];

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	snprintf(text, sizeof(text), "%d\n", (int)pid);
	return cg_write(procs, text, err, errlen);
}

/* How many pids dir's cgroup.procs lists, and whether pid is one. */
static int count_procs(const char *dir, pid_t pid, bool *has_pid, char *err,
		       size_t errlen)
{
	char path[PATH_MAX + 16];
	int n = 0, p, saved;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (!f) {
		saved = errno;
		qd_errf(err, errlen, "%s: %s", path, strerror(saved));
		errno = saved;
		return -1;
	}
	*has_pid = false;
	while (fscanf(f, "%d", &p) == 1) {
		n++;
		if (p == pid)
			*has_pid = true;
	}
	fclose(f);
	return n;
}

int cg_nprocs(const char *dir, char *err, size_t errlen)
{
	bool has;

	return count_procs(dir, 0, &has, err, errlen);
}

int cg_holds_only(const char *dir, pid_t pid, char *err, size_t errlen)
{
	bool has;
	int n = count_procs(dir, pid, &has, err, errlen);

	if (n < 0)
		return -1;
	return n == 1 && has;
}

int cg_rmdir(const char *dir, char *err, size_t errlen)
{
	/* Starts short: the drain usually takes well under a millisecond,
	 * and every step's end waits for it. */
	struct timespec pause = {0, 100 * 1000};
	bool has;
	int n;

	/*
	 * A cgroup whose last process just exited can refuse rmdir with EBUSY
	 * for a moment while the kernel drains it; one with processes (or
	 * child cgroups) refuses for good. About a second in all.
	 */
	for (int tries = 0; rmdir(dir); tries++) {
		if (errno == ENOENT)
			return 0;
		if (errno != EBUSY || tries == 60)
			return qd_errf(err, errlen, "rmdir %s: %s", dir,
				       strerror(errno));
		n = count_procs(dir, 0, &has, err, errlen);
		if (n < 0)
			return -1;
		if (n > 0) {
			qd_errf(err, errlen,
				"rmdir %s: still holds %d process%s", dir, n,
				n == 1 ? "" : "es");
			errno = EBUSY;
			return -1;
		}
		nanosleep(&pause, NULL);
		if (pause.tv_nsec < 20 * 1000 * 1000)
			pause.tv_nsec *= 2;
	}
	return 0;
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

static int sweep_dir(const char *dir)
{
	char child[PATH_MAX];
	struct dirent *e;
	int removed = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_type != DT_DIR ||
		    strncmp(e->d_name, QD_CG_PREFIX, strlen(QD_CG_PREFIX)))
			continue;
		if (snprintf(child, sizeof(child), "%s/%s", dir, e->d_name) >=
		    (int)sizeof(child))
			continue;
		/* The kernel refuses (EBUSY) while processes are inside. */
		if (!rmdir(child))
			removed++;
	}
	closedir(d);
	return removed;
}

int qd_cg_sweep(pid_t pid, char *err, size_t errlen)
{
	char dir[PATH_MAX], top[PATH_MAX], why1[512], why2[512];
	int removed = 0, found = 0;

	if (!cg_dir_of(pid, "devices", dir, sizeof(dir), top, sizeof(top), why1,
		       sizeof(why1))) {
		found++;
		removed += sweep_dir(dir);
	}
	if (!cg_dir_of(pid, NULL, dir, sizeof(dir), top, sizeof(top), why2,
		       sizeof(why2))) {
		found++;
		removed += sweep_dir(dir);
	}
	if (!found)
		return qd_errf(err, errlen, "%s; %s", why1, why2);
	return removed;
}
