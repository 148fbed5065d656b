/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "errmsg.h"
#include "tres.h"

#define GPU_KEY "gres/gpu"

static const char *const names[QD_TRES_FIXED] = {
    [QD_TRES_CPU] = "cpu",	    [QD_TRES_MEM] = "mem",
    [QD_TRES_NODE] = "node",	    [QD_TRES_GPU] = GPU_KEY,
    [QD_TRES_SHARD] = "gres/shard", [QD_TRES_MPS] = "gres/mps",
};

void qd_tres_init(struct qd_tres *t)
{
	memset(t, 0, sizeof(*t));
}

const char *qd_tres_name(enum qd_tres_id id)
{
	return names[id];
}

void qd_tres_set(struct qd_tres *t, enum qd_tres_id id, uint64_t value)
{
	t->set[id] = true;
	t->v[id] = value;
}

uint64_t qd_tres_get(const struct qd_tres *t, enum qd_tres_id id, uint64_t dflt)
{
	return t->set[id] ? t->v[id] : dflt;
}

/* Index of type in t->typed, or where it would be inserted (*found false). */
static size_t typed_index(const struct qd_tres *t, const char *type,
			  bool *found)
{
	size_t i;

	*found = false;
	for (i = 0; i < t->ntyped; i++) {
		int c = strcasecmp(t->typed[i].type, type);

		if (c == 0)
			*found = true;
		if (c >= 0)
			break;
	}
	return i;
}

/* Slurm lowercases GRES type names, so "A100" and "a100" are one type. */
static struct qd_tres_typed *typed_slot(struct qd_tres *t, const char *type)
{
	size_t len = strlen(type);
	bool found;
	size_t i;

	if (len >= QD_TYPE_NAME_MAX)
		return NULL;
	i = typed_index(t, type, &found);
	if (found)
		return &t->typed[i];
	if (t->ntyped == QD_TYPES_MAX)
		return NULL;
	memmove(&t->typed[i + 1], &t->typed[i],
		(t->ntyped - i) * sizeof(t->typed[0]));
	t->ntyped++;
	for (size_t k = 0; k <= len; k++)
		t->typed[i].type[k] = tolower((unsigned char)type[k]);
	t->typed[i].value = 0;
	return &t->typed[i];
}

int qd_tres_set_typed(struct qd_tres *t, const char *type, uint64_t value)
{
	struct qd_tres_typed *e = typed_slot(t, type);

	if (!e)
		return -1;
	e->value = value;
	return 0;
}

int qd_tres_add_typed(struct qd_tres *t, const char *type, uint64_t value)
{
	struct qd_tres_typed *e = typed_slot(t, type);

	if (!e)
		return -1;
	if (e->value > QD_UNLIMITED - 1 - value || value == QD_UNLIMITED)
		e->value = QD_UNLIMITED - 1;
	else
		e->value += value;
	return 0;
}

uint64_t qd_tres_get_typed(const struct qd_tres *t, const char *type,
			   uint64_t dflt)
{
	bool found;
	size_t i = typed_index(t, type, &found);

	return found ? t->typed[i].value : dflt;
}

