/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "policy.h"

/*
 * One field: digits only, since strtoll would take blanks, signs and hex.
 * Returns the position after it, or NULL.
 */
static const char *parse_field(const char *s, int64_t *out)
{
	int64_t v = 0;
	const char *p;

	for (p = s; *p >= '0' && *p <= '9'; p++)
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, *p - '0', &v))
			return NULL;
	if (p == s)
		return NULL;
	*out = v;
	return p;
}

/* Up to three ':'-separated fields; returns how many, or -1. */
static int parse_fields(const char *s, int64_t f[3])
{
	int n = 0;

	for (;;) {
		s = parse_field(s, &f[n++]);
		if (!s)
			return -1;
		if (!*s)
			return n;
		if (*s != ':' || n == 3)
			return -1;
		s++;
	}
}

/* a * mul + b, or -1 on overflow. */
static int64_t mul_add(int64_t a, int64_t mul, int64_t b)
{
	int64_t v;

	if (__builtin_mul_overflow(a, mul, &v) ||
	    __builtin_add_overflow(v, b, &v))
		return -1;
	return v;
}

int64_t qd_parse_slurm_time(const char *text)
{
	const char *dash = strchr(text, '-');
	int64_t days = 0, f[3], h = 0, m = 0, s = 0, v;
	int n;

	if (dash) {
		if (parse_field(text, &days) != dash)
			return -1;
		text = dash + 1;
	}
	n = parse_fields(text, f);
	if (n < 0)
		return -1;
	/* "days-hours[:minutes[:seconds]]" starts at hours; without days a
	 * lone field is minutes and two are minutes:seconds. */
	if (dash || n == 3) {
		h = f[0];
		m = n > 1 ? f[1] : 0;
		s = n > 2 ? f[2] : 0;
	} else {
		m = f[0];
		s = n > 1 ? f[1] : 0;
	}
	v = mul_add(days, 24, h);
	if (v >= 0)
		v = mul_add(v, 60, m);
	if (v >= 0)
		v = mul_add(v, 60, s);
	return v;
}
