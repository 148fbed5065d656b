/* SPDX-License-Identifier: GPL-2.0-or-later
 * A node's families (docs/metrics.md), each series labelled with the node:
 * what its processes counted (node_counts.h) and what its spool holds.
 */
#ifndef QD_NODE_TEXT_H
#define QD_NODE_TEXT_H

#include <stdint.h>

#include "node_counts.h"
#include "prom_text.h"

struct qd_node_metrics {
	struct qd_node_counts c;
	uint64_t spool_open;	   /* records of jobs running here */
	uint64_t spool_closed;	   /* ended jobs' records not sent yet */
	uint64_t spool_unread;	   /* record files that could not be read */
	int64_t oldest_closed_end; /* its end, Unix time; 0: none */
	int64_t now;
};

void qd_node_metrics_text(const char *node, const struct qd_node_metrics *m,
			  struct qd_prom *out);

#endif
