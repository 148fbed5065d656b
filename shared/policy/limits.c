/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "check.h"

/* qd_tres_get_typed reads an absent type as the default it is given, so two
 * different defaults tell "absent" from any value. */
static bool has_type(const struct qd_tres *t, const char *type)
{
	return qd_tres_get_typed(t, type, 0) == qd_tres_get_typed(t, type, 1);
}

/*
 * The rule's typed entries go in first: a vector holds QD_TYPES_MAX types,
 * and when the two together hold more, a database type that does not fit is
 * the one left out (Slurm still enforces it by holding the job; qosdeny
 * only loses the early denial).
 */
static void merge_one(struct qd_tres *out, const struct qd_tres *db,
		      const struct qd_tres *rule)
{
	struct qd_tres m;

	qd_tres_init(&m);
	for (int id = 0; id < QD_TRES_FIXED; id++) {
		if (rule && rule->set[id])
			qd_tres_set(&m, id, rule->v[id]);
		else if (db->set[id])
			qd_tres_set(&m, id, db->v[id]);
	}
	for (size_t i = 0; rule && i < rule->ntyped; i++)
		qd_tres_set_typed(&m, rule->typed[i].type,
				  rule->typed[i].value);
	for (size_t i = 0; i < db->ntyped; i++)
		if (!rule || !has_type(rule, db->typed[i].type))
			qd_tres_set_typed(&m, db->typed[i].type,
					  db->typed[i].value);
	*out = m;
}

void qd_limits_merge(struct qd_limits *out, const struct qd_limits *db,
		     const struct qd_qos_rule *rule)
{
	merge_one(&out->max_per_job, &db->max_per_job,
		  rule ? &rule->max_per_job : NULL);
	merge_one(&out->max_per_user, &db->max_per_user,
		  rule ? &rule->max_per_user : NULL);
	merge_one(&out->grp, &db->grp, rule ? &rule->grp : NULL);
}
