/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_tres_parse: sacctmgr's TRES syntax, as an admin writes it in
 * qosdeny.conf (MaxTRESPerJob=... and the others), parsed inside slurmctld.
 *
 * Input: one TRES string, or two separated by the first '\n'. The first is
 * parsed into an empty vector, the second merged into the result, so that
 * both "leaves *out untouched on error" and the merge are exercised. Checks,
 * beyond the sanitizers:
 *   - on error *out is byte for byte what it was, and err is a terminated,
 *     non-empty message within errlen;
 *   - a merge succeeds exactly when the second string parses on its own and
 *     the types of both fit in one vector, and yields its values on top of
 *     the earlier ones;
 *   - every item of a string that parsed was read as tres.h describes
 *     (digits, -1, mem suffixes; values that would not fit are refused);
 *   - typed entries stay lowercase, sorted and unique;
 *   - printing a parsed vector back in TRES syntax and parsing that gives the
 *     same vector (nothing is lost or rescaled);
 *   - qd_tres_format_value fits any buffer length and matches snprintf.
 */
#include <strings.h>

#include "fuzz_util.h"

/* The vector in TRES syntax: mem in MiB ("M"), unlimited as -1. */
static void to_text(const struct qd_tres *t, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int id = 0; id < QD_TRES_FIXED; id++) {
		if (!t->set[id])
			continue;
		if (t->v[id] == QD_UNLIMITED)
			off += snprintf(buf + off, len - off, "%s%s=-1",
					off ? "," : "", qd_tres_name(id));
		else
			off +=
			    snprintf(buf + off, len - off, "%s%s=%" PRIu64 "%s",
				     off ? "," : "", qd_tres_name(id), t->v[id],
				     id == QD_TRES_MEM ? "M" : "");
	}
	for (size_t i = 0; i < t->ntyped; i++) {
		if (t->typed[i].value == QD_UNLIMITED)
			off +=
			    snprintf(buf + off, len - off, "%sgres/gpu:%s=-1",
				     off ? "," : "", t->typed[i].type);
		else
			off +=
			    snprintf(buf + off, len - off,
				     "%sgres/gpu:%s=%" PRIu64, off ? "," : "",
				     t->typed[i].type, t->typed[i].value);
	}
	FUZZ_ASSERT(off < len, "text form too long");
}

/*
 * An item's value as tres.h describes it, computed in 128 bits: -1 for
 * unlimited, digits with (mem only) one K/M/G/T/P suffix, K rounding up to
 * whole MiB. Returns false when the text is not such a value or does not fit
 * below QD_UNLIMITED.
 */
static bool ref_value(const char *s, size_t len, bool mem, uint64_t *out)
{
	static const char units[] = "KMGTP";
	unsigned __int128 v = 0, scale = 1;
	bool kib = false;
	const char *u;

	if (len == 2 && !memcmp(s, "-1", 2)) {
		*out = QD_UNLIMITED;
		return true;
	}
	if (mem && len > 1 && (u = memchr(units, s[len - 1] & ~0x20, 5)) &&
	    ((s[len - 1] >= 'a' && s[len - 1] <= 'z') ||
	     (s[len - 1] >= 'A' && s[len - 1] <= 'Z'))) {
		kib = u == units;
		for (const char *k = units + 1; k < u; k++)
			scale *= 1024;
		len--;
	}
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
		if (v >= QD_UNLIMITED)
			return false;
	}
	if (kib)
		v = (v + 1023) / 1024;
	else
		v *= scale;
	if (v >= QD_UNLIMITED)
		return false;
	*out = (uint64_t)v;
	return true;
}

/* Each item of a string that parsed must have the value ref_value gives. */
static void check_values(const char *text, const struct qd_tres *t)
{
	char *copy = strdup(text), *save = NULL;

	for (char *it = strtok_r(copy, ",", &save); it;
	     it = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(it, '=');
		uint64_t want, got = 0;
		bool mem = false, found = false;

		FUZZ_ASSERT(eq, "item '%s' without '='", it);
		*eq = '\0';
		for (int id = 0; id < QD_TRES_FIXED && !found; id++)
			if (!strcasecmp(it, qd_tres_name(id))) {
				found = true;
				mem = id == QD_TRES_MEM;
				got = t->v[id];
			}
		if (!found) {
			FUZZ_ASSERT(!strncasecmp(it, "gres/gpu:", 9),
				    "unknown TRES '%s' accepted", it);
			got = qd_tres_get_typed(t, it + 9, 0);
		}
		FUZZ_ASSERT(ref_value(eq + 1, strlen(eq + 1), mem, &want),
			    "'%s=%s' accepted", it, eq + 1);
		FUZZ_ASSERT(got == want, "'%s=%s' read as %" PRIu64, it, eq + 1,
			    got);
	}
	free(copy);
}

