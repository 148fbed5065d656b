/* SPDX-License-Identifier: GPL-2.0-or-later
 * The usage spool. Every operation works relative to one directory file
 * descriptor, checked once for ownership and mode, so a directory swapped
 * underneath cannot redirect the writes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "spool.h"
#include "write_all.h"

#define SUFFIX	     ".rec"
#define BAD_SUFFIX   ".bad"
#define ASIDE_SUFFIX ".expired"
#define TMP_PREFIX   ".tmp."
#define TMP_STALE_S  3600
#define NAME_LEN_MAX 256

/* Decode failures are told apart from I/O errors: only they quarantine. */
#define READ_UNDECODABLE -2
/* Listed, then removed: another job start or end on this node sent it. */
#define READ_GONE -3

static int fail(char *err, size_t errlen, const char *dir, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, const char *dir, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "spool %s: ", dir);

	if (n >= 0 && (size_t)n < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int record_name(const struct qd_usage_record *r, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s:%" PRIu32 ":%s:%" PRId64 SUFFIX,
			 r->cluster, r->job_id, r->node, r->start);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t len = strlen(name), slen = strlen(suffix);

	return name[0] != '.' && len > slen && !strchr(name, '/') &&
	       !strcmp(name + len - slen, suffix);
}

static bool is_record_name(const char *name)
{
	return has_suffix(name, SUFFIX);
}

bool qd_spool_name_is_jobs(const char *name, const struct qd_usage_record *job)
{
	char prefix[NAME_LEN_MAX];
	int n =
	    snprintf(prefix, sizeof(prefix), "%s:%" PRIu32 ":%s:", job->cluster,
		     job->job_id, job->node);

	return n > 0 && (size_t)n < sizeof(prefix) &&
	       !strncmp(name, prefix, (size_t)n);
}

int64_t qd_spool_name_start(const char *name)
{
	const char *colon = strrchr(name, ':');

	return colon ? strtoll(colon + 1, NULL, 10) : 0;
}

/* Refuses a directory others could write records into. */
static int check_dir(int dfd, const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(dfd, &st))
		return fail(err, errlen, dir, "stat: %s", strerror(errno));
	if (st.st_uid != geteuid())
		return fail(err, errlen, dir,
			    "owned by uid %u, not by uid %u: refused",
			    (unsigned)st.st_uid, (unsigned)geteuid());
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return fail(err, errlen, dir,
			    "writable by group or others (mode %04o): refused",
			    (unsigned)(st.st_mode & 07777));
	return 0;
}

/* The directory, opened and checked; create: make it (0700) if missing. */
static int open_dir(const char *dir, bool create, char *err, size_t errlen)
{
	int dfd;

	if (create && mkdir(dir, 0700) && errno != EEXIST)
		return fail(err, errlen, dir, "mkdir: %s", strerror(errno));
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return fail(err, errlen, dir, "open: %s", strerror(errno));
	if (check_dir(dfd, dir, err, errlen)) {
		close(dfd);
		return -1;
	}
	return dfd;
}

/* r's text (QD_RECORD_MAX) and file name (NAME_LEN_MAX): the text's
 * length, or -1 with err. */
static int encode(const char *dir, const struct qd_usage_record *r, char *text,
		  char *name, char *err, size_t errlen)
{
	char rec_err[QD_RECORD_ERR_MAX];
	int n = qd_usage_record_encode(r, text, QD_RECORD_MAX, rec_err,
				       sizeof(rec_err));

	if (n < 0)
		return fail(err, errlen, dir, "%s", rec_err);
	if (record_name(r, name, NAME_LEN_MAX))
		return fail(err, errlen, dir, "record name too long");
	return n;
}

