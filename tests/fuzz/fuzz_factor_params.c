/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_factor_params_parse: PrioritySiteFactorParameters of the site factor
 * (docs/fair-share.md, "GPU fair share in job priority"). Input: the first byte
 * picks the error buffer's length (below 0x80: that many bytes, 0 meaning none;
 * else QD_FACTOR_ERR_MAX); the rest, up to its first NUL, is the text.
 *
 * Checks:
 * - accepted exactly when a second, deliberately different reading of the
 *   grammar accepts it (all items split first, keys folded by hand, values
 *   compared as digit strings rather than converted), with the same weight
 *   and interval;
 * - a refusal says what that reading says, for the same item, in the
 *   parser's words ("unknown parameter", "KEY must be MIN to MAX:", "given
 *   twice:", "empty item in"), cut to the buffer and terminated within it;
 * - a refusal leaves the parameters as they were.
 */
#include <ctype.h>

#include "factor_params.h"
#include "fuzz_util.h"

struct ref {
	bool ok;
	uint32_t weight, interval;
	const char *what; /* refusal: the parser's words for it */
	const char *item; /* and the text it names */
	size_t len;
};

/* s[0..len) and lowercase word are equal, folding ASCII letters of s. */
static bool same_word(const char *s, size_t len, const char *word)
{
	size_t i = 0;

	for (; i < len && word[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if (c != (unsigned char)word[i])
			return false;
	}
	return i == len && !word[i];
}

/* Digit strings without their leading zeros, compared as numbers. */
static int cmp_digits(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b);

	while (alen > 1 && *a == '0')
		a++, alen--;
	if (alen != blen)
		return alen < blen ? -1 : 1;
	return memcmp(a, b, alen);
}

static bool in_range(const char *v, size_t len, const char *min,
		     const char *max, uint32_t *out)
{
	uint32_t x = 0;

	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)v[i]))
			return false;
	if (cmp_digits(v, len, min) < 0 || cmp_digits(v, len, max) > 0)
		return false;
	/* In range, so at most 7 significant digits: small enough now. */
	for (size_t i = 0; i < len; i++)
		x = x * 10 + (uint32_t)(v[i] - '0');
	*out = x;
	return true;
}

/* Every item first (n, some perhaps empty), then each in order. */
static struct ref check_items(const char *text, size_t total,
			      const char **start, size_t *len)
{
	struct ref r = {.ok = true, .weight = 10000, .interval = 60};
	bool seen_w = false, seen_i = false;
	size_t n = 0;

	for (size_t b = 0, i = 0; i <= total; i++) {
		if (i == total || text[i] == ',') {
			start[n] = text + b;
			len[n++] = i - b;
			b = i + 1;
		}
	}
	for (size_t k = 0; k < n; k++) {
		const char *it = start[k];
		const char *eq = memchr(it, '=', len[k]);
		size_t klen = eq ? (size_t)(eq - it) : len[k];
		const char *val = eq ? eq + 1 : NULL;
		size_t vlen = eq ? len[k] - klen - 1 : 0;
		bool *seen;
		uint32_t *out;
		const char *min, *max, *what;

		r.ok = false;
		r.item = it;
		r.len = len[k];
		if (!len[k]) {
			r.what = "empty item in";
			r.item = text;
			r.len = total;
			return r;
		}
		if (same_word(it, klen, "weight")) {
			seen = &seen_w;
			out = &r.weight;
			min = "0";
			max = "1000000";
			what = "weight must be 0 to 1000000:";
		} else if (same_word(it, klen, "interval")) {
			seen = &seen_i;
			out = &r.interval;
			min = "5";
			max = "3600";
			what = "interval must be 5 to 3600:";
		} else {
			r.what = "unknown parameter";
			return r;
		}
		if (*seen) {
			r.what = "given twice:";
			return r;
		}
		*seen = true;
		if (!val || !in_range(val, vlen, min, max, out)) {
			r.what = what;
			return r;
		}
		r.ok = true;
	}
	return r;
}

static struct ref reference(const char *text)
{
	size_t total = strlen(text);
	const char **start;
	size_t *len;
	struct ref r = {.ok = true, .weight = 10000, .interval = 60};

	if (!total)
		return r;
	start = calloc(total + 1, sizeof(*start));
	len = calloc(total + 1, sizeof(*len));
	if (!start || !len)
		abort();
	r = check_items(text, total, start, len);
	free(start);
	free(len);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t errlen = size ? data[0] : 0;
	char *text = fuzz_strndup(size ? data + 1 : data, size ? size - 1 : 0);
	struct qd_factor_params p = {0xdeadbeef, 0xfeedface};
	struct ref want;
	char *err, expect[QD_FACTOR_ERR_MAX + 64];
	int rc;

	if (errlen >= 0x80)
		errlen = QD_FACTOR_ERR_MAX;
	err = fuzz_errbuf(errlen);
	rc = qd_factor_params_parse(text, &p, err, errlen);
	want = reference(text);
	FUZZ_ASSERT(rc == 0 || rc == -1, "'%s': returned %d", text, rc);
	FUZZ_ASSERT((rc == 0) == want.ok, "'%s': %s, expected %s", text,
		    rc ? "refused" : "accepted",
		    want.ok ? "accepted" : "refused");
	if (!rc) {
		FUZZ_ASSERT(p.weight == want.weight &&
				p.interval_s == want.interval,
			    "'%s': weight %u interval %u, expected %u %u", text,
			    p.weight, p.interval_s, want.weight, want.interval);
		FUZZ_ASSERT(p.weight <= QD_FACTOR_WEIGHT_MAX &&
				p.interval_s >= QD_FACTOR_INTERVAL_MIN &&
				p.interval_s <= QD_FACTOR_INTERVAL_MAX,
			    "'%s': out of range", text);
	} else {
		FUZZ_ASSERT(p.weight == 0xdeadbeef &&
				p.interval_s == 0xfeedface,
			    "'%s': refused, but the parameters changed", text);
		fuzz_check_err(err, errlen, true);
		snprintf(expect, sizeof(expect),
			 "PrioritySiteFactorParameters: %s '%.*s'", want.what,
			 (int)(want.len > 200 ? 200 : want.len), want.item);
		if (errlen) {
			size_t n = strlen(expect);

			if (n > errlen - 1)
				n = errlen - 1;
			FUZZ_ASSERT(strlen(err) == n && !memcmp(err, expect, n),
				    "'%s': error '%s', expected '%.*s'", text,
				    err, (int)n, expect);
		}
	}
	free(err);
	free(text);
	return 0;
}
