/* SPDX-License-Identifier: GPL-2.0-or-later
 * The usage record's text encoding. Encoder and decoder walk one table of
 * fields, so the two cannot drift apart; the decoder assumes the bytes come
 * from anywhere (a torn spool file, a hostile local user, a foreign Redis
 * value) and accepts exactly what the encoder writes.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "usage_record.h"

#define MAGIC	 "qosdeny-usage/3"
#define MAGIC_V2 "qosdeny-usage/2"
#define MAGIC_V1 "qosdeny-usage/1"

/* F_COUNT_OPT: a count, or empty for QD_RESTART_UNKNOWN. F_MILLI32 and
 * F_MILLI64: thousandths, written as a decimal with up to three digits
 * after its point (version 3; whole numbers in versions 1 and 2). */
enum ftype {
	F_NAME,
	F_NAME_OPT,
	F_U32,
	F_COUNT_OPT,
	F_I64,
	F_MILLI32,
	F_MILLI64
};

static const struct field {
	const char *key;
	enum ftype type;
	size_t off;
	bool v2; /* not in version 1 */
} fields[] = {
    {"cluster", F_NAME, offsetof(struct qd_usage_record, cluster), false},
    {"job", F_U32, offsetof(struct qd_usage_record, job_id), false},
    {"node", F_NAME, offsetof(struct qd_usage_record, node), false},
    {"user", F_NAME, offsetof(struct qd_usage_record, user), false},
    {"account", F_NAME_OPT, offsetof(struct qd_usage_record, account), false},
    {"qos", F_NAME_OPT, offsetof(struct qd_usage_record, qos), false},
    {"partition", F_NAME_OPT, offsetof(struct qd_usage_record, partition),
     false},
    /* The run the record belongs to. Before the times, so that
     * gpu_seconds stays last: a record cut short anywhere fails its
     * check. */
    {"restart", F_COUNT_OPT, offsetof(struct qd_usage_record, restart), true},
    {"job_start", F_I64, offsetof(struct qd_usage_record, job_start), true},
    {"start", F_I64, offsetof(struct qd_usage_record, start), false},
    {"end", F_I64, offsetof(struct qd_usage_record, end), false},
    {"gpus", F_MILLI32, offsetof(struct qd_usage_record, mgpus), false},
    {"gpu_seconds", F_MILLI64, offsetof(struct qd_usage_record, mgpu_seconds),
     false},
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "usage record: ");

	if (n >= 0 && (size_t)n < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Untrusted text fit for an error message: printable ASCII, cut short. */
static const char *sanitise(char *out, size_t outlen, const char *s, size_t len)
{
	size_t max = outlen - 4, i;

	for (i = 0; i < len && i < max; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	if (i < len) {
		memcpy(out + i, "...", 3);
		i += 3;
	}
	out[i] = '\0';
	return out;
}

bool qd_usage_record_is_open(const struct qd_usage_record *r)
{
	return r->end == 0;
}

/* mgpus * (end - start), or -1 when it does not fit. */
static int product(const struct qd_usage_record *r, uint64_t *out)
{
	uint64_t secs = r->end > r->start ? (uint64_t)(r->end - r->start) : 0;

	return __builtin_mul_overflow((uint64_t)r->mgpus, secs, out) ? -1 : 0;
}

int qd_usage_record_close(struct qd_usage_record *r, int64_t end)
{
	struct qd_usage_record closed = *r;

	if (!qd_usage_record_is_open(r) || end <= 0)
		return -1;
	/* A clock stepped back must not make the record undecodable. */
	closed.end = end < r->start ? r->start : end;
	if (product(&closed, &closed.mgpu_seconds))
		return -1;
	*r = closed;
	return 0;
}

int qd_usage_record_check(const struct qd_usage_record *r, char *err,
			  size_t errlen)
{
	char text[48], wtext[32];
	uint64_t want;

	for (size_t i = 0; i < NFIELDS; i++) {
		const char *s = (const char *)r + fields[i].off;

		if (fields[i].type != F_NAME && fields[i].type != F_NAME_OPT)
			continue;
		if (fields[i].type == F_NAME_OPT && !s[0])
			continue;
		if (!qd_usage_name_ok(s))
			return fail(err, errlen, "invalid %s '%s'",
				    fields[i].key,
				    sanitise(text, sizeof(text), s,
					     strnlen(s, QD_NAME_MAX)));
	}
	if (!r->job_id)
		return fail(err, errlen, "job id 0");
	if (r->start <= 0)
		return fail(err, errlen, "start %" PRId64 " is not a time",
			    r->start);
	if (qd_usage_record_is_open(r)) {
		if (r->mgpu_seconds)
			return fail(
			    err, errlen,
			    "open record (end=0) with gpu_seconds %s",
			    qd_milli_text(r->mgpu_seconds, text, sizeof(text)));
		return 0;
	}
	if (r->end < r->start)
		return fail(err, errlen,
			    "end %" PRId64 " before start %" PRId64, r->end,
			    r->start);
	if (product(r, &want))
		return fail(err, errlen, "gpus * (end - start) overflows");
	if (want != r->mgpu_seconds)
		return fail(err, errlen,
			    "gpu_seconds %s is not gpus * (end - start) = %s",
			    qd_milli_text(r->mgpu_seconds, text, sizeof(text)),
			    qd_milli_text(want, wtext, sizeof(wtext)));
	return 0;
}

int qd_usage_record_encode(const struct qd_usage_record *r, char *buf,
			   size_t len, char *err, size_t errlen)
{
	size_t n;
	int k;

	if (qd_usage_record_check(r, err, errlen))
		return -1;
	k = snprintf(buf, len, "%s", MAGIC);
	for (size_t i = 0; i < NFIELDS && k >= 0 && (size_t)k < len; i++) {
		const void *p = (const char *)r + fields[i].off;
		const char *key = fields[i].key;
		int w;

		n = k;
		switch (fields[i].type) {
		case F_NAME:
		case F_NAME_OPT:
			w = snprintf(buf + n, len - n, " %s=%s", key,
				     (const char *)p);
			break;
		case F_U32:
			w = snprintf(buf + n, len - n, " %s=%" PRIu32, key,
				     *(const uint32_t *)p);
			break;
		case F_COUNT_OPT:
			w = *(const uint32_t *)p == QD_RESTART_UNKNOWN
				? snprintf(buf + n, len - n, " %s=", key)
				: snprintf(buf + n, len - n, " %s=%" PRIu32,
					   key, *(const uint32_t *)p);
			break;
		case F_I64:
			w = snprintf(buf + n, len - n, " %s=%" PRId64, key,
				     *(const int64_t *)p);
			break;
		case F_MILLI32:
		case F_MILLI64: {
			char num[32];

			w = snprintf(buf + n, len - n, " %s=%s", key,
				     qd_milli_text(fields[i].type == F_MILLI32
						       ? *(const uint32_t *)p
						       : *(const uint64_t *)p,
						   num, sizeof(num)));
			break;
		}
		default:
			w = -1;
			break;
		}
		k = w < 0 ? -1 : k + w;
	}
	if (k >= 0 && (size_t)k + 1 < len) {
		buf[k++] = '\n';
		buf[k] = '\0';
		return k;
	}
	return fail(err, errlen, "does not fit in %zu bytes", len);
}

/* Decimal digits, no sign, no leading zero; at most max. */
static int parse_number(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!len || (len > 1 && s[0] == '0'))
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' ||
		    __builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(s[i] - '0'), &v))
			return -1;
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * Thousandths: version 3 writes "W" or "W.F", F one to three digits without
 * a trailing zero (one text per value); versions 1 and 2 whole numbers.
 */
