/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "job_end.h"
#include "job_qos.h"
#include "slurm_cmd.h"

int qd_job_qos_parse(const char *out, uint32_t job_id, char *qos, size_t len)
{
	char buf[256], *f[2];

	if (!qd_squeue_row(out, job_id, buf, sizeof(buf), f, 2) || !*f[1] ||
	    strlen(f[1]) >= len)
		return -1;
	memcpy(qos, f[1], strlen(f[1]) + 1);
	return 0;
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
