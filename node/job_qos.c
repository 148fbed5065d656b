/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "job_qos.h"
#include "slurm_cmd.h"

int qd_job_qos_parse(const char *out, uint32_t job_id, char *qos, size_t len)
{
	char head[16];
	size_t hlen;

	/* A het job or an array prints several rows: the job's own, whose
	 * QoS runs from its id's '|' to the '|' that ends the line. */
	hlen = (size_t)snprintf(head, sizeof(head), "%" PRIu32 "|", job_id);
	for (const char *line = out; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);

		if (n > hlen + 1 && !strncmp(line, head, hlen) &&
		    line[n - 1] == '|') {
			n -= hlen + 1;
			if (n >= len || memchr(line + hlen, '|', n))
				return -1;
			memcpy(qos, line + hlen, n);
			qos[n] = '\0';
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -1;
}

int qd_job_qos_ask(uint32_t job_id, int timeout_ms, char *qos, size_t len,
		   char *err, size_t errlen)
{
	char id[16], out[16384], why[256];
	const char *argv[] = {"squeue", "-h", "-t", "all",
			      "-j",	id,   "-O", QD_JOB_QOS_FIELDS,
			      NULL};
	int status;

	snprintf(id, sizeof(id), "%" PRIu32, job_id);
	if (qd_slurm_cmd(argv, timeout_ms, out, sizeof(out), &status, why,
			 sizeof(why)))
		return qd_errf(err, errlen, "squeue -j %s: %s", id, why);
	if (status)
		return qd_errf(err, errlen, "squeue -j %s failed (status %d)",
			       id, status);
	if (qd_job_qos_parse(out, job_id, qos, len))
		return qd_errf(err, errlen, "squeue -j %s: no QOS", id);
	return 0;
}
