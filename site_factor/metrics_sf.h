/* SPDX-License-Identifier: GPL-2.0-or-later
 * site_factor/qosdeny's metrics (docs/metrics.md): counted by its refresh
 * thread and by slurmctld's priority calls, given as text to
 * job_submit/qosdeny's writer through qosdeny_site_factor_metrics(), which
 * this plugin exports (peer_plugin.h), and written by the refresh thread
 * itself where slurmctld does not load job_submit/qosdeny.
 */
#ifndef QD_SF_METRICS_H
#define QD_SF_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

/* A refresh ended, ok or not, after ms. */
void qd_sf_metrics_refreshed(bool ok, int64_t ms);

/* n more jobs had their factor set; on slurmctld's locked paths: an
 * atomic add. */
void qd_sf_metrics_jobs_set(uint64_t n);

/*
 * The refresh thread, at each wake: where job_submit/qosdeny is not loaded
 * and p sets metrics_dir, writes DIR/qosdeny_ctld.prom when
 * metrics_interval has passed since the last write. Returns the ms until
 * the next write is due, -1 when none is.
 */
int64_t qd_sf_metrics_tick(const struct qd_policy *p);

/* Exported: the families' text, malloc'd; NULL when out of memory. */
char *qosdeny_site_factor_metrics(void);

#endif
