/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "untyped_gpus.h"

#define TYPED_PREFIX "gres/gpu:"

uint64_t qd_untyped_gpus(const struct qd_tres *req)
{
	uint64_t all = qd_tres_get(req, QD_TRES_GPU, 0), typed = 0;

	for (size_t i = 0; i < req->ntyped; i++)
		typed = qd_sat_add(typed, req->typed[i].value);
	return all > typed ? all - typed : 0;
}

void qd_count_untyped_gpus(struct qd_tres *req, const struct qd_tres *reach)
{
	uint64_t untyped = qd_untyped_gpus(req);

	if (!untyped)
		return;
	for (size_t i = 0; i < reach->ntyped; i++) {
		const struct qd_tres_typed *r = &reach->typed[i];
		uint64_t asked = qd_tres_get_typed(req, r->type, 0);
		uint64_t could = qd_sat_add(asked, untyped);

		if (could > r->value)
			could = r->value;
		if (could > asked)
			/* only fails with req full of types the job asked
			 * for by name */
			(void)qd_tres_set_typed(req, r->type, could);
	}
}

void qd_count_untyped_gpus_unbounded(struct qd_tres *req,
				     const struct qd_tres *asked,
				     const struct qd_tres *reach,
				     const struct qd_tres *caps)
{
	uint64_t untyped = qd_untyped_gpus(asked);

	for (size_t i = 0; untyped && i < caps->ntyped; i++) {
		const char *type = caps->typed[i].type;
		uint64_t could =
		    qd_sat_add(qd_tres_get_typed(asked, type, 0), untyped);

		if (qd_tres_get_typed(reach, type, QD_UNLIMITED) ==
			QD_UNLIMITED &&
		    could > qd_tres_get_typed(req, type, 0))
			(void)qd_tres_set_typed(req, type, could);
	}
}

void qd_verdict_note_untyped(struct qd_verdict *v, const struct qd_tres *asked)
{
	size_t n = strlen(TYPED_PREFIX);

	v->untyped = v->denied && strncmp(v->tres, TYPED_PREFIX, n) == 0 &&
		     qd_tres_get_typed(asked, v->tres + n, 0) < v->requested;
}