/* Digits only: strtoull would accept blanks, signs and wrap silently. */
static int parse_count(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || v > (QD_UNLIMITED - 1 - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* K rounds up so that a limit of 1K still forbids more than 0 MiB. */
static int mem_to_mib(uint64_t n, char suffix, uint64_t *out)
{
	const char *units = "MGTP";
	const char *u;

	if (suffix == 'K') {
		*out = n / 1024 + (n % 1024 != 0);
		return 0;
	}
	u = strchr(units, suffix);
	if (!u)
		return -1;
	for (; u > units; u--) {
		if (n > (QD_UNLIMITED - 1) / 1024)
			return -1;
		n *= 1024;
	}
	*out = n;
	return 0;
}

static int parse_value(enum qd_tres_id id, const char *s, size_t len,
		       uint64_t *out)
{
	char suffix = 'M';
	uint64_t n;

	if (len == 2 && !memcmp(s, "-1", 2)) {
		*out = QD_UNLIMITED;
		return 0;
	}
	if (id == QD_TRES_MEM && len > 1 && isalpha((unsigned char)s[len - 1]))
		suffix = toupper((unsigned char)s[--len]);
	if (parse_count(s, len, &n))
		return -1;
	if (id == QD_TRES_MEM)
		return mem_to_mib(n, suffix, out);
	*out = n;
	return 0;
}

/* The characters Slurm allows in a GRES type name in gres.conf. */
static bool valid_type(const char *type, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = type[i];

		if (!isalnum(c) && c != '_' && c != '-' && c != '.')
			return false;
	}
	return true;
}

/* Fixed TRES id for a key, QD_TRES_FIXED for gres/gpu:<type>, -1 unknown. */
static int key_id(const char *key, size_t len)
{
	size_t glen = strlen(GPU_KEY);

	for (int id = 0; id < QD_TRES_FIXED; id++)
		if (strlen(names[id]) == len &&
		    !strncasecmp(key, names[id], len))
			return id;
	if (len > glen && !strncasecmp(key, GPU_KEY, glen) && key[glen] == ':')
		return QD_TRES_FIXED;
	return -1;
}

int qd_tres_set_named(struct qd_tres *t, const char *name, uint64_t value)
{
	int id = key_id(name, strlen(name));
	const char *type;

	if (id < 0)
		return 1;
	if (id < QD_TRES_FIXED) {
		qd_tres_set(t, id, value);
		return 0;
	}
	type = name + strlen(GPU_KEY) + 1;
	if (!valid_type(type, strlen(type)))
		return 1;
	return qd_tres_set_typed(t, type, value);
}

static int parse_typed(const char *item, const char *key, size_t klen,
		       const char *val, size_t vlen, struct qd_tres *seen,
		       char *err, size_t errlen)
{
	size_t off = strlen(GPU_KEY) + 1;
	char type[QD_TYPE_NAME_MAX];
	uint64_t n;

	if (!valid_type(key + off, klen - off)) {
		qd_errf(err, errlen, "invalid GPU type '%s'", item);
		return -1;
	}
	if (klen - off >= QD_TYPE_NAME_MAX) {
		qd_errf(err, errlen, "GPU type name too long '%s'", item);
		return -1;
	}
	memcpy(type, key + off, klen - off);
	type[klen - off] = '\0';
	if (qd_tres_get_typed(seen, type, 0) != 0) {
		qd_errf(err, errlen, "TRES 'gres/gpu:%s' given twice", type);
		return -1;
	}
	if (parse_value(QD_TRES_GPU, val, vlen, &n)) {
		qd_errf(err, errlen, "invalid TRES count '%s'", item);
		return -1;
	}
	/* seen holds 1 per type so a count of 0 still marks it given. */
	if (qd_tres_set_typed(seen, type, 1)) {
		qd_errf(err, errlen, "too many GPU types '%s'", item);
		return -1;
	}
	return qd_tres_set_typed(seen + 1, type, n);
}

/* seen[0] records which TRES were given, seen[1] the values. */
static int parse_item(const char *item, struct qd_tres seen[2], char *err,
		      size_t errlen)
{
	const char *eq = strchr(item, '=');
	size_t klen = eq ? (size_t)(eq - item) : strlen(item);
	size_t vlen = eq ? strlen(eq + 1) : 0;
	int id = key_id(item, klen);
	uint64_t n;

	if (id < 0) {
		qd_errf(err, errlen, "unknown TRES '%s'", item);
		return -1;
	}
	if (!eq) {
		qd_errf(err, errlen, "missing TRES count '%s'", item);
		return -1;
	}
	if (id == QD_TRES_FIXED)
		return parse_typed(item, item, klen, eq + 1, vlen, seen, err,
				   errlen);
	if (seen[0].set[id]) {
		qd_errf(err, errlen, "TRES '%s' given twice", names[id]);
		return -1;
	}
	if (parse_value(id, eq + 1, vlen, &n)) {
		qd_errf(err, errlen, "invalid TRES count '%s'", item);
		return -1;
	}
	qd_tres_set(&seen[0], id, 1);
	qd_tres_set(&seen[1], id, n);
	return 0;
}

/* Into a copy, so that *out is untouched when its types overflow. */
static int merge(struct qd_tres *out, const struct qd_tres *in)
{
	struct qd_tres tmp = *out;

	for (int id = 0; id < QD_TRES_FIXED; id++)
		if (in->set[id])
			qd_tres_set(&tmp, id, in->v[id]);
	for (size_t i = 0; i < in->ntyped; i++)
		if (qd_tres_set_typed(&tmp, in->typed[i].type,
				      in->typed[i].value))
			return -1;
	*out = tmp;
	return 0;
}

int qd_tres_parse(const char *text, struct qd_tres *out, char *err,
		  size_t errlen)
{
	struct qd_tres seen[2];
	char item[256];

	qd_tres_init(&seen[0]);
	qd_tres_init(&seen[1]);
	for (const char *p = text;; p++) {
		size_t len = strcspn(p, ",");

		if (len == 0) {
			qd_errf(err, errlen, "empty TRES item in '%s'", text);
			return -1;
		}
		if (len >= sizeof(item)) {
			qd_errf(err, errlen, "TRES item too long '%.*s'",
				(int)len, p);
			return -1;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		if (parse_item(item, seen, err, errlen))
			return -1;
		p += len;
		if (!*p)
			break;
	}
	if (merge(out, &seen[1])) {
		qd_errf(err, errlen, "too many GPU types in '%s'", text);
		return -1;
	}
	return 0;
}

void qd_tres_format_value(enum qd_tres_id id, uint64_t value, char *buf,
			  size_t len)
{
	if (value == QD_UNLIMITED)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%" PRIu64 "%s", value,
			 id == QD_TRES_MEM ? "M" : "");
}
