/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Slurm's own QoS checks (acct_policy.c) hold a job rather than reject it;
 * these reject at submission with the same arithmetic, against the limit in
 * force for each TRES (in_force.h):
 *   per job:  R > MaxTRESPerJob        (_validate_tres_limits_for_qos)
 *   per user: used + R > MaxTRESPerUser (_validate_tres_usage_limits, at
 *   group:    used + R > GrpTRES         scheduling)
 * A TRES the job does not ask for (R == 0) is never checked, as there: a
 * QoS already over its limit still admits jobs that add nothing to it.
 */
#include <stdio.h>
#include <strings.h>

#include "in_force.h"

size_t qd_qos_order(const struct qd_qos_side *job,
		    const struct qd_qos_side *part,
		    const struct qd_qos_side *order[2])
{
	const struct qd_qos_side *first = part, *second = job;
	size_t n = 0;

	if (job && job->over_part_qos) {
		first = job;
		second = part;
	}
	if (first)
		order[n++] = first;
	if (second && !(first && !strcasecmp(first->name, second->name)))
		order[n++] = second;
	return n;
}

/* A limit of QD_UNLIMITED is no limit, as Slurm's INFINITE64: the next
 * QoS's decides. */
static bool has_limit(const struct qd_tres *t, const char *type)
{
	return qd_tres_get_typed(t, type, QD_UNLIMITED) != QD_UNLIMITED;
}

/* One kind of limit over the QoS in order: the first that sets each TRES. */
static void resolve(const struct qd_tres *const lims[], size_t n,
		    struct qd_tres *out, unsigned char from[],
		    unsigned char typed_from[])
{
	qd_tres_init(out);
	for (int id = 0; id < QD_TRES_FIXED; id++)
		for (size_t i = 0; i < n; i++) {
			if (!lims[i]->set[id] || lims[i]->v[id] == QD_UNLIMITED)
				continue;
			qd_tres_set(out, id, lims[i]->v[id]);
			from[id] = (unsigned char)i;
			break;
		}
	/* A type that does not fit in the vector is left out: Slurm still
	 * holds the job for it, qosdeny only loses the early denial. */
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < lims[i]->ntyped; k++) {
			const struct qd_tres_typed *t = &lims[i]->typed[k];

			if (t->value != QD_UNLIMITED &&
			    !has_limit(out, t->type))
				qd_tres_set_typed(out, t->type, t->value);
		}
	/* The vector keeps its types sorted: where each came from, after. */
	for (size_t k = 0; k < out->ntyped; k++)
		for (size_t i = 0; i < n; i++)
			if (has_limit(lims[i], out->typed[k].type)) {
				typed_from[k] = (unsigned char)i;
				break;
			}
}

void qd_limits_in_force(const struct qd_qos_side *const *order, size_t n,
			struct qd_in_force *out)
{
	const struct qd_tres *job[2], *user[2], *grp[2];

	if (n > 2)
		n = 2;
	for (size_t i = 0; i < n; i++) {
		job[i] = &order[i]->lim.max_per_job;
		user[i] = &order[i]->lim.max_per_user;
		grp[i] = &order[i]->lim.grp;
	}
	resolve(job, n, &out->lim.max_per_job, out->job_from,
		out->job_typed_from);
	resolve(user, n, &out->lim.max_per_user, out->user_from,
		out->user_typed_from);
	resolve(grp, n, &out->lim.grp, out->grp_from, out->grp_typed_from);
}

static void only_from(const struct qd_tres *in, const unsigned char from[],
		      const unsigned char typed_from[], size_t idx,
		      struct qd_tres *out)
{
	qd_tres_init(out);
	for (int id = 0; id < QD_TRES_FIXED; id++)
		if (in->set[id] && from[id] == idx)
			qd_tres_set(out, id, in->v[id]);
	for (size_t k = 0; k < in->ntyped; k++)
		if (typed_from[k] == idx)
			qd_tres_set_typed(out, in->typed[k].type,
					  in->typed[k].value);
}

void qd_limits_in_force_of(const struct qd_in_force *in, size_t idx,
			   struct qd_limits *out)
{
	only_from(&in->lim.max_per_job, in->job_from, in->job_typed_from, idx,
		  &out->max_per_job);
	only_from(&in->lim.max_per_user, in->user_from, in->user_typed_from,
		  idx, &out->max_per_user);
	only_from(&in->lim.grp, in->grp_from, in->grp_typed_from, idx,
		  &out->grp);
}

enum usage { NO_USAGE, USER_USAGE, ALL_USAGE };

struct kind {
	enum qd_flag flag;
	const struct qd_tres *limit;
	const unsigned char *from, *typed_from;
	enum usage usage;
};

