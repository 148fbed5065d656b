/* SPDX-License-Identifier: GPL-2.0-or-later
 * Usage entries in Redis that a reader (redis_usage.h, running_usage.h)
 * skipped because it could not read them: anything reachable from a job
 * may have written them (a Redis without a password), and one bad entry
 * must not stop reporting for the others (docs/gpu-and-usage.md, "What a
 * user can and cannot do to the usage store").
 */
#ifndef QD_USAGE_SKIPPED_H
#define QD_USAGE_SKIPPED_H

#include <stddef.h>

/* Counted, the first one named; the caller says so once. */
struct qd_usage_skipped {
	size_t n;
	char first[512]; /* "KEY: why", cut to fit */
};

/* Counts one skipped entry, naming it when it is the first. */
void qd_usage_skip(struct qd_usage_skipped *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* What `qosdeny share` and the site factor say of s (s->n > 0): "1 usage
 * entry in Redis cannot be read and is left out: KEY: why", or "N usage
 * entries ... are left out (the first: KEY: why)". Returns buf. */
const char *qd_usage_skipped_text(const struct qd_usage_skipped *s, char *buf,
				  size_t len);

#endif