static int write_at(int dfd, const char *dir, const struct qd_usage_record *r,
		    bool durable_name, char *err, size_t errlen)
{
	static unsigned counter;
	char name[NAME_LEN_MAX], tmp[NAME_LEN_MAX + 64], text[QD_RECORD_MAX];
	char why[sizeof(tmp) + NAME_LEN_MAX + 128];
	/* The data always fsync'd, or a crash could leave an empty record
	 * under the final name; the directory only for a record that must
	 * outlive a crash by itself: the open one, not the closed one about
	 * to be sent (docs/gpu-and-usage.md "Usage reporting"). */
	struct qd_atomic_file f = {
	    .dfd = dfd,
	    .name = name,
	    .tmp = tmp,
	    .flags =
		QD_ATOMIC_FSYNC_FILE | (durable_name ? QD_ATOMIC_FSYNC_DIR : 0),
	};
	int n = encode(dir, r, text, name, err, errlen);

	if (n < 0)
		return -1;
	/* Unique per process and call: concurrent writers of the same record
	 * (prolog retry, flush) never share a temp file. */
	snprintf(tmp, sizeof(tmp), TMP_PREFIX "%s.%ld.%u", name, (long)getpid(),
		 __atomic_fetch_add(&counter, 1, 0));
	if (qd_atomic_write(&f, text, n, why, sizeof(why)))
		return fail(err, errlen, dir, "%s", why);
	return 0;
}

static int write_record(const char *dir, const struct qd_usage_record *r,
			bool durable_name, char *err, size_t errlen)
{
	int dfd = open_dir(dir, true, err, errlen);
	int rv;

	if (dfd < 0)
		return -1;
	rv = write_at(dfd, dir, r, durable_name, err, errlen);
	close(dfd);
	return rv;
}

int qd_spool_write(const char *dir, const struct qd_usage_record *r, char *err,
		   size_t errlen)
{
	return write_record(dir, r, true, err, errlen);
}

int qd_spool_stage(const char *dir, const struct qd_usage_record *r, char *err,
		   size_t errlen)
{
	return write_record(dir, r, false, err, errlen);
}

int qd_spool_overwrite(const char *dir, const struct qd_usage_record *r,
		       char *err, size_t errlen)
{
	char name[NAME_LEN_MAX], text[QD_RECORD_MAX];
	int dfd, fd = -1, rv = -1, n = encode(dir, r, text, name, err, errlen);

	if (n < 0)
		return -1;
	dfd = open_dir(dir, false, err, errlen);
	if (dfd < 0)
		return -1;
	fd = openat(dfd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		fail(err, errlen, dir, "open %s: %s", name, strerror(errno));
		goto fail;
	}
	if (qd_write_all(fd, text, n) || ftruncate(fd, n) || fsync(fd)) {
		fail(err, errlen, dir, "overwrite %s: %s", name,
		     strerror(errno));
		goto fail;
	}
	rv = 0;
fail:
	if (fd >= 0 && close(fd) && !rv)
		rv = fail(err, errlen, dir, "close %s: %s", name,
			  strerror(errno));
	close(dfd);
	return rv;
}

int qd_spool_sync(const char *dir, char *err, size_t errlen)
{
	int dfd = open_dir(dir, false, err, errlen);
	int rv = 0;

	if (dfd < 0)
		return -1;
	if (fsync(dfd))
		rv = fail(err, errlen, dir, "fsync: %s", strerror(errno));
	close(dfd);
	return rv;
}

/* No fsync (spool.h): a removal that a crash undoes brings back a record
 * Redis has counted, which is sent again and found counted. */
static int remove_at(int dfd, const char *dir, const char *name, char *err,
		     size_t errlen)
{
	if (unlinkat(dfd, name, 0) && errno != ENOENT)
		return fail(err, errlen, dir, "remove %s: %s", name,
			    strerror(errno));
	return 0;
}

int qd_spool_remove(const char *dir, const struct qd_usage_record *r, char *err,
		    size_t errlen)
{
	char name[NAME_LEN_MAX];
	int dfd, rv = -1;

	if (record_name(r, name, sizeof(name)))
		return fail(err, errlen, dir, "record name too long");
	dfd = open_dir(dir, false, err, errlen);
	if (dfd < 0)
		return -1;
	rv = remove_at(dfd, dir, name, err, errlen);
	close(dfd);
	return rv;
}

static int read_at(int dfd, const char *dir, const char *name,
		   struct qd_usage_record *r, char *err, size_t errlen)
{
	char buf[QD_RECORD_MAX + 1], rec_err[QD_RECORD_ERR_MAX];
	struct stat st;
	size_t len = 0;
	int fd, rv = -1;

