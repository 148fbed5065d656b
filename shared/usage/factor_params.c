/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "factor_params.h"

static const struct {
	const char *key;
	size_t offset;
	uint32_t min, max;
} params[] = {
    {"weight", offsetof(struct qd_factor_params, weight), 0,
     QD_FACTOR_WEIGHT_MAX},
    {"interval", offsetof(struct qd_factor_params, interval_s),
     QD_FACTOR_INTERVAL_MIN, QD_FACTOR_INTERVAL_MAX},
};

#define N_PARAMS (sizeof(params) / sizeof(params[0]))

/* Decimal digits only, no sign or blanks, within [min, max]; leading
 * zeros, however many, are still the number. */
static bool number(const char *s, size_t len, uint32_t min, uint32_t max,
		   uint32_t *out)
{
	uint64_t v = 0;

	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > max)
			v = (uint64_t)max + 1; /* out of range, and stays so */
	}
	if (v < min || v > max)
		return false;
	*out = (uint32_t)v;
	return true;
}

static int fail(char *err, size_t errlen, const char *what, const char *item,
		size_t len)
{
	snprintf(err, errlen, "PrioritySiteFactorParameters: %s '%.*s'", what,
		 (int)(len > 200 ? 200 : len), item);
	return -1;
}

/* One key=value item of len bytes. */
static int parse_item(const char *item, size_t len, struct qd_factor_params *p,
		      bool *seen, char *err, size_t errlen)
{
	const char *eq = memchr(item, '=', len);
	size_t klen = eq ? (size_t)(eq - item) : len;

	for (size_t i = 0; i < N_PARAMS; i++) {
		char what[64];

		if (strlen(params[i].key) != klen ||
		    strncasecmp(item, params[i].key, klen))
			continue;
		if (seen[i])
			return fail(err, errlen, "given twice:", item, len);
		seen[i] = true;
		snprintf(what, sizeof(what),
			 "%s must be %u to %u:", params[i].key, params[i].min,
			 params[i].max);
		if (!eq || !number(eq + 1, len - klen - 1, params[i].min,
				   params[i].max,
				   (uint32_t *)((char *)p + params[i].offset)))
			return fail(err, errlen, what, item, len);
		return 0;
	}
	return fail(err, errlen, "unknown parameter", item, len);
}

int qd_factor_params_parse(const char *text, struct qd_factor_params *p,
			   char *err, size_t errlen)
{
	struct qd_factor_params v = {QD_FACTOR_WEIGHT_DEFAULT,
				     QD_FACTOR_INTERVAL_DEFAULT};
	bool seen[N_PARAMS] = {false};

	/* Into v first: a refusal leaves *p as it was. */
	if (text && *text) {
		for (const char *s = text;; s++) {
			size_t len = strcspn(s, ",");

			if (!len)
				return fail(err, errlen, "empty item in", text,
					    strlen(text));
			if (parse_item(s, len, &v, seen, err, errlen))
				return -1;
			s += len;
			if (!*s)
				break; /* else past the ',' to the next item */
		}
	}
	*p = v;
	return 0;
}
