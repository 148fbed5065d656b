#include <stdio.h>
#include <stdlib.h>

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

struct qd_factor_table *qd_factor_table_build(struct qd_fs_table *fs,
					      const struct qd_assoc_ref *assocs,
					      size_t n, uint32_t weight)
{
	struct qd_factor_table *t =
	    malloc(sizeof(*t) + n * sizeof(struct qd_factor_entry));

	if (!t)
		return NULL;
	t->weight = weight;
	t->n = n;
	for (size_t i = 0; i < n; i++) {
		const struct qd_fs_row *r =
		    qd_fs_find(fs, assocs[i].account, assocs[i].user);

		t->e[i].assoc_id = assocs[i].id;
		t->e[i].factor = qd_factor_of(weight, r ? r->fair_share : 1.0);
	}
	qsort(t->e, n, sizeof(t->e[0]), entry_cmp);
	return t;
}

uint32_t qd_factor_lookup(const struct qd_factor_table *t, uint32_t assoc_id)
{
	struct qd_factor_entry key = {.assoc_id = assoc_id};
	const struct qd_factor_entry *e =
	    bsearch(&key, t->e, t->n, sizeof(t->e[0]), entry_cmp);

	return e ? e->factor : t->weight;
}
