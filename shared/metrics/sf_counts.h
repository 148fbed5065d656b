/* SPDX-License-Identifier: GPL-2.0-or-later
 * What site_factor/qosdeny counts for the metrics file (docs/metrics.md):
 * its refreshes, their time and failures, and the jobs whose factor it set.
 */
#ifndef QD_SF_COUNTS_H
#define QD_SF_COUNTS_H

#include <stdint.h>

#include "prom_text.h"

struct qd_sf_counts {
	uint64_t refreshes, failures;
	int64_t last_success; /* Unix time; 0: none yet */
	int64_t last_ms;      /* the last refresh's duration */
	uint64_t jobs_set;
};

/* The site factor's families into out. */
void qd_sf_metrics_text(const struct qd_sf_counts *c, struct qd_prom *out);

#endif
