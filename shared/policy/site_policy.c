/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>

#include "site_policy.h"

int qd_site_policy(const struct qd_site *s, struct qd_policy **p, char *err,
		   size_t errlen)
{
	FILE *f = fopen(s->qosdeny_conf, "re");

	*p = NULL;
	if (!f && errno == ENOENT)
		return 0;
	if (f)
		fclose(f);
	*p = qd_policy_load(s->qosdeny_conf, err, errlen);
	return *p ? 0 : -1;
}

uint64_t qd_site_half_life(const struct qd_policy *p)
{
	return p ? p->usage_half_life_s : QD_HALF_LIFE_DEFAULT_S;
}
