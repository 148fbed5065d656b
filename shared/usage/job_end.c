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

/* A value of key in one line ("Key=value" between blanks), copied into
 * buf; false when absent or too long. */
static bool field(const char *line, size_t linelen, const char *key, char *buf,
		  size_t len)
{
	size_t klen = strlen(key);

	for (const char *p = line; p + klen < line + linelen; p++) {
		size_t n;

		if ((p != line && p[-1] != ' ') || strncmp(p, key, klen) ||
		    p[klen] != '=')
			continue;
		p += klen + 1;
		n = strcspn(p, " \n");
		if (n >= len || p + n > line + linelen)
			return false;
		memcpy(buf, p, n);
		buf[n] = '\0';
		return true;
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

void qd_job_end_scontrol(const char *out, int status,
			 const struct qd_usage_record *r, struct qd_run_end *e)
{
	char head[32], state[32], v[32];
	const char *line = out;
	size_t len;

	e->state = QD_RUN_UNKNOWN;
	if (strstr(out, "Invalid job id specified")) {
		e->state = QD_RUN_GONE;
		return;
	}
	if (status)
		return;
	/* A het job or an array prints several lines: the job's own. */
	snprintf(head, sizeof(head), "JobId=%" PRIu32 " ", r->job_id);
	while (line && strncmp(line, head, strlen(head))) {
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	if (!line)
		return;
	len = strcspn(line, "\n");
	if (!field(line, len, "JobState", state, sizeof(state)) ||
	    !field(line, len, "StartTime", v, sizeof(v)))
		return;
	e->state = QD_RUN_GONE;
	if (!run_matches(r, unix_time(v)))
		return;
	if (r->restart != QD_RESTART_UNKNOWN &&
	    (!field(line, len, "Restarts", v, sizeof(v)) ||
	     strtoul(v, NULL, 10) != r->restart))
		return;
	if (!strcmp(state, "PENDING"))
		return;
	if (!is_ended(state)) {
		e->state = QD_RUN_LIVE;
		return;
	}
	if (!field(line, len, "EndTime", v, sizeof(v)) || !unix_time(v))
		return;
	e->state = QD_RUN_ENDED;
	e->end = unix_time(v);
	snprintf(e->source, sizeof(e->source), "slurmctld (%s)", state);
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
