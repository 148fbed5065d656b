/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prom_text.h"

/* Room for n more bytes and a NUL. */
static bool room(struct qd_prom *p, size_t n)
{
	size_t cap = p->cap ? p->cap : 4096;
	char *t;

	if (p->oom)
		return false;
	if (p->len + n + 1 <= p->cap)
		return true;
	while (cap < p->len + n + 1)
		cap *= 2;
	t = realloc(p->text, cap);
	if (!t) {
		p->oom = true;
		return false;
	}
	p->text = t;
	p->cap = cap;
	return true;
}

static void put(struct qd_prom *p, const char *s, size_t n)
{
	if (!room(p, n))
		return;
	memcpy(p->text + p->len, s, n);
	p->len += n;
	p->text[p->len] = '\0';
}

static void put_str(struct qd_prom *p, const char *s)
{
	put(p, s, strlen(s));
}

size_t qd_prom_utf8_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len;
	unsigned min;
	unsigned long cp;

	if (!n)
		return 0;
	if (u[0] < 0x80)
		return 1;
	if ((u[0] & 0xe0) == 0xc0)
		len = 2, min = 0x80, cp = u[0] & 0x1f;
	else if ((u[0] & 0xf0) == 0xe0)
		len = 3, min = 0x800, cp = u[0] & 0x0f;
	else if ((u[0] & 0xf8) == 0xf0)
		len = 4, min = 0x10000, cp = u[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (u[i] & 0x3f);
	}
	/* Overlong forms, surrogates and past U+10FFFF are not UTF-8. */
	if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* s escaped: a label value (quote also escaped) or a HELP text. */
static void put_escaped(struct qd_prom *p, const char *s, bool quote)
{
	size_t left = strlen(s);

	while (left) {
		unsigned char c = (unsigned char)*s;
		size_t k = qd_prom_utf8_len(s, left);

		if (c == '\\')
			put_str(p, "\\\\");
		else if (c == '\n')
			put_str(p, "\\n");
		else if (c == '"' && quote)
			put_str(p, "\\\"");
		else if (!k || c < 0x20 || c == 0x7f)
			put_str(p, "?");
		else
			put(p, s, k);
		k = k ? k : 1;
		s += k;
		left -= k;
	}
}

void qd_prom_family(struct qd_prom *p, const char *name, const char *type,
		    const char *help)
{
	put_str(p, "# HELP ");
	put_str(p, name);
	put_str(p, " ");
	put_escaped(p, help, false);
	put_str(p, "\n# TYPE ");
	put_str(p, name);
	put_str(p, " ");
	put_str(p, type);
	put_str(p, "\n");
}

static void put_name(struct qd_prom *p, const char *name,
		     const char *const *labels)
{
	bool any = false;

	put_str(p, name);
	for (size_t i = 0; labels && labels[i]; i += 2) {
		if (!labels[i + 1])
			continue;
		put_str(p, any ? "," : "{");
		any = true;
		put_str(p, labels[i]);
		put_str(p, "=\"");
		put_escaped(p, labels[i + 1], true);
		put_str(p, "\"");
	}
	if (any)
		put_str(p, "}");
}

void qd_prom_u64(struct qd_prom *p, const char *name, const char *const *labels,
		 uint64_t value)
{
	char v[32];

	put_name(p, name, labels);
	snprintf(v, sizeof(v), " %" PRIu64 "\n", value);
	put_str(p, v);
}

void qd_prom_double(struct qd_prom *p, const char *name,
		    const char *const *labels, double value)
{
	char v[48];

	put_name(p, name, labels);
	snprintf(v, sizeof(v), " %.17g\n", value);
	put_str(p, v);
}

void qd_prom_line(struct qd_prom *p, const char *line, size_t len)
{
	put(p, line, len);
	put(p, "\n", 1);
}

void qd_prom_free(struct qd_prom *p)
{
	free(p->text);
	*p = (struct qd_prom){0};
}
