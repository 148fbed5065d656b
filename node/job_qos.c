/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "job_qos.h"
#include "slurm_cmd.h"

int qd_job_qos_parse(const char *out, uint32_t job_id, char *qos, size_t len)
{
	char head[32];
	const char *line = out, *q;
	size_t n;

	/* A het job or an array prints several lines: the job's own. */
	snprintf(head, sizeof(head), "JobId=%" PRIu32 " ", job_id);
	while (line && strncmp(line, head, strlen(head))) {
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	if (!line || !(q = strstr(line, " QOS=")))
		return -1;
	q += strlen(" QOS=");
	n = strcspn(q, " \n");
	if (!n || n >= len || memchr(line, '\n', (size_t)(q - line)))
		return -1;
	memcpy(qos, q, n);
	qos[n] = '\0';
	return 0;
}

int qd_job_qos_ask(uint32_t job_id, int timeout_ms, char *qos, size_t len,
		   char *err, size_t errlen)
{
	char id[16], out[16384], why[256];
	const char *argv[] = {"scontrol", "-o", "show", "job", id, NULL};
	int status;

	snprintf(id, sizeof(id), "%" PRIu32, job_id);
	if (qd_slurm_cmd(argv, timeout_ms, out, sizeof(out), &status, why,
			 sizeof(why)))
		return qd_errf(err, errlen, "scontrol show job %s: %s", id,
			       why);
	if (status)
		return qd_errf(err, errlen,
			       "scontrol show job %s failed (status %d)", id,
			       status);
	if (qd_job_qos_parse(out, job_id, qos, len))
		return qd_errf(err, errlen, "scontrol show job %s: no QOS", id);
	return 0;
}
