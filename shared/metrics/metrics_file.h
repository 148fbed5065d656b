/* SPDX-License-Identifier: GPL-2.0-or-later
 * A metrics file written whole (atomic_file.h) into metrics_dir, mode 0644
 * for node_exporter's user, no fsync (the next interval writes it again),
 * and what its writer has said of the last failures: each failure is
 * logged once, and the first success after one (docs/metrics.md).
 */
#ifndef QD_METRICS_FILE_H
#define QD_METRICS_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "prom_text.h"

/* The files' names in metrics_dir: slurmctld's, and each slurmd's
 * (QD_METRICS_NODE_PREFIX NODE QD_METRICS_SUFFIX). */
#define QD_METRICS_CTLD_FILE   "qosdeny_ctld.prom"
#define QD_METRICS_NODE_PREFIX "qosdeny_node_"
#define QD_METRICS_SUFFIX      ".prom"

/* For a writer that last wrote at *last_ms (CLOCK_MONOTONIC; -1: never)
 * and writes every interval_s: 0 when a write is due at now_ms, which is
 * then taken as the last write, else the ms until it is. */
int64_t qd_metrics_due(int64_t *last_ms, int64_t now_ms, unsigned interval_s);

/* DIR/NAME replaced by text (a temporary file, then rename); temporary
 * files of NAME's a killed writer left, a minute old or more, removed.
 * Returns 0, or -1 with err. */
int qd_metrics_write(const char *dir, const char *name,
		     const struct qd_prom *text, char *err, size_t errlen);

/* The last failure said, "" after a success. Start zeroed. */
struct qd_metrics_said {
	char last[256];
};

enum qd_metrics_say {
	QD_METRICS_SAY_NOTHING, /* as the last time */
	QD_METRICS_SAY_FAILED,	/* a failure other than the last one */
	QD_METRICS_SAY_WRITTEN, /* a success after a failure */
};

/* What to log after a write whose error was err ("" when it succeeded). */
enum qd_metrics_say qd_metrics_say(struct qd_metrics_said *s, const char *err);

#endif
