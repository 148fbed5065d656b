/* SPDX-License-Identifier: GPL-2.0-or-later
 * The cgroup file primitives; see cgroup_file.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup_file.h"
#include "errmsg.h"

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

int cg_sweep_dir(const char *dir, const char *prefix)
{
	char child[PATH_MAX];
	struct dirent *e;
	int removed = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_type != DT_DIR ||
		    strncmp(e->d_name, prefix, strlen(prefix)))
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
