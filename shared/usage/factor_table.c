/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "factor_table.h"

uint32_t qd_factor_of(uint32_t weight, double fair_share)
{
	char text[32];
	uint64_t micro;

	if (!(fair_share > 0))
		return 0;
	if (fair_share >= 1)
		return weight;
	/*
	 * FairShare as `qosdeny share` prints it (6 decimals, qd_fs_print's
	 * "%.6f"), in millionths, so that weight x F rounds exactly as an
	 * administrator computes it from that output.
	 */
	snprintf(text, sizeof(text), "%.6f", fair_share);
	micro = strtoull(text + 2, NULL, 10); /* "0.dddddd" */
	if (text[0] == '1')
		micro += 1000000;
	return (uint32_t)(((uint64_t)weight * micro + 500000) / 1000000);
}

static int entry_cmp(const void *a, const void *b)
{
	const struct qd_factor_entry *x = a, *y = b;

	return (x->assoc_id > y->assoc_id) - (x->assoc_id < y->assoc_id);
}

/*
 * Slurm numbers associations from 1 up as they are created, so the ids are
 * dense: a factor per id, found with one load, is what p_update's walk of
 * 100,000 pending jobs can afford under the job write lock. Ids too sparse
 * for that (a database that deleted most of its associations) keep the
 * sorted entries and bsearch.
 */
static size_t direct_size(const struct qd_factor_entry *e, size_t n)
{
	size_t ids = n ? (size_t)e[n - 1].assoc_id + 1 : 0;

	return ids <= 16 * n + 65536 ? ids : 0;
}

struct qd_factor_table *qd_factor_table_build(struct qd_fs_table *fs,
					      const struct qd_assoc_ref *assocs,
					      size_t n, uint32_t weight)
{
	struct qd_factor_entry *e = malloc((n ? n : 1) * sizeof(*e));
	struct qd_factor_table *t = NULL;
	size_t nd;

	if (!e)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct qd_fs_row *r =
		    qd_fs_find(fs, assocs[i].account, assocs[i].user);

		e[i].assoc_id = assocs[i].id;
		e[i].factor = qd_factor_of(weight, r ? r->fair_share : 1.0);
	}
	qsort(e, n, sizeof(*e), entry_cmp);
	nd = direct_size(e, n);
	/* One block, so that free() releases it. */
	t = malloc(sizeof(*t) + n * sizeof(*e) + nd * sizeof(uint32_t));
	if (!t)
		goto fail;
	t->weight = weight;
	t->n = n;
	memcpy(t->e, e, n * sizeof(*e));
	t->ndirect = nd;
	t->direct = nd ? (uint32_t *)(t->e + n) : NULL;
	for (size_t i = 0; i < nd; i++)
		t->direct[i] = QD_FACTOR_NONE;
	for (size_t i = 0; i < n && nd; i++)
		t->direct[e[i].assoc_id] = e[i].factor;
fail:
	free(e);
	return t;
}

uint32_t qd_factor_lookup(const struct qd_factor_table *t, uint32_t assoc_id)
{
	struct qd_factor_entry key = {.assoc_id = assoc_id};
	const struct qd_factor_entry *e;

	if (t->direct) {
		uint32_t f = assoc_id < t->ndirect ? t->direct[assoc_id]
						   : QD_FACTOR_NONE;

		return f == QD_FACTOR_NONE ? t->weight : f;
	}
	e = bsearch(&key, t->e, t->n, sizeof(t->e[0]), entry_cmp);
	return e ? e->factor : t->weight;
}
