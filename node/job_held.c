/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "gpu_devices.h"
#include "job_held.h"
#include "slurm_cmd.h"
#include "usage_record.h"

bool qd_job_held_needed(bool shares, const char *gres_conf, const char *node)
{
	return shares &&
	       qd_gres_conf_shares(gres_conf, node) != QD_SHARES_ELSEWHERE;
}

int qd_job_held_parse(const char *out, uint32_t *mgpus)
{
	size_t len = strcspn(out, "\n");
	uint64_t v;

	if (!len || out[len] != '\n' || out[len + 1] ||
	    qd_milli_parse(out, len, UINT32_MAX, &v))
		return -1;
	*mgpus = (uint32_t)v;
	return 0;
}

#ifndef QD_TOOL_INSTALLED /* the Makefile's: PREFIX/bin/qosdeny */
#define QD_TOOL_INSTALLED "/usr/local/bin/qosdeny"
#endif

int qd_job_held_tool(const char *beside, char *path, size_t len, char *err,
		     size_t errlen)
{
	const char *slash = beside ? strrchr(beside, '/') : NULL;

	if (!access(QD_TOOL_INSTALLED, X_OK)) {
		snprintf(path, len, "%s", QD_TOOL_INSTALLED);
		return 0;
	}
	if (slash &&
	    (size_t)snprintf(path, len, "%.*s/qosdeny", (int)(slash - beside),
			     beside) < len &&
	    !access(path, X_OK))
		return 0;
	return qd_errf(err, errlen, "qosdeny is not at %s%s%.*s",
		       QD_TOOL_INSTALLED, slash ? " nor in " : "",
		       slash ? (int)(slash - beside) : 0, slash ? beside : "");
}

int qd_job_held_ask(const char *tool, uint32_t job_id, const char *node,
		    int timeout_ms, uint32_t *mgpus, char *err, size_t errlen)
{
	char id[16], out[256], why[256];
	const char *argv[] = {tool, "held", id, node, NULL};
	int status;

	snprintf(id, sizeof(id), "%" PRIu32, job_id);
	if (qd_slurm_cmd(argv, timeout_ms, out, sizeof(out), &status, why,
			 sizeof(why)))
		return qd_errf(err, errlen, "qosdeny held %s %s: %s", id, node,
			       why);
	if (status == 127)
		return qd_errf(err, errlen, "%s could not be run", tool);
	if (status)
		return qd_errf(err, errlen,
			       "qosdeny held %s %s failed (status %d): run "
			       "it by hand for its error",
			       id, node, status);
	if (qd_job_held_parse(out, mgpus))
		return qd_errf(err, errlen,
			       "qosdeny held %s %s: '%.32s' is not a number "
			       "of GPUs",
			       id, node, out);
	return 0;
}
