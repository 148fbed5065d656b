/* SPDX-License-Identifier: GPL-2.0-or-later
 * A node's metrics file, DIR/qosdeny_node_NODE.prom (docs/metrics.md),
 * written by slurmd's own thread (spank_slurmd.c) every metrics_interval:
 * what the node's processes counted in the spool's counts file and in the
 * adoption directory's (node_counts.h), which this makes where they are
 * missing, and what the spool holds now.
 */
#ifndef QD_METRICS_NODE_H
#define QD_METRICS_NODE_H

#include <stddef.h>

/* Returns 0, or -1 with err. */
int qd_node_metrics_write(const char *spool, const char *adopt_dir,
			  const char *dir, const char *node, char *err,
			  size_t errlen);

#endif
