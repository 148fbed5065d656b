/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <strings.h>
#include <stdio.h>

#include "het_sum.h"

void qd_het_sum_reset(struct qd_het_sum *h)
{
	h->n = 0;
}

/* Adds every TRES of src into dst; a type dst has no room for is dropped,
 * which can only under-count toward a typed limit, never wrap. */
static void tres_add(struct qd_tres *dst, const struct qd_tres *src)
{
	for (int id = 0; id < QD_TRES_FIXED; id++) {
		if (!src->set[id])
			continue;
		qd_tres_set(dst, id,
			    qd_sat_add(qd_tres_get(dst, id, 0), src->v[id]));
	}
	for (size_t i = 0; i < src->ntyped; i++)
		qd_tres_add_typed(dst, src->typed[i].type, src->typed[i].value);
}

static struct qd_tres *find(const struct qd_het_sum *h, const char *qos)
{
	for (size_t i = 0; i < h->n; i++)
		if (!strcasecmp(h->e[i].qos, qos))
			return (struct qd_tres *)&h->e[i].sum;
	return NULL;
}

int qd_het_sum_add(struct qd_het_sum *h, const char *qos,
		   const struct qd_tres *req)
{
	struct qd_tres *sum = find(h, qos);

	if (!sum) {
		if (h->n == QD_HET_QOS_MAX)
			return -1;
		snprintf(h->e[h->n].qos, QD_NAME_MAX, "%s", qos);
		sum = &h->e[h->n++].sum;
		qd_tres_init(sum);
	}
	tres_add(sum, req);
	return 0;
}

void qd_het_sum_apply(const struct qd_het_sum *h, const char *qos,
		      struct qd_usage *u)
{
	const struct qd_tres *sum = find(h, qos);

	if (!sum)
		return;
	tres_add(&u->user, sum);
	tres_add(&u->all, sum);
}
