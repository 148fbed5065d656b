/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "prom_merge.h"

#define PREFIX "qosdeny_"

struct family {
	char *name;
	char *help, *type; /* whole lines, or NULL */
	struct qd_prom samples;
};

struct merge {
	struct family *f;
	size_t n, cap;
	bool oom;
};

/* A metric name, as the format allows it: [a-zA-Z_:][a-zA-Z0-9_:]*. */
static size_t name_len(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len &&
	       (s[i] == '_' || s[i] == ':' || (s[i] >= 'a' && s[i] <= 'z') ||
		(s[i] >= 'A' && s[i] <= 'Z') ||
		(i && s[i] >= '0' && s[i] <= '9')))
		i++;
	return i;
}

static struct family *family(struct merge *m, const char *name, size_t len)
{
	struct family *f;

	for (size_t i = 0; i < m->n; i++)
		if (strlen(m->f[i].name) == len &&
		    !strncmp(m->f[i].name, name, len))
			return &m->f[i];
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;

		f = realloc(m->f, cap * sizeof(*f));
		if (!f)
			goto oom;
		m->f = f;
		m->cap = cap;
	}
	f = &m->f[m->n];
	memset(f, 0, sizeof(*f));
	f->name = strndup(name, len);
	if (!f->name)
		goto oom;
	m->n++;
	return f;
oom:
	m->oom = true;
	return NULL;
}

/* Printable ASCII, or valid UTF-8 past it: no control character. */
static bool printable(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t k = qd_prom_utf8_len(s + i, len - i);

		if (!k || (unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
		i += k;
	}
	return true;
}

/* One line (without its newline); false when it is left out. */
static bool take(struct merge *m, const char *line, size_t len)
{
	const char *name = line;
	char **meta = NULL;
	struct family *f;
	size_t n;

	if (!len || !printable(line, len))
		return false;
	if (len > 7 &&
	    (!strncmp(line, "# HELP ", 7) || !strncmp(line, "# TYPE ", 7)))
		name = line + 7;
	else if (line[0] == '#')
		return false;
	n = name_len(name, len - (size_t)(name - line));
	/* The name, then a blank (or a sample's labels), then more. */
	if (n <= strlen(PREFIX) || strncmp(name, PREFIX, strlen(PREFIX)) ||
	    name + n + 1 >= line + len ||
	    (name[n] != ' ' && (name != line || name[n] != '{')))
		return false;
	f = family(m, name, n);
	if (!f)
		return true;
	if (name != line)
		meta = line[2] == 'H' ? &f->help : &f->type;
	if (!meta) {
		qd_prom_line(&f->samples, line, len);
		return true;
	}
	if (!*meta && !(*meta = strndup(line, len)))
		m->oom = true;
	return true;
}

static void put_line(struct qd_prom *out, const char *line)
{
	if (line)
		qd_prom_line(out, line, strlen(line));
}

int qd_prom_merge(const char *const *texts, size_t n, struct qd_prom *out,
		  size_t *skipped)
{
	struct merge m = {0};

	*skipped = 0;
	for (size_t t = 0; t < n; t++)
		for (const char *s = texts[t]; s && *s;) {
			size_t len = strcspn(s, "\n");

			if (len && !take(&m, s, len))
				(*skipped)++;
			s += len + (s[len] == '\n');
		}
	for (size_t i = 0; i < m.n; i++) {
		struct family *f = &m.f[i];

		put_line(out, f->help);
		put_line(out, f->type);
		if (f->samples.len)
			qd_prom_line(out, f->samples.text, f->samples.len - 1);
		m.oom |= f->samples.oom;
		free(f->name);
		free(f->help);
		free(f->type);
		qd_prom_free(&f->samples);
	}
	free(m.f);
	return m.oom || out->oom ? -1 : 0;
}
