/* SPDX-License-Identifier: GPL-2.0-or-later
 * Prometheus's text exposition format, version 0.0.4: what node_exporter's
 * textfile collector reads (docs/metrics.md). A family is its HELP and TYPE
 * lines, then its samples; in 0.0.4 a counter's TYPE line names the metric
 * as its samples do, "_total" included, and the text has no "# EOF".
 */
#ifndef QD_PROM_TEXT_H
#define QD_PROM_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Text grown as it is written; oom set when an allocation failed, after
 * which nothing more is added. Start from a zeroed struct. */
struct qd_prom {
	char *text;
	size_t len, cap;
	bool oom;
};

/* "# HELP name help" and "# TYPE name type" (counter, gauge). */
void qd_prom_family(struct qd_prom *p, const char *name, const char *type,
		    const char *help);

/*
 * One sample: name{k1="v1",...} value. labels holds key, value pairs and
 * ends with a NULL key; a pair whose value is NULL is left out. Values are
 * escaped as the format asks (backslash, double quote, newline) and kept
 * as UTF-8; a control character or a byte that is no part of valid UTF-8
 * becomes '?', so that no name can make the text unreadable.
 */
void qd_prom_u64(struct qd_prom *p, const char *name, const char *const *labels,
		 uint64_t value);
void qd_prom_double(struct qd_prom *p, const char *name,
		    const char *const *labels, double value);

/* The length of the valid UTF-8 character at s (n bytes there), 1 to 4,
 * else 0. */
size_t qd_prom_utf8_len(const char *s, size_t n);

/* A line as it is, len bytes, and a newline. */
void qd_prom_line(struct qd_prom *p, const char *line, size_t len);

void qd_prom_free(struct qd_prom *p);

#endif
