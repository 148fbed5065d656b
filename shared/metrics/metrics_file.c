/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "metrics_file.h"

/* The step that failed, as the error says it: the temporary file's name
 * left out, as it differs at every write and a failure is said once
 * (qd_metrics_say). */
static const char *step_name(enum qd_atomic_step step)
{
	switch (step) {
	case QD_ATOMIC_CREATE:
		return "create";
	case QD_ATOMIC_WRITE:
		return "write";
	case QD_ATOMIC_SYNC:
		return "fsync";
	case QD_ATOMIC_CLOSE:
		return "close";
	case QD_ATOMIC_RENAME:
		return "rename";
	case QD_ATOMIC_SYNC_DIR:
	case QD_ATOMIC_DONE:
		break;
	}
	return "write";
}

/* A temporary file of name's older than this was left by a writer that
 * died before its rename (a write takes milliseconds). */
#define ABANDONED_S 60

/*
 * Removes the temporary files of name's (".NAME.XXXXXX") that writers
 * killed mid-write left in the directory, which would otherwise pile up
 * there with every crash. Recent ones may be another writer's, at work:
 * left alone.
 */
static void sweep_abandoned(int dfd, const char *name)
{
	size_t n = strlen(name);
	time_t now = time(NULL);
	struct dirent *e;
	struct stat st;
	int fd = dup(dfd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] != '.' || strncmp(e->d_name + 1, name, n) ||
		    e->d_name[n + 1] != '.' || strlen(e->d_name) != n + 8)
			continue;
		if (!fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode) && st.st_mtime + ABANDONED_S < now)
			unlinkat(dfd, e->d_name, 0);
	}
	closedir(d);
}

int qd_metrics_write(const char *dir, const char *name,
		     const struct qd_prom *text, char *err, size_t errlen)
{
	char tmp[256], why[512];
	struct qd_atomic_file f = {
	    .name = name,
	    .tmp = tmp,
	    .flags = QD_ATOMIC_WORLD_READABLE,
	};
	int rv;

	if (text->oom) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* A dot first: node_exporter reads *.prom files alone. */
	if ((size_t)snprintf(tmp, sizeof(tmp), ".%s.XXXXXX", name) >=
	    sizeof(tmp)) {
		snprintf(err, errlen, "file name too long: %s", name);
		return -1;
	}
	f.dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f.dfd < 0) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	sweep_abandoned(f.dfd, name);
	rv = qd_atomic_write(&f, text->text ? text->text : "", text->len, why,
			     sizeof(why));
	if (rv)
		snprintf(err, errlen, "%s %s: %s", step_name(f.failed), name,
			 strerror(errno));
	close(f.dfd);
	return rv;
}

int64_t qd_metrics_due(int64_t *last_ms, int64_t now_ms, unsigned interval_s)
{
	int64_t due =
	    *last_ms < 0 ? now_ms : *last_ms + (int64_t)interval_s * 1000;

	if (now_ms < due)
		return due - now_ms;
	*last_ms = now_ms;
	return 0;
}

enum qd_metrics_say qd_metrics_say(struct qd_metrics_said *s, const char *err)
{
	enum qd_metrics_say say = QD_METRICS_SAY_NOTHING;

	if (strcmp(err, s->last))
		say = *err ? QD_METRICS_SAY_FAILED : QD_METRICS_SAY_WRITTEN;
	snprintf(s->last, sizeof(s->last), "%s", err);
	return say;
}
