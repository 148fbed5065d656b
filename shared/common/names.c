/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "names.h"

static const char hex[] = "0123456789ABCDEF";

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("._@+$-", c));
}

static int hex_value(char c)
{
	const char *p = c ? strchr(hex, c) : NULL;

	return p ? (int)(p - hex) : -1;
}

bool qd_usage_name_ok(const char *s)
{
	size_t len = strlen(s);

	if (!len || len >= QD_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		int hi, lo;

		if (name_char(s[i]))
			continue;
		if (s[i] != '%')
			return false;
		/* An escape, canonical: only of a byte that needs one. */
		hi = hex_value(s[i + 1]);
		lo = hi < 0 ? -1 : hex_value(s[i + 2]);
		if (lo < 0 || name_char((char)(hi << 4 | lo)) || !(hi | lo))
			return false;
		i += 2;
	}
	return true;
}

int qd_name_store(const char *name, char out[QD_NAME_MAX])
{
	size_t n = 0;

	if (!*name)
		return -1;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (name_char((char)*p)) {
			if (n + 1 >= QD_NAME_MAX)
				return -1;
			out[n++] = (char)*p;
			continue;
		}
		if (n + 3 >= QD_NAME_MAX)
			return -1;
		out[n++] = '%';
		out[n++] = hex[*p >> 4];
		out[n++] = hex[*p & 15];
	}
	out[n] = '\0';
	return 0;
}