/* The QoS whose limit is in force, where its record has the kind's flag. */
static const struct qd_qos_side *
deciding(const struct qd_qos_side *const *order, unsigned char from,
	 enum qd_flag flag)
{
	const struct qd_qos_side *s = order[from];

	return s->rule && (s->rule->flags & flag) ? s : NULL;
}

/*
 * The request as it adds to the usage: a job's nodes that the QoS's (or
 * the user's) running jobs already hold add none, as Slurm counts a node
 * once however many of them share it (_get_unique_job_node_cnt). Where
 * the adapter cannot tell whether a node in use could take the job, it
 * counts it as able: a false accept leaves the job to Slurm's own hold.
 */
static uint64_t counted(const struct qd_qos_side *s, enum usage u,
			enum qd_tres_id id, uint64_t req)
{
	uint64_t shared = u == USER_USAGE ? s->used.user_nodes_shared
					  : s->used.all_nodes_shared;

	if (id != QD_TRES_NODE || u == NO_USAGE)
		return req;
	return req > shared ? req - shared : 0;
}

static uint64_t used_of(const struct qd_qos_side *s, enum usage u,
			enum qd_tres_id id, const char *type)
{
	const struct qd_tres *t =
	    u == USER_USAGE ? &s->used.user : &s->used.all;

	if (u == NO_USAGE)
		return 0;
	return type ? qd_tres_get_typed(t, type, 0) : qd_tres_get(t, id, 0);
}

/* One TRES against one limit; fills *v and returns true when it fails. */
static bool over(const struct kind *k, const struct qd_qos_side *s,
		 uint64_t lim, uint64_t req, uint64_t used, bool is_mem,
		 struct qd_verdict *v)
{
	if (lim == QD_UNLIMITED || req == 0 || qd_sat_add(used, req) <= lim)
		return false;
	v->denied = true;
	v->flag = k->flag;
	v->is_mem = is_mem;
	v->requested = req;
	v->in_use = used;
	v->limit = lim;
	snprintf(v->qos, sizeof(v->qos), "%s", s->name);
	return true;
}

/* The fixed TRES from id up to end, in order; the first that fails. */
static bool check_fixed(const struct qd_qos_side *const *order,
			const struct kind *k, const struct qd_tres *req, int id,
			int end, struct qd_verdict *v)
{
	const struct qd_qos_side *s;

	for (; id < end; id++) {
		uint64_t r = qd_tres_get(req, id, 0);

		if (!k->limit->set[id] ||
		    !(s = deciding(order, k->from[id], k->flag)) ||
		    !over(k, s, k->limit->v[id], counted(s, k->usage, id, r),
			  used_of(s, k->usage, id, NULL), id == QD_TRES_MEM, v))
			continue;
		v->requested = r;
		snprintf(v->tres, sizeof(v->tres), "%s", qd_tres_name(id));
		return true;
	}
	return false;
}

/* cpu, mem, node, gres/gpu, each gres/gpu:<type>, gres/shard, gres/mps. */
static bool check_kind(const struct qd_qos_side *const *order,
		       const struct kind *k, const struct qd_tres *req,
		       struct qd_verdict *v)
{
	const struct qd_qos_side *s;

	if (check_fixed(order, k, req, 0, QD_TRES_BEFORE_TYPES, v))
		return true;
	for (size_t i = 0; i < k->limit->ntyped; i++) {
		const struct qd_tres_typed *t = &k->limit->typed[i];

		if (!(s = deciding(order, k->typed_from[i], k->flag)) ||
		    !over(k, s, t->value, qd_tres_get_typed(req, t->type, 0),
			  used_of(s, k->usage, QD_TRES_GPU, t->type), false, v))
			continue;
		snprintf(v->tres, sizeof(v->tres), "%s:%s",
			 qd_tres_name(QD_TRES_GPU), t->type);
		return true;
	}
	return check_fixed(order, k, req, QD_TRES_BEFORE_TYPES, QD_TRES_FIXED,
			   v);
}

bool qd_check_in_force(const struct qd_qos_side *const *order,
		       const struct qd_in_force *in, const struct qd_tres *req,
		       struct qd_verdict *v)
{
	const struct kind kinds[] = {
	    {QD_DENY_ON_MAX_PER_JOB, &in->lim.max_per_job, in->job_from,
	     in->job_typed_from, NO_USAGE},
	    {QD_DENY_ON_MAX_PER_USER, &in->lim.max_per_user, in->user_from,
	     in->user_typed_from, USER_USAGE},
	    {QD_DENY_ON_GRP, &in->lim.grp, in->grp_from, in->grp_typed_from,
	     ALL_USAGE},
	};

	*v = (struct qd_verdict){0};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (check_kind(order, &kinds[i], req, v))
			return true;
	return false;
}
