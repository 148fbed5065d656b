/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "sha1.h"

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

/* "~" and the SHA-1 of a name too long to be held, in lowercase hex. */
static bool hashed_name(const char *s, size_t len)
{
	if (s[0] != '~' || len != 1 + QD_SHA1_HEX_LEN)
		return false;
	for (size_t i = 1; i < len; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}

bool qd_usage_name_ok(const char *s)
{
	size_t len = strlen(s);

	if (hashed_name(s, len))
		return true;
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

/* Writes name's escaped form into out (at most cap bytes, its NUL
 * included, where it fits) and returns its length. */
static size_t escape(const char *name, char *out, size_t cap)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		char e[3] = {(char)*p};
		size_t k = 1;

		if (!name_char((char)*p)) {
			e[0] = '%';
			e[1] = hex[*p >> 4];
			e[2] = hex[*p & 15];
			k = 3;
		}
		if (n + k < cap)
			memcpy(out + n, e, k);
		n += k;
	}
	if (n < cap)
		out[n] = '\0';
	return n;
}

int qd_name_store(const char *name, char out[QD_NAME_MAX])
{
	if (!*name)
		return -1;
	if (escape(name, out, QD_NAME_MAX) < QD_NAME_MAX)
		return 0;
	out[0] = '~';
	qd_sha1_hex(name, strlen(name), out + 1);
	return 0;
}

char *qd_name_shown(const char *name)
{
	size_t len = escape(name, NULL, 0);
	char *s = malloc(len + 1);

	if (s)
		escape(name, s, len + 1);
	return s;
}

int qd_name_unescape(const char *shown, char *out, size_t cap)
{
	size_t n = 0;

	for (const char *p = shown; *p; p++) {
		int c = (unsigned char)*p;

		if (*p == '%') {
			int hi = hex_value(p[1]),
			    lo = hi < 0 ? -1 : hex_value(p[2]);

			if (lo < 0 || !(hi | lo))
				return -1;
			c = hi << 4 | lo;
			p += 2;
		} else if (!name_char(*p)) {
			return -1;
		}
		if (n + 1 >= cap)
			return -1;
		out[n++] = (char)c;
	}
	if (!n)
		return -1;
	out[n] = '\0';
	return 0;
}
