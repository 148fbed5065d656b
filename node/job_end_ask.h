/* SPDX-License-Identifier: GPL-2.0-or-later
 * Asks slurmctld, then slurmdbd, how an orphaned record's run ended
 * (spool_orphan.h), through squeue and sacct (slurm_cmd.h), within one
 * time budget for all the records of one sweep: slurmd's start waits no
 * longer, and a slurmctld that does not answer is asked once, not once per
 * record.
 */
#ifndef QD_JOB_END_ASK_H
#define QD_JOB_END_ASK_H

#include <stdbool.h>
#include <stdint.h>

#include "spool_orphan.h"

struct qd_job_end_asker {
	int64_t deadline_ms; /* qd_now_ms; set by qd_job_end_asker */
	bool ctld_silent;    /* squeue failed: not asked again */
	bool dbd_silent;     /* sacct failed: not asked again */
};

/* A budget of budget_ms from now. */
void qd_job_end_asker(struct qd_job_end_asker *a, int budget_ms);

/* qd_run_lookup_fn: arg is a struct qd_job_end_asker. */
void qd_job_end_ask(const struct qd_usage_record *r, struct qd_run_end *e,
		    void *arg);

#endif
