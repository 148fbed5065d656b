/* SPDX-License-Identifier: GPL-2.0-or-later
 * What a node's processes count for its metrics file (docs/metrics.md):
 * the job epilogs, slurmd's start and `qosdeny flush` (usage records),
 * each a process of its own, add to one small file in the node's spool,
 * SPOOL/metrics.counts, which slurmd's own thread created and reads to write
 * the metrics file. The file is a fixed array of counters updated in place with
 * atomic adds through a shared mapping: no lock, no rewrite, a few microseconds
 * per event. Root's alone (0600) in a spool only root writes (spool.h): no job
 * reaches it. Where it does not exist (metrics_dir unset, or slurmd has not
 * started since it was set), an event is not counted, and nothing else changes.
 */
#ifndef QD_NODE_COUNTS_H
#define QD_NODE_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#define QD_NODE_COUNTS_FILE "metrics.counts"

enum qd_node_count {
	QD_NC_SENT,	/* usage records Redis counted */
	QD_NC_SPOOLED,	/* job ends whose record stayed in the spool */
	QD_NC_FAILED,	/* job ends with no record (logged) */
	QD_NC_REDIS_US, /* the last Redis exchange's round trip, us: a
			   gauge, set rather than added */
	QD_NC_REDIS_AT, /* when it was measured, Unix time */
	QD_NC_COUNT
};

struct qd_node_counts {
	uint64_t v[QD_NC_COUNT];
};

/* Makes SPOOL/metrics.counts, all zero, unless it is there already with
 * this layout (another layout: made again). Returns 0, or -1 with err. */
int qd_node_counts_create(const char *spool, char *err, size_t errlen);

/* Adds n to counter c (sets it, for the gauges) where the file exists;
 * silent otherwise: an event is never held up by its count. */
void qd_node_counts_add(const char *spool, enum qd_node_count c, uint64_t n);

/* The counters. Returns 0, or -1 with err (no such file among them). */
int qd_node_counts_read(const char *spool, struct qd_node_counts *out,
			char *err, size_t errlen);

#endif
