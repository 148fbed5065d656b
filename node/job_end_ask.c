/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "job_end.h"
#include "job_end_ask.h"
#include "now_ms.h"
#include "slurm_cmd.h"

/* squeue's and sacct's output for one job, or squeue's listing of a
 * user's job ids: with room. */
#define OUT_MAX 65536

void qd_job_end_asker(struct qd_job_end_asker *a, int budget_ms)
{
	a->deadline_ms = qd_now_ms() + budget_ms;
	a->ctld_silent = false;
	a->dbd_silent = false;
}

/* Runs argv within what is left of the budget; -1 when it could not. */
static int run(struct qd_job_end_asker *a, const char *const argv[], char *out,
	       int *status)
{
	int64_t left = a->deadline_ms - qd_now_ms();
	char err[256];

	if (left <= 0)
		return -1;
	return qd_slurm_cmd(argv, (int)left, out, OUT_MAX, status, err,
			    sizeof(err));
}

/* squeue failed on r's job alone: slurmctld unreachable, or no such job.
 * The user's jobs listed without it tell the second. */
static void gone_or_unknown(struct qd_job_end_asker *a,
			    const struct qd_usage_record *r, char *out,
			    struct qd_run_end *e)
{
	const char *list[] = {"squeue", "-h", "-t",	 "all", "-u",
			      r->user,	"-O", "JobID:|", NULL};
	int status = -1;

	if (run(a, list, out, &status) || status) {
		a->ctld_silent = true;
		return;
	}
	if (qd_job_listed(out, OUT_MAX, r->job_id) == 0)
		e->state = QD_RUN_GONE;
}

void qd_job_end_ask(const struct qd_usage_record *r, struct qd_run_end *e,
		    void *arg)
{
	struct qd_job_end_asker *a = arg;
	char *out = malloc(OUT_MAX);
	char id[16];
	const char *squeue[] = {"squeue", "-h", "-t", "all",
				"-j",	  id,	"-O", QD_JOB_END_FIELDS,
				NULL};
	const char *sacct[] = {"sacct", "-n", "-P",
			       "-X",	"-D", "-j",
			       id,	"-o", "JobIDRaw,State,Start,End",
			       NULL};
	int status = -1;

	snprintf(id, sizeof(id), "%" PRIu32, r->job_id);
	e->state = QD_RUN_UNKNOWN;
	if (!out)
		return;
	if (!a->ctld_silent) {
		if (run(a, squeue, out, &status))
			a->ctld_silent = true;
		else if (status)
			gone_or_unknown(a, r, out, e);
		else
			qd_job_end_squeue(out, status, r, e);
	}
	if (e->state == QD_RUN_LIVE || e->state == QD_RUN_ENDED ||
	    a->dbd_silent)
		goto done;
	/* slurmctld forgot the run, or cannot be asked: slurmdbd, where
	 * accounting is on, keeps every run's end. */
	if (run(a, sacct, out, &status) || status)
		a->dbd_silent = true;
	else
		qd_job_end_sacct(out, status, r, e);
done:
	free(out);
}