	if (!is_record_name(name))
		return fail(err, errlen, dir, "%s: not a record file name",
			    name);
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		rv = errno == ENOENT ? READ_GONE : -1;
		fail(err, errlen, dir, "open %s: %s", name, strerror(errno));
		return rv;
	}
	if (fstat(fd, &st)) {
		fail(err, errlen, dir, "stat %s: %s", name, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		fail(err, errlen, dir, "%s: not a regular file of uid %u", name,
		     (unsigned)geteuid());
		goto fail;
	}
	/* One byte more than a record may have, to see a file too long. */
	while (len < sizeof(buf)) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fail(err, errlen, dir, "read %s: %s", name,
			     strerror(errno));
			goto fail;
		}
		if (!n)
			break;
		len += n;
	}
	if (qd_usage_record_decode(buf, len, r, rec_err, sizeof(rec_err))) {
		fail(err, errlen, dir, "%s: %s", name, rec_err);
		rv = READ_UNDECODABLE;
		goto fail;
	}
	rv = 0;
fail:
	close(fd);
	return rv;
}

int qd_spool_read(const char *dir, const char *name, struct qd_usage_record *r,
		  char *err, size_t errlen)
{
	int dfd = open_dir(dir, false, err, errlen);
	int rv;

	if (dfd < 0)
		return -1;
	rv = read_at(dfd, dir, name, r, err, errlen) ? -1 : 0;
	close(dfd);
	return rv;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void qd_spool_list_free(struct qd_spool_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	memset(l, 0, sizeof(*l));
}

/* Lists dfd's record files; removes stale temp files on the way. */
/* The names in dir that end in suffix (SUFFIX: the records), sorted;
 * stale temp files are removed on the way. */
static int list_at(int dfd, const char *dir, const char *suffix,
		   struct qd_spool_list *l, char *err, size_t errlen)
{
	size_t cap = 0;
	struct dirent *de;
	time_t now = time(NULL);
	int fd = dup(dfd), rv = -1;
	DIR *d;

	memset(l, 0, sizeof(*l));
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		fail(err, errlen, dir, "opendir: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rewinddir(d);
	while ((errno = 0, de = readdir(d))) {
		struct stat st;

		if (!strncmp(de->d_name, TMP_PREFIX, strlen(TMP_PREFIX))) {
			if (!fstatat(dfd, de->d_name, &st,
				     AT_SYMLINK_NOFOLLOW) &&
			    st.st_mtime + TMP_STALE_S < now)
				unlinkat(dfd, de->d_name, 0);
			continue;
		}
		if (has_suffix(de->d_name, SUFFIX ASIDE_SUFFIX))
			l->n_aside++;
		if (!has_suffix(de->d_name, suffix))
			continue;
		if (l->n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			char **v = reallocarray(l->names, ncap, sizeof(*v));

			if (!v)
				goto oom;
			l->names = v;
			cap = ncap;
		}
		l->names[l->n] = strdup(de->d_name);
		if (!l->names[l->n])
			goto oom;
		l->n++;
	}
	if (errno) {
		fail(err, errlen, dir, "readdir: %s", strerror(errno));
		goto fail;
	}
	if (l->n)
		qsort(l->names, l->n, sizeof(*l->names), name_cmp);
	rv = 0;
	goto fail;
oom:
	fail(err, errlen, dir, "out of memory");
fail:
	closedir(d);
	if (rv)
		qd_spool_list_free(l);
	return rv;
}

static int list_in(const char *dir, const char *suffix, struct qd_spool_list *l,
		   char *err, size_t errlen)
{
	struct stat st;
	int dfd, rv;

	memset(l, 0, sizeof(*l));
	/* No spool yet: nothing was ever spooled here. */
	if (stat(dir, &st) && errno == ENOENT)
		return 0;
	dfd = open_dir(dir, false, err, errlen);
	if (dfd < 0)
		return -1;
	rv = list_at(dfd, dir, suffix, l, err, errlen);
	close(dfd);
	return rv;
}

int qd_spool_list(const char *dir, struct qd_spool_list *l, char *err,
		  size_t errlen)
{
	return list_in(dir, SUFFIX, l, err, errlen);
}

int qd_spool_list_aside(const char *dir, struct qd_spool_list *l, char *err,
			size_t errlen)
{
	return list_in(dir, SUFFIX ASIDE_SUFFIX, l, err, errlen);
}

/* Renames name to name + suffix, durably, where an administrator can look
 * at it; reports a failure. Returns 0 or -1. */
static int move_aside(int dfd, const char *dir, const char *name,
		      const char *suffix, qd_spool_report_fn report, void *arg)
{
	char to[NAME_LEN_MAX + 16], err[QD_SPOOL_ERR_MAX];

	snprintf(to, sizeof(to), "%s%s", name, suffix);
	if (renameat(dfd, name, dfd, to) || fsync(dfd)) {
		fail(err, sizeof(err), dir, "rename %s to %s: %s", name, to,
		     strerror(errno));
		report(err, arg);
		return -1;
	}
	return 0;
}

/*
 * A closed record older than Redis keeps its id (QD_SPOOL_REPLAY_MAX_S): it
 * may have been counted already, and sent now it would count again. Moved
 * aside, said once, and left to an administrator (docs/troubleshooting.md).
 */
static int set_aside(int dfd, const char *dir, const char *name,
		     const struct qd_usage_record *r, int64_t now,
		     qd_spool_report_fn report, void *arg)
{
	char err[QD_SPOOL_ERR_MAX];

	if (move_aside(dfd, dir, name, ASIDE_SUFFIX, report, arg))
		return -1;
	fail(err, sizeof(err), dir,
	     "%s: ended %" PRId64 " days ago, longer than Redis keeps a "
	     "record's id (%d days): it may have been counted already, so it "
	     "is not sent but set aside as %s" ASIDE_SUFFIX,
	     name, (now - r->end) / 86400, QD_SPOOL_ID_DAYS, name);
	report(err, arg);
	return 0;
}

int qd_spool_replay(const char *dir, int64_t now, qd_spool_send_fn send,
		    void *send_arg, qd_spool_report_fn report, void *report_arg,
		    struct qd_spool_stats *st)
{
	struct qd_spool_list l = {0};
	char err[QD_SPOOL_ERR_MAX], send_err[QD_SPOOL_ERR_MAX];
	bool stopped = false;
	int dfd = -1, rv = -1;
	struct stat sb;

	memset(st, 0, sizeof(*st));
	if (stat(dir, &sb) && errno == ENOENT)
		return 0;
	dfd = open_dir(dir, false, err, sizeof(err));
	if (dfd < 0 || list_at(dfd, dir, SUFFIX, &l, err, sizeof(err))) {
		report(err, report_arg);
		goto fail;
	}
	for (size_t i = 0; i < l.n; i++) {
		struct qd_usage_record r;
		int k = read_at(dfd, dir, l.names[i], &r, err, sizeof(err));

		/* Two job starts or ends here replay at once: what the other
		 * sent and removed is no problem of this one. */
		if (k == READ_GONE)
			continue;
		if (k) {
			report(err, report_arg);
			/* Undecodable: kept where an administrator can look
			 * at it, neither lost nor retried forever. */
			if (k == READ_UNDECODABLE) {
				move_aside(dfd, dir, l.names[i], BAD_SUFFIX,
					   report, report_arg);
				st->bad++;
			} else {
				st->left++;
			}
			continue;
		}
		if (qd_usage_record_is_open(&r)) {
			st->open++;
			continue;
		}
		if (now - r.end > QD_SPOOL_REPLAY_MAX_S) {
			if (set_aside(dfd, dir, l.names[i], &r, now, report,
				      report_arg))
				st->left++; /* reported; still not sent */
			else
				st->aside++;
			continue;
		}
		if (stopped) {
			st->left++;
			continue;
		}
		k = send(&r, send_arg, send_err, sizeof(send_err));
		if (k < 0) {
			fail(err, sizeof(err), dir, "%s: not sent: %s",
			     l.names[i], send_err);
			report(err, report_arg);
			st->left++;
			stopped = k != QD_SPOOL_REFUSED;
			continue;
		}
		if (k)
			st->sent++;
		else
			st->already++;
		/* Counted either way; a file that stays is sent again and
		 * found already counted. */
		if (remove_at(dfd, dir, l.names[i], err, sizeof(err)))
			report(err, report_arg);
	}
	st->aside += l.n_aside;
	rv = st->left || st->bad || st->aside ? -1 : 0;
fail:
	qd_spool_list_free(&l);
	if (dfd >= 0)
		close(dfd);
	return rv;
}
