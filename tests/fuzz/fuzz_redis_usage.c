/* SPDX-License-Identifier: GPL-2.0-or-later
 * What the usage store's readers (`qosdeny share`, the site factor) take
 * from Redis's replies, which any client of a Redis
 * without a password may have written: a usage key's name from SCAN
 * (qd_usage_key_parse), a running job's entry from HGETALL
 * (qd_running_entry_parse), a hashed name's mapping from GET
 * (qd_name_unescape, as redis_names.c reads it) and a usage hash's value
 * from HMGET (qd_usage_number_parse).
 *
 * Input: one byte choosing the parser (modulo 4: 0 a key under the prefix
 * "qosdeny:{qd}:", 1 an entry, 2 a mapping, 3 a value), then the bytes as
 * Redis would hold them, NULs and all. Checks, beyond the sanitizers:
 *   - a key is accepted exactly when a second, plain reading of the forms in
 *     redis_usage.h accepts it ("account:" and an account, possibly empty;
 *     "assoc:", an account, possibly empty, ':' and a user; names of 1 to 63
 *     characters from the allowed set or canonical %XX escapes; no NUL),
 *     and yields the same kind and names: the key, written back from them,
 *     is the input;
 *   - an entry is accepted exactly when the plain reading accepts it (six
 *     fields between runs of blanks: two names, four decimal numbers below
 *     2^64; no NUL; under 224 bytes), and yields the same names and
 *     numbers;
 *   - a mapping, read into a buffer of its own length as redis_names.c
 *     does, is a name without NUL no longer than the text, and reading it
 *     shown again (qd_name_shown) gives the same name;
 *   - a usage hash's value (v or t from HMGET) is accepted exactly when a
 *     plain reading of redis_usage.h's form accepts it (digits, then
 *     optionally '.' and digits, then optionally an exponent; nothing else)
 *     and it is finite, and then it is strtod's value of the text.
 */
#include <math.h>

#include "fuzz_util.h"
#include "names.h"
#include "redis_usage.h"
#include "running_usage.h"

#define PREFIX	  "qosdeny:{qd}:"
#define ENTRY_LEN (2 * QD_NAME_MAX + 96) /* running_usage.c's ENTRY_MAX */

/* Decimal digits only, below 2^64. */
static bool model_number(const char *s, size_t len, uint64_t *v)
{
	unsigned __int128 x;

	if (!fuzz_digits(s, len, UINT64_MAX, &x) || x > UINT64_MAX)
		return false;
	*v = (uint64_t)x;
	return true;
}

static void fuzz_key(const char *k, size_t n)
{
	char account[QD_NAME_MAX], user[QD_NAME_MAX], back[512];
	const size_t plen = sizeof(PREFIX) - 1;
	enum qd_usage_kind kind, mkind = QD_USAGE_ACCOUNT;
	const char *rest = k + plen, *colon;
	size_t rlen = n - plen;
	bool model = false;
	int rc;

	if (n >= plen && !memchr(k, '\0', n) && !memcmp(k, PREFIX, plen)) {
		if (rlen >= 8 && !memcmp(rest, "account:", 8)) {
			model = fuzz_model_name(rest + 8, rlen - 8, true);
		} else if (rlen >= 6 && !memcmp(rest, "assoc:", 6)) {
			mkind = QD_USAGE_ASSOC;
			colon = memchr(rest + 6, ':', rlen - 6);
			model =
			    colon &&
			    fuzz_model_name(rest + 6,
					    (size_t)(colon - rest - 6), true) &&
			    fuzz_model_name(colon + 1,
					    (size_t)(k + n - colon - 1), false);
		}
	}
	rc = qd_usage_key_parse(PREFIX, k, n, &kind, account, user);
	FUZZ_ASSERT((rc == 0) == model, "key: parser %d, model %d", rc, model);
	if (rc)
		return;
	FUZZ_ASSERT(kind == mkind, "key: kind %d, model %d", kind, mkind);
	FUZZ_ASSERT(kind == QD_USAGE_ASSOC || !user[0], "key: user '%s'", user);
	if (kind == QD_USAGE_ACCOUNT)
		snprintf(back, sizeof(back), PREFIX "account:%s", account);
	else
		snprintf(back, sizeof(back), PREFIX "assoc:%s:%s", account,
			 user);
	FUZZ_ASSERT(strlen(back) == n && !memcmp(back, k, n),
		    "key: written back as '%s'", back);
}