static void check_round_trip(const struct qd_tres *t)
{
	char text[2048], err[256];
	struct qd_tres back;

	if (!t->set[0] && !t->set[1] && !t->set[2] && !t->set[3] && !t->ntyped)
		return; /* "" is not valid TRES syntax */
	to_text(t, text, sizeof(text));
	qd_tres_init(&back);
	FUZZ_ASSERT(qd_tres_parse(text, &back, err, sizeof(err)) == 0,
		    "own output '%s' rejected: %s", text, err);
	FUZZ_ASSERT(fuzz_tres_equal(t, &back), "'%s' read back differently",
		    text);
}

static void check_format(const struct qd_tres *t, size_t len)
{
	for (int id = 0; id < QD_TRES_FIXED; id++) {
		char want[64];
		char *buf = len ? malloc(len) : NULL;
		uint64_t v = t->set[id] ? t->v[id] : QD_UNLIMITED;

		if (v == QD_UNLIMITED)
			snprintf(want, sizeof(want), "unlimited");
		else
			snprintf(want, sizeof(want), "%" PRIu64 "%s", v,
				 id == QD_TRES_MEM ? "M" : "");
		qd_tres_format_value(id, v, buf, len);
		if (len) {
			FUZZ_ASSERT(
			    strlen(buf) ==
				(strlen(want) < len ? strlen(want) : len - 1),
			    "'%s' for '%s' in %zu", buf, want, len);
			FUZZ_ASSERT(!strncmp(buf, want, strlen(buf)),
				    "'%s' for '%s'", buf, want);
		}
		free(buf);
	}
}

/* Parses text into *t, checking what happens to *t and err either way. */
static int parse(const char *text, struct qd_tres *t, size_t errlen)
{
	struct qd_tres before = *t;
	char *err = fuzz_errbuf(errlen);
	int rc = qd_tres_parse(text, t, err, errlen);

	FUZZ_ASSERT(rc == 0 || rc == -1, "rc %d", rc);
	fuzz_check_err(err, errlen, rc);
	if (rc)
		FUZZ_ASSERT(!memcmp(&before, t, sizeof(*t)),
			    "vector changed by a failed parse");
	fuzz_check_typed(t);
	free(err);
	return rc;
}

static bool has_type(const struct qd_tres *t, const char *type)
{
	return qd_tres_get_typed(t, type, 0) == qd_tres_get_typed(t, type, 1);
}

/* After merging alone into old, giving merged. */
static void check_merge(const struct qd_tres *old, const struct qd_tres *alone,
			const struct qd_tres *merged)
{
	size_t extra = 0;

	for (int id = 0; id < QD_TRES_FIXED; id++) {
		const struct qd_tres *src = alone->set[id] ? alone : old;

		FUZZ_ASSERT(merged->set[id] == src->set[id], "set[%d]", id);
		FUZZ_ASSERT(!src->set[id] || merged->v[id] == src->v[id],
			    "v[%d]", id);
	}
	for (size_t i = 0; i < alone->ntyped; i++) {
		const char *ty = alone->typed[i].type;

		FUZZ_ASSERT(qd_tres_get_typed(merged, ty, 0) ==
				alone->typed[i].value,
			    "type %s", ty);
		extra += !has_type(old, ty);
	}
	for (size_t i = 0; i < old->ntyped; i++)
		if (!has_type(alone, old->typed[i].type))
			FUZZ_ASSERT(qd_tres_get_typed(merged,
						      old->typed[i].type,
						      0) == old->typed[i].value,
				    "type %s", old->typed[i].type);
	FUZZ_ASSERT(merged->ntyped == old->ntyped + extra, "ntyped %zu",
		    merged->ntyped);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t errlens[] = {256, 0, 1, 20, 512};
	size_t errlen = errlens[size % 5];
	char *text = fuzz_strndup(data, size);
	char *second = strchr(text, '\n');
	struct qd_tres t, alone, merged;

	if (second)
		*second++ = '\0';
	qd_tres_init(&t);
	if (parse(text, &t, errlen) == 0) {
		check_values(text, &t);
		check_round_trip(&t);
	}
	check_format(&t, size % 24);
	if (second) {
		qd_tres_init(&alone);
		merged = t;
		if (parse(second, &alone, errlen) == 0) {
			bool fits = true;
			size_t n = t.ntyped;

			for (size_t i = 0; i < alone.ntyped; i++)
				n += !has_type(&t, alone.typed[i].type);
			fits = n <= QD_TYPES_MAX;
			FUZZ_ASSERT((parse(second, &merged, errlen) == 0) ==
					fits,
				    "merge of '%s' (%zu types)", second, n);
			if (fits)
				check_merge(&t, &alone, &merged);
		} else {
			FUZZ_ASSERT(parse(second, &merged, errlen) == -1,
				    "'%s' merged but not parsed alone", second);
		}
	}
	free(text);
	return 0;
}