static int parse_milli(const char *s, size_t len, int version, uint64_t max,
		       uint64_t *out)
{
	const char *dot = memchr(s, '.', len);
	size_t wlen = dot ? (size_t)(dot - s) : len, flen = len - wlen;
	uint64_t whole, frac = 0, v;

	if (parse_number(s, wlen, UINT64_MAX, &whole))
		return -1;
	if (dot) {
		/* flen counts the point: 2 to 4 bytes. */
		if (version < 3 || flen < 2 || flen > 4 || s[len - 1] == '0')
			return -1;
		for (size_t i = 1; i < 4; i++) {
			char c = i < flen ? dot[i] : '0';

			if (c < '0' || c > '9')
				return -1;
			frac = frac * 10 + (uint64_t)(c - '0');
		}
	}
	if (__builtin_mul_overflow(whole, 1000, &v) ||
	    __builtin_add_overflow(v, frac, &v) || v > max)
		return -1;
	*out = v;
	return 0;
}

int qd_milli_parse(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	return parse_milli(s, len, 3, max, out);
}

const char *qd_milli_text(uint64_t milli, char *buf, size_t len)
{
	unsigned f = (unsigned)(milli % 1000);
	int digits = 3;

	if (!f) {
		snprintf(buf, len, "%" PRIu64, milli / 1000);
		return buf;
	}
	for (; f % 10 == 0; f /= 10)
		digits--;
	snprintf(buf, len, "%" PRIu64 ".%0*u", milli / 1000, digits, f);
	return buf;
}

static int decode_value(const struct field *f, const char *s, size_t len,
			int version, struct qd_usage_record *r, char *err,
			size_t errlen)
{
	void *p = (char *)r + f->off;
	char text[48];
	uint64_t v;

	switch (f->type) {
	case F_NAME:
	case F_NAME_OPT:
		if (len >= QD_NAME_MAX || (!len && f->type == F_NAME))
			break;
		memcpy(p, s, len);
		((char *)p)[len] = '\0';
		if (len && !qd_usage_name_ok(p))
			break;
		return 0;
	case F_U32:
		if (parse_number(s, len, UINT32_MAX, &v))
			break;
		*(uint32_t *)p = v;
		return 0;
	case F_COUNT_OPT:
		if (len && parse_number(s, len, QD_RESTART_UNKNOWN - 1, &v))
			break;
		*(uint32_t *)p = len ? (uint32_t)v : QD_RESTART_UNKNOWN;
		return 0;
	case F_I64:
		if (parse_number(s, len, INT64_MAX, &v))
			break;
		*(int64_t *)p = v;
		return 0;
	case F_MILLI32:
		if (parse_milli(s, len, version, UINT32_MAX, &v))
			break;
		*(uint32_t *)p = v;
		return 0;
	case F_MILLI64:
		if (parse_milli(s, len, version, UINT64_MAX, &v))
			break;
		*(uint64_t *)p = v;
		return 0;
	}
	return fail(err, errlen, "invalid %s '%s'", f->key,
		    sanitise(text, sizeof(text), s, len));
}

