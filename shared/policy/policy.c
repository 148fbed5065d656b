/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "policy.h"

void qd_policy_free(struct qd_policy *p)
{
	if (!p)
		return;
	free(p->exempt_users);
	free(p->fs_clusters);
	free(p->rules);
	free(p->shares);
	free(p);
}

const struct qd_qos_rule *qd_policy_rule(const struct qd_policy *p,
					 const char *qos)
{
	for (size_t i = 0; i < p->n_rules; i++)
		if (!strcasecmp(p->rules[i].name, qos))
			return &p->rules[i];
	return NULL;
}

/* User names are compared exactly: Unix user names are case-sensitive. */
bool qd_policy_is_exempt(const struct qd_policy *p, const char *user)
{
	for (size_t i = 0; i < p->n_exempt; i++)
		if (!strcmp(p->exempt_users[i], user))
			return true;
	return false;
}
