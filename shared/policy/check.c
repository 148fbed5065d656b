/* SPDX-License-Identifier: GPL-2.0-or-later
 * One QoS on its own: the checks of in_force.c with that QoS alone in
 * force.
 */
#include "in_force.h"

bool qd_check(const struct qd_qos_rule *rule, const struct qd_limits *lim,
	      const struct qd_usage *used, const struct qd_tres *req,
	      struct qd_verdict *v)
{
	struct qd_qos_side s = {.rule = rule, .lim = *lim, .used = *used};
	const struct qd_qos_side *order[1] = {&s};
	struct qd_in_force in;

	*v = (struct qd_verdict){0};
	if (!rule)
		return false;
	s.name = rule->name;
	qd_limits_in_force(order, 1, &in);
	return qd_check_in_force(order, &in, req, v);
}
