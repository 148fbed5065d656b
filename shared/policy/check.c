/*
 * Slurm's own QoS checks (acct_policy.c) hold a job rather than reject it;
 * these reject at submission with the same arithmetic:
 *   per job:  R > MaxTRESPerJob        (_validate_tres_limits_for_qos)
 *   per user: used + R > MaxTRESPerUser (_validate_tres_usage_limits, at
 *   group:    used + R > GrpTRES         scheduling)
 * A TRES the job does not ask for (R == 0) is never checked, as there: a
 * QoS already over its limit still admits jobs that add nothing to it.
 */
#include <stdio.h>

#include "check.h"

#define CAP QD_COUNT_MAX

struct probe {
	enum qd_flag flag;
	const struct qd_tres *limit;
	const struct qd_tres *used; /* NULL for the per-job check */
};

/* One TRES against one limit; fills *v and returns true when it fails. */
static bool over(const struct probe *p, uint64_t lim, uint64_t req,
		 uint64_t used, bool is_mem, struct qd_verdict *v)
{
	if (lim == QD_UNLIMITED || req == 0 || qd_sat_add(used, req) <= lim)
		return false;
	v->denied = true;
	v->flag = p->flag;
	v->is_mem = is_mem;
	v->requested = req;
	v->in_use = used;
	v->limit = lim;
	return true;
}

static bool check_one(const struct probe *p, const struct qd_tres *req,
		      struct qd_verdict *v)
{
	for (int id = 0; id < QD_TRES_FIXED; id++) {
		uint64_t used = p->used ? qd_tres_get(p->used, id, 0) : 0;

		if (!p->limit->set[id] ||
		    !over(p, p->limit->v[id], qd_tres_get(req, id, 0), used,
			  id == QD_TRES_MEM, v))
			continue;
		snprintf(v->tres, sizeof(v->tres), "%s", qd_tres_name(id));
		return true;
	}
	for (size_t i = 0; i < p->limit->ntyped; i++) {
		const struct qd_tres_typed *t = &p->limit->typed[i];
		uint64_t used =
		    p->used ? qd_tres_get_typed(p->used, t->type, 0) : 0;

		if (!over(p, t->value, qd_tres_get_typed(req, t->type, 0), used,
			  false, v))
			continue;
		snprintf(v->tres, sizeof(v->tres), "%s:%s",
			 qd_tres_name(QD_TRES_GPU), t->type);
		return true;
	}
	return false;
}

bool qd_check(const struct qd_qos_rule *rule, const struct qd_limits *lim,
	      const struct qd_usage *used, const struct qd_tres *req,
	      struct qd_verdict *v)
{
	const struct probe probes[] = {
	    {QD_DENY_ON_MAX_PER_JOB, &lim->max_per_job, NULL},
	    {QD_DENY_ON_MAX_PER_USER, &lim->max_per_user, &used->user},
	    {QD_DENY_ON_GRP, &lim->grp, &used->all},
	};

	*v = (struct qd_verdict){0};
	if (!rule)
		return false;
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		if (!(rule->flags & probes[i].flag) ||
		    !check_one(&probes[i], req, v))
			continue;
		snprintf(v->qos, sizeof(v->qos), "%s", rule->name);
		return true;
	}
	return false;
}
