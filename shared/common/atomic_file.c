/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "write_all.h"

#define UNIQUE	     "XXXXXX"
#define UNIQUE_LEN   6
#define UNIQUE_TRIES 100
#define TMP_MODE     0600
#define TMP_FLAGS    (O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC)

/* Random bits for a name; the clock's when getrandom has none yet (early
 * boot), which O_EXCL and the retries make good enough. */
static uint64_t name_bits(unsigned attempt)
{
	struct timespec ts;
	uint64_t v;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) == (ssize_t)sizeof(v))
		return v;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
	       ((uint64_t)getpid() << 40) ^ attempt * 0x9e3779b97f4a7c15ull;
}

/*
 * mkostemp(3) relative to dfd, which glibc has no call for: the name's last
 * six characters made letters and digits until one is free. Two writers in
 * one process (job_submit and the site factor both keep the policy, each
 * with its own copy of this code) cannot share a counter, hence chance.
 */
static int create_unique(int dfd, char *tmp)
{
	static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				      "abcdefghijklmnopqrstuvwxyz0123456789";
	char *x = tmp + strlen(tmp) - UNIQUE_LEN;
	int fd = -1;

	for (unsigned i = 0; fd < 0 && i < UNIQUE_TRIES; i++) {
		uint64_t v = name_bits(i);

		for (int k = 0; k < UNIQUE_LEN; k++, v /= sizeof(letters) - 1)
			x[k] = letters[v % (sizeof(letters) - 1)];
		fd = openat(dfd, tmp, TMP_FLAGS | O_EXCL, TMP_MODE);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	return fd;
}

static int create_tmp(const struct qd_atomic_file *f)
{
	size_t len = strlen(f->tmp);

	if (len >= UNIQUE_LEN && !strcmp(f->tmp + len - UNIQUE_LEN, UNIQUE))
		return create_unique(f->dfd, f->tmp);
	return openat(f->dfd, f->tmp,
		      TMP_FLAGS |
			  (f->flags & QD_ATOMIC_REUSE_TMP ? O_TRUNC : O_EXCL),
		      TMP_MODE);
}

/* -1 with err and f->failed set, errno kept for the caller's own words. */
static int fail(struct qd_atomic_file *f, enum qd_atomic_step step, char *err,
		size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int fail(struct qd_atomic_file *f, enum qd_atomic_step step, char *err,
		size_t errlen, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	f->failed = step;
	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	errno = saved;
	return -1;
}

static int write_tmp(struct qd_atomic_file *f, const char *text, size_t len,
		     char *err, size_t errlen)
{
	int fd = create_tmp(f), saved;

	if (fd < 0)
		return fail(f, QD_ATOMIC_CREATE, err, errlen, "create %s: %s",
			    f->tmp, strerror(errno));
	if ((f->flags & QD_ATOMIC_WORLD_READABLE) && fchmod(fd, 0644)) {
		fail(f, QD_ATOMIC_CREATE, err, errlen, "chmod %s: %s", f->tmp,
		     strerror(errno));
		goto fail;
	}
	if (qd_write_all(fd, text, len)) {
		fail(f, QD_ATOMIC_WRITE, err, errlen, "write %s: %s", f->tmp,
		     strerror(errno));
		goto fail;
	}
	if ((f->flags & QD_ATOMIC_FSYNC_FILE) && fsync(fd)) {
		fail(f, QD_ATOMIC_SYNC, err, errlen, "fsync %s: %s", f->tmp,
		     strerror(errno));
		goto fail;
	}
	/* close can report a write that failed late (NFS): checked. */
	if (close(fd))
		return fail(f, QD_ATOMIC_CLOSE, err, errlen, "close %s: %s",
			    f->tmp, strerror(errno));
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int qd_atomic_write(struct qd_atomic_file *f, const char *text, size_t len,
		    char *err, size_t errlen)
{
	int saved;

	f->failed = QD_ATOMIC_DONE;
	if (write_tmp(f, text, len, err, errlen)) {
		if (f->failed == QD_ATOMIC_CREATE)
			return -1;
		goto fail;
	}
	if (renameat(f->dfd, f->tmp, f->dfd, f->name)) {
		fail(f, QD_ATOMIC_RENAME, err, errlen, "rename %s to %s: %s",
		     f->tmp, f->name, strerror(errno));
		goto fail;
	}
	if ((f->flags & QD_ATOMIC_FSYNC_DIR) && fsync(f->dfd)) {
		fail(f, QD_ATOMIC_SYNC_DIR, err, errlen, "fsync: %s",
		     strerror(errno));
		goto fail;
	}
	return 0;
fail:
	/* After a failed directory fsync the name is gone already: ENOENT,
	 * which is fine. */
	saved = errno;
	unlinkat(f->dfd, f->tmp, 0);
	errno = saved;
	return -1;
}
