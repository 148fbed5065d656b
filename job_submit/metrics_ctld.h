/* SPDX-License-Identifier: GPL-2.0-or-later
 * slurmctld's metrics file, DIR/qosdeny_ctld.prom (docs/metrics.md): the
 * counts job_submit() bumps under the policy lock, and their writer, which
 * the policy watcher's thread calls after each look at qosdeny.conf. The
 * writer copies the counts and each group and per-user cap's limit and
 * use under the policy lock and assoc_mgr's read locks, then makes the
 * text and writes the file with none held.
 */
#ifndef QD_METRICS_CTLD_H
#define QD_METRICS_CTLD_H

#include <pthread.h>

#include "ctld_counts.h"
#include "policy.h"

/* The counts; read and written under the plugin's policy lock. */
extern struct qd_ctld_counts qd_ctld_counts;

/* Writes the file when the policy in force sets metrics_dir and
 * metrics_interval has passed since the last write (or none was made). */
void qd_ctld_metrics_tick(const struct qd_policy_file *f,
			  pthread_mutex_t *policy_lock);

/* At fini, the thread stopped: the counts freed. */
void qd_ctld_metrics_fini(void);

#endif
