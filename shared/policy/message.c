/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>

#include "check.h"

const char *qd_flag_name(enum qd_flag f)
{
	switch (f) {
	case QD_DENY_ON_MAX_PER_JOB:
		return "DenyOnMaxPerJob";
	case QD_DENY_ON_MAX_PER_USER:
		return "DenyOnMaxPerUser";
	case QD_DENY_ON_GRP:
		return "DenyOnGrp";
	}
	return "unknown";
}

/* The limit's name as sacctmgr spells it, which admins will recognise. */
static const char *limit_name(enum qd_flag f)
{
	switch (f) {
	case QD_DENY_ON_MAX_PER_JOB:
		return "MaxTRESPerJob";
	case QD_DENY_ON_MAX_PER_USER:
		return "MaxTRESPerUser";
	case QD_DENY_ON_GRP:
		return "GrpTRES";
	}
	return "unknown";
}

/* A user who typed --gres=gpu:3 is told why "gres/gpu:a100" counts it. */
static const char *untyped_note(const struct qd_verdict *v)
{
	return v->untyped ? " (untyped GPUs count toward every GPU type the "
			    "job's partitions have)"
			  : "";
}

int qd_verdict_format(const struct qd_verdict *v, char *buf, size_t len)
{
	enum qd_tres_id unit = v->is_mem ? QD_TRES_MEM : QD_TRES_CPU;
	char req[32], used[32], lim[32];

	if (!v->denied)
		return snprintf(buf, len, "%s", "");
	qd_tres_format_value(unit, v->requested, req, sizeof(req));
	qd_tres_format_value(unit, v->in_use, used, sizeof(used));
	qd_tres_format_value(unit, v->limit, lim, sizeof(lim));
	if (v->flag == QD_DENY_ON_MAX_PER_JOB)
		return snprintf(buf, len,
				"qosdeny: %s: QOS %s: %s requested %s, %s "
				"limit %s%s",
				qd_flag_name(v->flag), v->qos, v->tres, req,
				limit_name(v->flag), lim, untyped_note(v));
	return snprintf(buf, len,
			"qosdeny: %s: QOS %s: %s requested %s, in use %s, %s "
			"limit %s%s",
			qd_flag_name(v->flag), v->qos, v->tres, req, used,
			limit_name(v->flag), lim, untyped_note(v));
}