static int decode(const char *line, size_t len, struct qd_usage_record *r,
		  char *err, size_t errlen)
{
	static const char *const magic[] = {MAGIC_V1, MAGIC_V2, MAGIC};
	const char *p = line, *end = line + len;
	int version = 0;
	char text[48];

	/* Versions 1 (before the run's identity) and 2 (whole GPUs, names
	 * unescaped) are what earlier releases spooled: they still close and
	 * send after an upgrade, keeping their id (qd_usage_record_id); a
	 * version 1 record's run is unknown. All magics are one length. */
	for (int v = 0; v < 3; v++)
		if (len > strlen(magic[v]) &&
		    !memcmp(p, magic[v], strlen(magic[v])) &&
		    p[strlen(magic[v])] == ' ')
			version = v + 1;
	if (!version)
		return fail(err, errlen, "not a version 1, 2 or 3 record '%s'",
			    sanitise(text, sizeof(text), line, len));
	if (version == 1)
		r->restart = QD_RESTART_UNKNOWN;
	p += strlen(MAGIC) + 1;
	for (size_t i = 0; i < NFIELDS; i++) {
		size_t klen = strlen(fields[i].key);
		const char *v, *stop;

		if (version == 1 && fields[i].v2)
			continue;
		if ((size_t)(end - p) <= klen ||
		    memcmp(p, fields[i].key, klen) || p[klen] != '=')
			return fail(
			    err, errlen,
			    "expected '%s=' at byte %zu, found '%s'",
			    fields[i].key, (size_t)(p - line),
			    sanitise(text, sizeof(text), p, (size_t)(end - p)));
		v = p + klen + 1;
		stop = memchr(v, ' ', end - v);
		if (!stop)
			stop = end;
		if (decode_value(&fields[i], v, stop - v, version, r, err,
				 errlen))
			return -1;
		if (i + 1 < NFIELDS && stop == end)
			return fail(err, errlen, "missing fields after '%s'",
				    fields[i].key);
		p = stop + (i + 1 < NFIELDS);
	}
	if (p != end)
		return fail(err, errlen,
			    "unexpected text after the last field "
			    "'%s'",
			    sanitise(text, sizeof(text), p, (size_t)(end - p)));
	return qd_usage_record_check(r, err, errlen);
}

int qd_usage_record_decode(const char *buf, size_t len,
			   struct qd_usage_record *r, char *err, size_t errlen)
{
	int rv = -1;

	memset(r, 0, sizeof(*r));
	if (len > QD_RECORD_MAX) {
		fail(err, errlen, "too long (%zu bytes, at most %d)", len,
		     QD_RECORD_MAX);
		goto fail;
	}
	if (!len || buf[len - 1] != '\n') {
		fail(err, errlen, "not ended by a newline (truncated?)");
		goto fail;
	}
	if (memchr(buf, '\n', len - 1) || memchr(buf, '\0', len)) {
		fail(err, errlen, "more than one line, or a NUL byte");
		goto fail;
	}
	if (decode(buf, len - 1, r, err, errlen))
		goto fail;
	rv = 0;
fail:
	if (rv)
		memset(r, 0, sizeof(*r));
	return rv;
}

bool qd_usage_record_same_run(const struct qd_usage_record *a,
			      const struct qd_usage_record *b)
{
	return a->job_id == b->job_id && !strcmp(a->cluster, b->cluster) &&
	       !strcmp(a->node, b->node) &&
	       (a->restart == QD_RESTART_UNKNOWN ||
		b->restart == QD_RESTART_UNKNOWN || a->restart == b->restart) &&
	       (!a->job_start || !b->job_start || a->job_start == b->job_start);
}

int qd_usage_record_id(const struct qd_usage_record *r, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%" PRIu32 "/%s/%" PRId64, r->cluster,
			 r->job_id, r->node, r->start);

	return n < 0 || (size_t)n >= len ? -1 : n;
}

const char *qd_usage_record_text(const struct qd_usage_record *r, char *buf,
				 size_t len)
{
	char err[QD_RECORD_ERR_MAX];
	int n = qd_usage_record_encode(r, buf, len, err, sizeof(err));

	if (n <= 0)
		snprintf(buf, len, "(%s)", err);
	else
		buf[n - 1] = '\0';
	return buf;
}