static void fuzz_entry(const char *s, size_t n)
{
	const char *f[7];
	size_t flen[7], nf = 0, i = 0;
	uint64_t mv[4], gs, seen;
	char account[QD_NAME_MAX], user[QD_NAME_MAX];
	bool model = n < ENTRY_LEN && !memchr(s, '\0', n);
	int rc;

	while (model && i < n && nf < 7) {
		while (i < n && s[i] == ' ')
			i++;
		if (i == n)
			break;
		f[nf] = s + i;
		while (i < n && s[i] != ' ')
			i++;
		flen[nf] = (size_t)(s + i - f[nf]);
		nf++;
	}
	model = model && nf == 6 && fuzz_model_name(f[0], flen[0], false) &&
		fuzz_model_name(f[1], flen[1], false);
	for (int k = 0; model && k < 4; k++)
		model = model_number(f[2 + k], flen[2 + k], &mv[k]);
	rc = qd_running_entry_parse(s, n, account, user, &gs, &seen);
	FUZZ_ASSERT((rc == 0) == model, "entry: parser %d, model %d", rc,
		    model);
	if (rc)
		return;
	FUZZ_ASSERT(strlen(account) == flen[0] &&
			!memcmp(account, f[0], flen[0]),
		    "entry: account '%s'", account);
	FUZZ_ASSERT(strlen(user) == flen[1] && !memcmp(user, f[1], flen[1]),
		    "entry: user '%s'", user);
	FUZZ_ASSERT(gs == mv[0] && seen == mv[3],
		    "entry: %" PRIu64 " %" PRIu64 ", model %" PRIu64
		    " %" PRIu64,
		    gs, seen, mv[0], mv[3]);
}

static void fuzz_mapping(const char *s, size_t n)
{
	char *name = malloc(n + 1), *shown, *again;

	if (!name)
		return;
	/* redis_names.c refuses a reply with a NUL before unescaping. */
	if (strlen(s) != n || qd_name_unescape(s, name, n + 1)) {
		free(name);
		return;
	}
	FUZZ_ASSERT(name[0] && strlen(name) <= n, "mapping: '%s'", name);
	shown = qd_name_shown(name);
	again = malloc(n + 1);
	FUZZ_ASSERT(shown && again, "mapping: out of memory");
	FUZZ_ASSERT(strlen(shown) <= 3 * strlen(name) &&
			!qd_name_unescape(shown, again, strlen(shown) + 1) &&
			!strcmp(again, name),
		    "mapping: '%s' shown as '%s' reads back otherwise", name,
		    shown);
	free(again);
	free(shown);
	free(name);
}

/* Digits from s[*i], at least one. */
static bool model_digits(const char *s, size_t n, size_t *i)
{
	size_t from = *i;

	while (*i < n && s[*i] >= '0' && s[*i] <= '9')
		(*i)++;
	return *i > from;
}

static void fuzz_number(const char *s, size_t n)
{
	size_t i = 0;
	double v = -1, want = 0;
	bool model = model_digits(s, n, &i);
	int rc;

	if (model && i < n && s[i] == '.') {
		i++;
		model_digits(s, n, &i);
	}
	if (model && i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		model = model_digits(s, n, &i);
	}
	model = model && i == n;
	if (model) {
		want = strtod(s, NULL);
		model = isfinite(want);
	}
	rc = qd_usage_number_parse(s, n, &v);
	FUZZ_ASSERT((rc == 0) == model, "value: parser %d, model %d", rc,
		    model);
	FUZZ_ASSERT(rc ? v == -1 : v == want && v >= 0,
		    "value: %.17g, model %.17g", v, want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (!size)
		return 0;
	/* The NUL after the bytes is the one hiredis puts after every
	 * string. */
	text = fuzz_strndup(data + 1, size - 1);
	if (data[0] % 4 == 1)
		fuzz_entry(text, size - 1);
	else if (data[0] % 4 == 2)
		fuzz_mapping(text, size - 1);
	else if (data[0] % 4 == 3)
		fuzz_number(text, size - 1);
	else
		fuzz_key(text, size - 1);
	free(text);
	return 0;
}
