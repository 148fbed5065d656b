/* SPDX-License-Identifier: GPL-2.0-or-later
 * The room under a cap is the largest request qd_check lets through:
 *   per job:  R <= limit             -> limit
 *   per user: used + R <= limit      -> limit - used (0 when over)
 *   group:    used + R <= limit      -> limit - used
 * and what a job may ask for of a TRES is the least room over the enabled
 * caps on it.
 */
#include <stdio.h>

#include "headroom.h"

struct probe {
	enum qd_flag flag;
	const struct qd_tres *limit;
	const struct qd_tres *used; /* NULL for the per-job check */
};

#define N_PROBES 3

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The least room over the rule's probes on one TRES (type NULL: the fixed
 * TRES id); QD_UNLIMITED when none limits it. */
static uint64_t least_room(const struct probe *p, unsigned flags,
			   enum qd_tres_id id, const char *type)
{
	uint64_t least = QD_UNLIMITED;

	for (size_t i = 0; i < N_PROBES; i++) {
		uint64_t lim, used;

		if (!(flags & p[i].flag))
			continue;
		lim = type ? qd_tres_get_typed(p[i].limit, type, QD_UNLIMITED)
			   : qd_tres_get(p[i].limit, id, QD_UNLIMITED);
		if (lim == QD_UNLIMITED)
			continue;
		used = !p[i].used ? 0
		       : type	  ? qd_tres_get_typed(p[i].used, type, 0)
				  : qd_tres_get(p[i].used, id, 0);
		least = min64(least, used >= lim ? 0 : lim - used);
	}
	return least;
}

/* What a typed request may ask for: its type's room and gres/gpu's. */
static uint64_t typed_can_ask(const struct probe *p, unsigned flags,
			      const char *type)
{
	return min64(least_room(p, flags, QD_TRES_GPU, type),
		     least_room(p, flags, QD_TRES_GPU, NULL));
}

/* What an untyped GPU request may ask for: gres/gpu's room and each
 * limited type's, toward which it counts too. */
static uint64_t untyped_can_ask(const struct probe *p, unsigned flags)
{
	uint64_t least = least_room(p, flags, QD_TRES_GPU, NULL);

	for (size_t i = 0; i < N_PROBES; i++)
		for (size_t k = 0;
		     (flags & p[i].flag) && k < p[i].limit->ntyped; k++)
			least =
			    min64(least, least_room(p, flags, QD_TRES_GPU,
						    p[i].limit->typed[k].type));
	return least;
}

static void add(struct qd_cap *out, size_t max, size_t *n,
		const struct probe *p, enum qd_tres_id id, const char *type,
		uint64_t limit, uint64_t can_ask)
{
	struct qd_cap *c = &out[*n];

	if (*n < max) {
		*c = (struct qd_cap){.flag = p->flag,
				     .id = id,
				     .limit = limit,
				     .has_in_use = p->used != NULL,
				     .can_ask = can_ask};
		snprintf(c->type, sizeof(c->type), "%s", type ? type : "");
		if (p->used)
			c->in_use = type ? qd_tres_get_typed(p->used, type, 0)
					 : qd_tres_get(p->used, id, 0);
	}
	(*n)++;
}

/* The caps of probe i on the fixed TRES from id up to end. */
static void add_fixed(const struct probe *probes, unsigned flags, size_t i,
		      int id, int end, struct qd_cap *out, size_t max,
		      size_t *n)
{
	const struct qd_tres *l = probes[i].limit;

	for (; id < end; id++) {
		uint64_t ask = id == QD_TRES_GPU
				   ? untyped_can_ask(probes, flags)
				   : least_room(probes, flags, id, NULL);

		if (l->set[id] && l->v[id] != QD_UNLIMITED)
			add(out, max, n, &probes[i], id, NULL, l->v[id], ask);
	}
}

size_t qd_caps(const struct qd_qos_rule *rule, const struct qd_limits *lim,
	       const struct qd_usage *used, struct qd_cap *out, size_t max)
{
	const struct probe probes[N_PROBES] = {
	    {QD_DENY_ON_MAX_PER_JOB, &lim->max_per_job, NULL},
	    {QD_DENY_ON_MAX_PER_USER, &lim->max_per_user, &used->user},
	    {QD_DENY_ON_GRP, &lim->grp, &used->all},
	};
	unsigned flags = rule ? rule->flags : 0;
	size_t n = 0;

	for (size_t i = 0; i < N_PROBES; i++) {
		const struct qd_tres *l = probes[i].limit;

		if (!(flags & probes[i].flag))
			continue;
		add_fixed(probes, flags, i, 0, QD_TRES_BEFORE_TYPES, out, max,
			  &n);
		for (size_t k = 0; k < l->ntyped; k++)
			if (l->typed[k].value != QD_UNLIMITED)
				add(out, max, &n, &probes[i], QD_TRES_GPU,
				    l->typed[k].type, l->typed[k].value,
				    typed_can_ask(probes, flags,
						  l->typed[k].type));
		add_fixed(probes, flags, i, QD_TRES_BEFORE_TYPES, QD_TRES_FIXED,
			  out, max, &n);
	}
	return n;
}

void qd_cap_tres(const struct qd_cap *c, char *buf, size_t len)
{
	if (c->type[0])
		snprintf(buf, len, "%s:%s", qd_tres_name(c->id), c->type);
	else
		snprintf(buf, len, "%s", qd_tres_name(c->id));
}
