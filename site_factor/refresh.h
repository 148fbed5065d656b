/* SPDX-License-Identifier: GPL-2.0-or-later
 * The site factor's background thread: every interval it publishes the
 * running jobs' GPU time, reads the usage of the fair-share clusters from
 * Redis, computes FairShare as `qosdeny share` does and swaps in a new
 * association-to-factor table. Only this thread talks to Redis or reads
 * files; slurmctld's threads only read the table (qd_sf_factor).
 */
#ifndef QD_SF_REFRESH_H
#define QD_SF_REFRESH_H

#include <stdbool.h>
#include <stdint.h>

#include "factor_params.h"

/*
 * Reads qosdeny.conf and plugstack.conf next to slurm_conf, logs the start
 * line, and starts the thread. A qosdeny.conf that cannot be read or parsed
 * runs on the copy kept in state_dir (StateSaveLocation, policy_keep.h);
 * with none kept, or plugstack.conf unreadable, it is an error here, fatal
 * at slurmctld start. again: this slurmctld ran the site factor before (a
 * failed 23.11+ reconfigure resumes it and starts its plugins anew); then
 * such an error is logged and the thread starts all the same, refreshing
 * once the files are mended. Returns 0, or -1 with err.
 */
int qd_sf_start(const char *slurm_conf, const char *cluster_name,
		const char *state_dir, const struct qd_factor_params *p,
		bool again, char *err, size_t errlen);

/* New parameters (22.05's reconfigure) and a refresh now. */
void qd_sf_reconfigure(const struct qd_factor_params *p);

/* Stops the thread and frees the table. A refresh in flight ends with its
 * Redis call in progress, within timeout_ms: it starts no other, however
 * many it had left (docs/fair-share.md, "GPU fair share in job priority"). */
void qd_sf_stop(void);

/*
 * Looks up factors in the current table: lock, any number of
 * qd_sf_factor and qd_sf_have_table, unlock. Before the first refresh
 * every association gets weight (FairShare 1: no usage known).
 */
void qd_sf_table_lock(void);
uint32_t qd_sf_factor(uint32_t assoc_id);
bool qd_sf_have_table(void);
void qd_sf_table_unlock(void);

#endif
