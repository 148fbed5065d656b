/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "errmsg.h"
#include "gpu_weights.h"

/* A weight as Slurm's strtod reads it, then a unit dividing it by 1024
 * per step; in thousandths, to the nearest. 0, or -1. */
static int weight_milli(const char *s, uint32_t *out)
{
	static const char units[] = "KMGTP";
	const char *u;
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	if (*end) {
		u = strchr(units, toupper((unsigned char)*end));
		if (!u || end[1])
			return -1;
		for (long k = 0; k <= u - units; k++)
			v /= 1024;
	}
	v = round(v * QD_GPU_WEIGHT_ONE);
	if (v > QD_GPU_WEIGHT_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* One TYPE[/NAME]=WEIGHT item, taken where it is GRES/gpu:<type>. */
static int take_item(char *item, struct qd_gpu_weights *out, char *err,
		     size_t errlen)
{
	char *eq = strchr(item, '='), *slash;
	const char *type;
	uint32_t milli;

	if (!eq || eq == item || !eq[1])
		return qd_errf(err, errlen,
			       "TRESBillingWeights: '%s' is not TRES=WEIGHT",
			       item);
	*eq = '\0';
	slash = strchr(item, '/');
	if (!slash || (size_t)(slash - item) != 4 ||
	    strncasecmp(item, "gres", 4) || strncasecmp(slash + 1, "gpu:", 4))
		return 0; /* CPU=, Mem=, GRES/gpu=, licenses: not a GPU type */
	type = slash + 5;
	if (!*type)
		return qd_errf(err, errlen,
			       "TRESBillingWeights: '%s' names no GPU type",
			       item);
	if (strlen(type) >= QD_GPU_TYPE_MAX)
		return qd_errf(err, errlen,
			       "TRESBillingWeights: GPU type '%.32s...' is "
			       "longer than %d characters",
			       type, QD_GPU_TYPE_MAX - 1);
	if (weight_milli(eq + 1, &milli))
		return qd_errf(err, errlen,
			       "TRESBillingWeights: %s=%s: the weight is not "
			       "a number from 0 to %u",
			       item, eq + 1,
			       QD_GPU_WEIGHT_MAX / QD_GPU_WEIGHT_ONE);
	/* A type named twice: the later weight, as in Slurm's array. */
	for (size_t i = 0; i < out->n; i++)
		if (!strcasecmp(out->w[i].type, type)) {
			out->w[i].milli = milli;
			return 0;
		}
	if (out->n == QD_GPU_WEIGHTS_MAX)
		return qd_errf(err, errlen,
			       "TRESBillingWeights: more than %d GPU types",
			       QD_GPU_WEIGHTS_MAX);
	snprintf(out->w[out->n].type, sizeof(out->w[out->n].type), "%s", type);
	out->w[out->n++].milli = milli;
	return 0;
}

int qd_gpu_weights_parse(const char *str, struct qd_gpu_weights *out, char *err,
			 size_t errlen)
{
	char *copy, *save = NULL, *item;
	int rv = 0;

	out->n = 0;
	if (!str || !*str)
		return 0;
	copy = strdup(str);
	if (!copy)
		return qd_errf(err, errlen, "out of memory");
	for (item = strtok_r(copy, ",", &save); item && !rv;
	     item = strtok_r(NULL, ",", &save))
		rv = take_item(item, out, err, errlen);
	free(copy);
	if (rv)
		out->n = 0;
	return rv;
}

uint32_t qd_gpu_weight(const struct qd_gpu_weights *w, const char *type)
{
	if (type && *type)
		for (size_t i = 0; i < w->n; i++)
			if (!strcasecmp(w->w[i].type, type))
				return w->w[i].milli;
	return QD_GPU_WEIGHT_ONE;
}
