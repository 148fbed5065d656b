/* SPDX-License-Identifier: GPL-2.0-or-later
 * What the site factor needs from slurmctld, copied out under its locks so
 * that everything slow (Redis, the fair-share arithmetic) runs after they
 * are released: the association tree and the running jobs' GPU time.
 */
#ifndef QD_SF_SNAPSHOT_H
#define QD_SF_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "factor_table.h"
#include "running_usage.h"

struct qd_sf_assoc {
	struct qd_assoc_ref ref;
	char parent[QD_NAME_MAX]; /* account associations: parent account */
	uint32_t shares;	  /* RawShares, QD_FS_USE_PARENT */
};

struct qd_sf_snapshot {
	struct qd_sf_assoc *assocs;
	size_t n_assocs;
	struct qd_running_job *jobs; /* running jobs holding GPUs */
	size_t n_jobs;
	int gpu_tres_pos; /* -1: AccountingStorageTRES has no gres/gpu */
};

/*
 * Copies the associations (assoc_mgr read lock) and then the running jobs
 * (slurmctld job and node read locks, assoc_mgr TRES read lock), a job on
 * shares of a GPU counted as its records will charge it (S/N of the GPU),
 * one lock set at a time and nothing but memory under them. Returns 0, or
 * -1 when out of memory.
 */
int qd_sf_snapshot_take(struct qd_sf_snapshot *s, time_t now);

void qd_sf_snapshot_free(struct qd_sf_snapshot *s);

#endif
