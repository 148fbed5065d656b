/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "errmsg.h"
#include "policy_keep.h"

#define SOURCE_TAG   "# Source: "
#define ACCEPTED_TAG "# Accepted: "
/* mkostemp's six characters after QD_KEPT_NAME "." */
#define TMP_SUFFIX_LEN 6
/* A temporary copy older than this was left by a slurmctld that died while
 * writing it; a younger one may be another thread's write in progress
 * (job_submit and the site factor both keep the policy). */
#define STALE_TMP_S 600

static void format_when(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf, len, "%lld", (long long)t);
}

/* Removes the temporary copies a crash left in dir, so that they do not pile
 * up in StateSaveLocation over the years; best effort. */
static void sweep_stale(const char *dir, time_t now)
{
	DIR *d = opendir(dir);
	size_t plen = strlen(QD_KEPT_NAME);
	struct dirent *e;
	struct stat st;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, QD_KEPT_NAME ".", plen + 1) ||
		    strlen(e->d_name) != plen + 1 + TMP_SUFFIX_LEN)
			continue;
		if (!fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode) && st.st_mtime < now - STALE_TMP_S)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

int qd_policy_keep(const char *dir, const char *source, const char *text,
		   time_t accepted, char *err, size_t errlen)
{
	char path[PATH_MAX], tmp[] = QD_KEPT_NAME ".XXXXXX", *copy = NULL;
	/* Whole and durable: a start after a crash runs on what it finds. */
	struct qd_atomic_file f = {
	    .name = QD_KEPT_NAME,
	    .tmp = tmp,
	    .flags = QD_ATOMIC_FSYNC_FILE | QD_ATOMIC_FSYNC_DIR,
	};
	int len, rv;

	snprintf(path, sizeof(path), "%s/%s", dir, QD_KEPT_NAME);
	len = asprintf(&copy,
		       "# qosdeny: the last qosdeny.conf slurmctld accepted, "
		       "run on when that file\n# cannot be read or parsed at "
		       "slurmctld's start (qosdeny.conf(5)).\n" SOURCE_TAG
		       "%s\n" ACCEPTED_TAG "%lld\n%s",
		       source, (long long)accepted, text);
	if (len < 0)
		return qd_errf(err, errlen, "%s: out of memory", path);
	f.dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rv = f.dfd < 0 ? -1 : qd_atomic_write(&f, copy, len, NULL, 0);
	/* The temporary file named while it was being made, the copy after. */
	if (rv)
		qd_errf(err, errlen, "%s/%s: %s", dir,
			f.dfd < 0 || f.failed == QD_ATOMIC_CREATE
			    ? tmp
			    : QD_KEPT_NAME,
			strerror(errno));
	if (f.dfd >= 0)
		close(f.dfd);
	free(copy);
	if (!rv)
		sweep_stale(dir, time(NULL));
	return rv;
}

/* The header's value for tag, up to the end of its line, or NULL. */
static const char *header_value(const char *text, const char *tag, char *buf,
				size_t len)
{
	const char *p = strstr(text, tag), *end;

	if (!p || (p != text && p[-1] != '\n'))
		return NULL;
	p += strlen(tag);
	end = strchrnul(p, '\n');
	snprintf(buf, len, "%.*s", (int)(end - p), p);
	return buf;
}

static int read_header(const char *text, struct qd_kept *kept, char *err,
		       size_t errlen)
{
	char accepted[32], *end = accepted;

	if (header_value(text, SOURCE_TAG, kept->source,
			 sizeof(kept->source)) &&
	    header_value(text, ACCEPTED_TAG, accepted, sizeof(accepted)))
		kept->accepted = strtoll(accepted, &end, 10);
	if (end == accepted || *end)
		return qd_errf(err, errlen, "%s: not a copy qosdeny wrote",
			       kept->path);
	format_when(kept->accepted, kept->when, sizeof(kept->when));
	return 0;
}

struct qd_policy *qd_policy_kept(const char *dir, struct qd_kept *kept,
				 char *err, size_t errlen)
{
	struct qd_policy *p = NULL;
	struct stat st;
	char *text;

	memset(kept, 0, sizeof(*kept));
	snprintf(kept->path, sizeof(kept->path), "%s/%s", dir, QD_KEPT_NAME);
	if (stat(kept->path, &st)) {
		kept->exists = errno != ENOENT;
		qd_errf(err, errlen, "%s: %s", kept->path, strerror(errno));
		return NULL;
	}
	kept->exists = true;
	text = qd_policy_read(kept->path, err, errlen);
	if (text && !read_header(text, kept, err, errlen))
		p = qd_policy_parse(kept->path, text, err, errlen);
	free(text);
	return p;
}
