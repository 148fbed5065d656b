/* SPDX-License-Identifier: GPL-2.0-or-later
 * The readers of Slurm's command output on a node: qd_job_end_squeue,
 * qd_job_end_sacct and qd_job_listed (shared/usage/job_end.h) and
 * qd_job_qos_parse (node/job_qos.h). Input: a byte for the job id (0 to
 * 63, so that rows often name it), a byte for the exit status and the
 * record's run (restart count or unknown, job_start 0 or 995), then the
 * text. Checked beside the sanitizers, against plain readings of the row
 * format (each field ended by '|', one row per line):
 * - a failed squeue is UNKNOWN; one without a row starting "ID|" is GONE;
 *   an ended run has an end after 0 and its source names slurmctld;
 * - sacct's ENDED names slurmdbd; a failed sacct leaves e as it was;
 * - qd_job_listed is 1 exactly when a line reads "ID|", else 0, or -1
 *   when the text filled the buffer it was said to be read into;
 * - a QoS parsed is the text between the first line "ID|X|" (X without
 *   '|') and its final '|', not empty.
 */
#include "fuzz_util.h"
#include "job_end.h"
#include "job_qos.h"

/* Whether text has a line that starts with head and, when whole, is head
 * and nothing else. */
static bool has_line(const char *text, const char *head, bool whole)
{
	size_t hlen = strlen(head);

	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);

		if (n >= hlen && !strncmp(l, head, hlen) &&
		    (!whole || n == hlen))
			return true;
		l = nl ? nl + 1 : NULL;
	}
	return false;
}

/* The QoS of job's row read plainly: the first line under 256 bytes that
 * is "ID|X|" with X free of '|'; false when there is none, or X is empty
 * or does not fit in len. */
static bool plain_qos(const char *text, const char *head, char *qos, size_t len)
{
	size_t hlen = strlen(head);

	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);

		if (n < 256 && n > hlen && !strncmp(l, head, hlen) &&
		    l[n - 1] == '|' && !memchr(l + hlen, '|', n - hlen - 1)) {
			size_t q = n - hlen - 1;

			if (!q || q >= len)
				return false;
			memcpy(qos, l + hlen, q);
			qos[q] = '\0';
			return true;
		}
		l = nl ? nl + 1 : NULL;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	uint32_t job = fuzz_u8(&in) & 63;
	uint8_t flags = fuzz_u8(&in);
	int status = flags & 1;
	struct qd_usage_record r = {
	    .cluster = "qd",
	    .job_id = job,
	    .node = "n1",
	    .user = "alice",
	    .start = 1000,
	    .mgpus = 1000,
	    .restart = flags & 2 ? QD_RESTART_UNKNOWN : (flags >> 4) & 3,
	    .job_start = flags & 4 ? 995 : 0,
	};
	char *text = fuzz_strndup(in.p, in.n);
	char head[16], qos[8], want[8];
	struct qd_run_end e = {.state = QD_RUN_LIVE};
	int listed;

	snprintf(head, sizeof(head), "%" PRIu32 "|", job);

	qd_job_end_squeue(text, status, &r, &e);
	if (status)
		FUZZ_ASSERT(e.state == QD_RUN_UNKNOWN, "failed squeue: %d",
			    e.state);
	else if (!has_line(text, head, false))
		FUZZ_ASSERT(e.state == QD_RUN_GONE, "no row: %d", e.state);
	if (e.state == QD_RUN_ENDED) {
		FUZZ_ASSERT(e.end > 0, "end %" PRId64, e.end);
		FUZZ_ASSERT(!strncmp(e.source, "slurmctld (", 11), "%s",
			    e.source);
	}

	e.state = QD_RUN_LIVE;
	qd_job_end_sacct(text, status, &r, &e);
	if (status)
		FUZZ_ASSERT(e.state == QD_RUN_LIVE, "failed sacct: %d",
			    e.state);
	if (e.state == QD_RUN_ENDED)
		FUZZ_ASSERT(!strncmp(e.source, "slurmdbd (", 10) && e.end > 0,
			    "%s %" PRId64, e.source, e.end);

	/* The buffer just filled (flags' top bit 0), or one byte to spare. */
	listed = qd_job_listed(text, strlen(text) + 1 + (flags >> 7), job);
	if (has_line(text, head, true))
		FUZZ_ASSERT(listed == 1, "listed: %d", listed);
	else
		FUZZ_ASSERT(listed == (flags >> 7 ? 0 : -1), "not listed: %d",
			    listed);

	if (!qd_job_qos_parse(text, job, qos, sizeof(qos))) {
		FUZZ_ASSERT(plain_qos(text, head, want, sizeof(want)),
			    "qos '%s' of no row", qos);
		FUZZ_ASSERT(*qos && !strcmp(qos, want), "'%s', expected '%s'",
			    qos, want);
	} else {
		FUZZ_ASSERT(!plain_qos(text, head, want, sizeof(want)),
			    "no qos, expected '%s'", want);
	}
	free(text);
	return 0;
}
