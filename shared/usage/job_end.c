/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_end.h"

/* Job states after which a run holds no node (squeue(1) "JOB STATE
 * CODES", and sacct's REQUEUED for a requeued job's earlier runs);
 * PENDING is a later run's, or none. */
static const char *const ended_states[] = {
    "BOOT_FAIL", "CANCELLED", "COMPLETED",    "DEADLINE",
    "FAILED",	 "NODE_FAIL", "PREEMPTED",    "OUT_OF_MEMORY",
    "TIMEOUT",	 "REQUEUED",  "SPECIAL_EXIT", "REVOKED",
};

static bool is_ended(const char *state)
{
	for (size_t i = 0; i < sizeof(ended_states) / sizeof(*ended_states);
	     i++)
		if (!strcmp(state, ended_states[i]))
			return true;
	return false;
}

/*
 * Splits a row of squeue -O's fields, each ended by '|', into f[0..n-1]
 * (in buf); false unless the line is exactly n such fields. Every field
 * asked for is Slurm's own: none holds a string a user sets.
 */
static bool row(const char *line, size_t linelen, char *buf, size_t buflen,
		char **f, int n)
{
	char *p = buf;

	if (linelen >= buflen)
		return false;
	memcpy(buf, line, linelen);
	buf[linelen] = '\0';
	for (int i = 0; i < n; i++) {
		char *bar = strchr(p, '|');

		if (!bar)
			return false;
		*bar = '\0';
		f[i] = p;
		p = bar + 1;
	}
	return !*p;
}

/* Whether id, as squeue prints job ids, is job_id. */
static bool is_job(const char *id, uint32_t job_id)
{
	char want[16];

	snprintf(want, sizeof(want), "%" PRIu32, job_id);
	return !strcmp(id, want);
}

bool qd_squeue_row(const char *out, uint32_t job_id, char *buf, size_t buflen,
		   char **f, int n)
{
	/* A het job or an array prints several rows: the job's own. */
	for (const char *line = out; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);

		if (row(line, len, buf, buflen, f, n) && is_job(f[0], job_id))
			return true;
		line = nl ? nl + 1 : NULL;
	}
	return false;
}

/* A Unix time as SLURM_TIME_FORMAT=%s prints it; 0 for none. */
static int64_t unix_time(const char *s)
{
	char *end;
	long long v;

	if (*s < '0' || *s > '9')
		return 0;
	v = strtoll(s, &end, 10);
	return *end || v <= 0 ? 0 : v;
}

/* Whether a run that started at job_start (by slurmctld) can be r's. */
static bool run_matches(const struct qd_usage_record *r, int64_t job_start)
{
	if (r->job_start)
		return job_start == r->job_start;
	return job_start && job_start <= r->start + QD_JOB_START_SLACK_S;
}

void qd_job_end_squeue(const char *out, int status,
		       const struct qd_usage_record *r, struct qd_run_end *e)
{
	char buf[256], *f[5];

	e->state = QD_RUN_UNKNOWN;
	if (status)
		return;
	/* squeue answered, and slurmctld has no such job: it forgets ended
	 * jobs after MinJobAge. */
	e->state = QD_RUN_GONE;
	/* JobID, State, StartTime, EndTime, RestartCnt. */
	if (!qd_squeue_row(out, r->job_id, buf, sizeof(buf), f, 5) ||
	    !run_matches(r, unix_time(f[2])))
		return;
	if (r->restart != QD_RESTART_UNKNOWN &&
	    (strspn(f[4], "0123456789") != strlen(f[4]) ||
	     strtoul(f[4], NULL, 10) != r->restart))
		return;
	if (!strcmp(f[1], "PENDING"))
		return;
	if (!is_ended(f[1])) {
		e->state = QD_RUN_LIVE;
		return;
	}
	if (!unix_time(f[3]))
		return;
	e->state = QD_RUN_ENDED;
	e->end = unix_time(f[3]);
	snprintf(e->source, sizeof(e->source), "slurmctld (%s)", f[1]);
}

int qd_job_listed(const char *out, size_t len, uint32_t job_id)
{
	char buf[32], *f[1];

	if (qd_squeue_row(out, job_id, buf, sizeof(buf), f, 1))
		return 1;
	return strlen(out) + 1 < len ? 0 : -1;
}

void qd_job_end_sacct(const char *out, int status,
		      const struct qd_usage_record *r, struct qd_run_end *e)
{
	int64_t best_start = 0, best_end = 0;
	char best_state[32] = "";

	if (status)
		return;
	for (const char *line = out; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char row[256], *f[4], *save = NULL;
		int n = 0;

		if (len < sizeof(row)) {
			memcpy(row, line, len);
			row[len] = '\0';
			for (char *t = strtok_r(row, "|", &save); t && n < 4;
			     t = strtok_r(NULL, "|", &save))
				f[n++] = t;
		}
		line = nl ? nl + 1 : NULL;
		/* State may read "CANCELLED by 0". */
		if (n < 4 || strtoul(f[0], NULL, 10) != r->job_id ||
		    strspn(f[0], "0123456789") != strlen(f[0]))
			continue;
		f[1][strcspn(f[1], " ")] = '\0';
		if (run_matches(r, unix_time(f[2])) &&
		    unix_time(f[2]) >= best_start) {
			best_start = unix_time(f[2]);
			best_end = is_ended(f[1]) ? unix_time(f[3]) : 0;
			snprintf(best_state, sizeof(best_state), "%s", f[1]);
		}
	}
	if (!best_end)
		return;
	e->state = QD_RUN_ENDED;
	e->end = best_end;
	snprintf(e->source, sizeof(e->source), "slurmdbd (%s)", best_state);
}
