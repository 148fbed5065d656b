/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "ctld_counts.h"

/* The series for qos, flag, tres; created when new (NULL when the table
 * is full or out of memory). A handful of QoS, flags and TRES: a walk. */
static struct qd_ctld_series *series(struct qd_ctld_counts *c, const char *qos,
				     unsigned flag, const char *tres)
{
	struct qd_ctld_series *s;

	for (size_t i = 0; i < c->n; i++) {
		s = &c->series[i];
		if (s->flag == flag && !strcmp(s->qos, qos) &&
		    !strcmp(s->tres, tres))
			return s;
	}
	if (c->n == QD_CTLD_SERIES_MAX)
		return NULL;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;

		s = realloc(c->series, cap * sizeof(*s));
		if (!s)
			return NULL;
		c->series = s;
		c->cap = cap;
	}
	s = &c->series[c->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->qos, sizeof(s->qos), "%s", qos);
	s->flag = flag;
	snprintf(s->tres, sizeof(s->tres), "%s", tres);
	return s;
}

void qd_ctld_count_decision(struct qd_ctld_counts *c, const char *qos,
			    const struct qd_verdict *v, bool enforced)
{
	struct qd_ctld_series *s = series(c, qos ? qos : "", 0, "");

	if (!s) {
		c->dropped++;
		return;
	}
	s->checked++;
	if (!v || !enforced)
		s->accepted++;
	if (!v)
		return;
	s = series(c, v->qos, v->flag, v->tres);
	if (!s)
		c->dropped++;
	else if (enforced)
		s->denied++;
	else
		s->would_deny++;
}

void qd_ctld_count_load(struct qd_ctld_counts *c, int64_t now, uint64_t records)
{
	c->policy_loaded_at = now;
	c->policy_records = records;
}

void qd_ctld_count_reload_error(struct qd_ctld_counts *c)
{
	c->reload_errors++;
}

bool qd_ctld_counts_copy(struct qd_ctld_counts *dst,
			 const struct qd_ctld_counts *src)
{
	*dst = *src;
	dst->series = NULL;
	dst->cap = 0;
	if (!src->n)
		return true;
	dst->series = malloc(src->n * sizeof(*dst->series));
	if (!dst->series) {
		dst->n = 0;
		return false;
	}
	memcpy(dst->series, src->series, src->n * sizeof(*dst->series));
	dst->cap = src->n;
	return true;
}

void qd_ctld_counts_free(struct qd_ctld_counts *c)
{
	free(c->series);
	*c = (struct qd_ctld_counts){0};
}
