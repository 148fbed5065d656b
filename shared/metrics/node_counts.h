/* SPDX-License-Identifier: GPL-2.0-or-later
 * What a node's processes count for its metrics file (docs/metrics.md),
 * each a process of its own, in a small file named metrics.counts that
 * slurmd's own thread created and reads to write the metrics file:
 * - in the node's spool, the usage records: the job epilogs, slurmd's start
 *   and `qosdeny flush` count there;
 * - in the node's adoption directory (adopt_dir=/NODE, adopt.h), the
 *   confinement: slurmstepd counts the bindings that failed, pam_qosdeny.so
 *   the ssh sessions it confined or refused. Neither knows the spool, which
 *   only slurm.conf names; both know that directory.
 * The file is a fixed array of counters updated in place with atomic adds
 * through a shared mapping: no lock, no rewrite, a few microseconds per
 * event. Root's alone (0600) in a directory only root writes: no job
 * reaches it. Where it does not exist (metrics_dir unset, or slurmd has not
 * started since it was set), an event is not counted, and nothing else
 * changes.
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
	/* In the adoption directory's file: */
	QD_NC_BIND_TASK,      /* tasks not started: their binding failed */
	QD_NC_BIND_EXTERN,    /* extern steps that could not confine */
	QD_NC_SSH_CONFINED,   /* ssh sessions joined to a confinement */
	QD_NC_SSH_UNCONFINED, /* admitted, nothing to confine (cgroup=off,
				 or the job holds every GPU of the node) */
	QD_NC_SSH_REFUSED,    /* ssh sessions refused */
	QD_NC_COUNT
};

struct qd_node_counts {
	uint64_t v[QD_NC_COUNT];
};

/* Makes DIR/metrics.counts, all zero, unless it is there already with
 * this layout (another layout: made again). Returns 0, or -1 with err. */
int qd_node_counts_create(const char *dir, char *err, size_t errlen);

/* Adds n to counter c (sets it, for the gauges) where the file exists;
 * silent otherwise: an event is never held up by its count. */
void qd_node_counts_add(const char *dir, enum qd_node_count c, uint64_t n);

/* The counters. Returns 0, or -1 with err (no such file among them). */
int qd_node_counts_read(const char *dir, struct qd_node_counts *out, char *err,
			size_t errlen);

#endif
