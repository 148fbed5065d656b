/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "textfile.h"

char *qd_policy_read(const char *path, char *err, size_t errlen)
{
	size_t len;
	char *text = qd_read_file(path, &len, err, errlen);

	/* The parser would silently stop at a NUL and miss what follows. */
	if (text && memchr(text, '\0', len)) {
		snprintf(err, errlen, "%s: not a text file (NUL byte)", path);
		free(text);
		text = NULL;
	}
	return text;
}

struct qd_policy *qd_policy_load(const char *path, char *err, size_t errlen)
{
	char *text = qd_policy_read(path, err, errlen);
	struct qd_policy *rv =
	    text ? qd_policy_parse(path, text, err, errlen) : NULL;

	free(text);
	return rv;
}

static bool same_file(const struct qd_policy_file *f, const struct stat *st)
{
	return f->dev == st->st_dev && f->ino == st->st_ino &&
	       f->size == st->st_size &&
	       f->mtime.tv_sec == st->st_mtim.tv_sec &&
	       f->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static void remember(struct qd_policy_file *f, const struct stat *st)
{
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->size = st->st_size;
	f->mtime = st->st_mtim;
}

/*
 * The signature is recorded even when loading fails, so a broken or missing
 * file is parsed and reported once, not on every submission (or every
 * refresh of the site factor, which runs without a file), until it changes
 * again. A missing file has the all-zero signature.
 */
enum qd_refresh qd_policy_file_changed(struct qd_policy_file *f,
				       struct qd_policy **p, char **text,
				       char *err, size_t errlen)
{
	struct stat st;
	int stat_errno = stat(f->path, &st) ? errno : 0;

	if (stat_errno)
		memset(&st, 0, sizeof(st));
	if (f->read && same_file(f, &st))
		return QD_REFRESH_SAME;
	remember(f, &st);
	f->read = true;
	if (stat_errno) {
		snprintf(err, errlen, "%s: %s", f->path, strerror(stat_errno));
		return QD_REFRESH_FAILED;
	}
	*text = qd_policy_read(f->path, err, errlen);
	*p = *text ? qd_policy_parse(f->path, *text, err, errlen) : NULL;
	if (!*p) {
		free(*text);
		*text = NULL;
		return QD_REFRESH_FAILED;
	}
	return QD_REFRESH_RELOADED;
}

enum qd_refresh qd_policy_file_refresh(struct qd_policy_file *f, char *err,
				       size_t errlen)
{
	struct qd_policy *p;
	char *text;
	enum qd_refresh rv = qd_policy_file_changed(f, &p, &text, err, errlen);

	if (rv == QD_REFRESH_RELOADED)
		qd_policy_file_set(f, p, text);
	return rv;
}

void qd_policy_file_set(struct qd_policy_file *f, struct qd_policy *p,
			char *text)
{
	qd_policy_free(f->current);
	free(f->text);
	f->current = p;
	f->text = text;
}

/* A plugin's fini: its next init (slurmctld may unload and load it again)
 * reads the file anew, as a start. */
void qd_policy_file_release(struct qd_policy_file *f)
{
	qd_policy_file_set(f, NULL, NULL);
	f->read = false;
}
