/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_policy_parse: the whole of qosdeny.conf, which slurmctld parses at start
 * and again whenever the file changes. The input is the file's text (bytes
 * after a NUL are not seen, as with a file read into a string).
 *
 * Checks, beyond the sanitizers (leaks included: a failed parse must free
 * what it built):
 *   - failure gives a terminated "<path>:..." message within errlen;
 *   - what parsed keeps the header's promises: half-life > 0, names that fit,
 *     every rule with at least one known flag, no two rules for one QoS or
 *     two share records for one association;
 *   - qd_policy_rule finds each rule by its name in any case, and only
 *     rules it has; qd_policy_is_exempt finds each exempt user exactly;
 *   - every blank-separated word of the input, as a QoS or user name, gives
 *     an answer consistent with the lists (reading them is the oracle);
 *   - qd_policy_check (qosdeny check: goes on past a bad record) finds no
 *     error exactly when qd_policy_parse succeeds, reports as many as it
 *     returns, each a terminated "<path>:..." line, and reports first the
 *     error qd_policy_parse stops at.
 */
#include <ctype.h>
#include <strings.h>

#include "fuzz_util.h"
#include "policy.h"

#define PATH "fuzz.conf"
#define ALL_FLAGS                                                              \
	(QD_DENY_ON_MAX_PER_JOB | QD_DENY_ON_MAX_PER_USER | QD_DENY_ON_GRP)

static bool terminated(const char *s)
{
	return memchr(s, '\0', QD_NAME_MAX) != NULL;
}

static void check_tres(const struct qd_tres *t)
{
	fuzz_check_typed(t);
	for (size_t i = 0; i < t->ntyped; i++)
		FUZZ_ASSERT(t->typed[i].type[0], "empty GPU type");
}

static void check_rules(const struct qd_policy *p)
{
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct qd_qos_rule *r = &p->rules[i];
		char upper[QD_NAME_MAX];

		FUZZ_ASSERT(terminated(r->name) && r->name[0], "rule %zu name",
			    i);
		FUZZ_ASSERT(r->flags && !(r->flags & ~ALL_FLAGS),
			    "rule %s flags %#x", r->name, r->flags);
		FUZZ_ASSERT(r->line > 0, "rule %s line %d", r->name, r->line);
		check_tres(&r->max_per_job);
		check_tres(&r->max_per_user);
		check_tres(&r->grp);
		FUZZ_ASSERT(qd_policy_rule(p, r->name) == r, "rule %s lookup",
			    r->name);
		for (size_t k = 0; k < sizeof(upper); k++)
			upper[k] = toupper((unsigned char)r->name[k]);
		FUZZ_ASSERT(qd_policy_rule(p, upper) == r, "rule %s by %s",
			    r->name, upper);
	}
}

static void check_shares(const struct qd_policy *p)
{
	for (size_t i = 0; i < p->n_shares; i++) {
		const struct qd_share_rule *s = &p->shares[i];

		FUZZ_ASSERT(terminated(s->account) && s->account[0],
			    "share %zu account", i);
		FUZZ_ASSERT(terminated(s->user), "share %zu user", i);
		FUZZ_ASSERT(s->shares > 0, "share %zu: 0 shares", i);
		for (size_t k = 0; k < i; k++)
			FUZZ_ASSERT(
			    strcasecmp(p->shares[k].account, s->account) ||
				strcasecmp(p->shares[k].user, s->user),
			    "share record %s/%s twice", s->account, s->user);
	}
}

/* Asks about one name, checking against a plain scan of the lists. */
static void probe(const struct qd_policy *p, const char *name)
{
	const struct qd_qos_rule *want = NULL;
	bool exempt = false;

	for (size_t i = 0; i < p->n_rules && !want; i++)
		if (!strcasecmp(p->rules[i].name, name))
			want = &p->rules[i];
	for (size_t i = 0; i < p->n_exempt; i++)
		exempt |= !strcmp(p->exempt_users[i], name);
	FUZZ_ASSERT(qd_policy_rule(p, name) == want, "rule for '%s'", name);
	FUZZ_ASSERT(qd_policy_is_exempt(p, name) == exempt, "exempt '%s'",
		    name);
}

static void check_policy(const struct qd_policy *p, const char *text)
{
	char *words = strdup(text), *save = NULL;

	FUZZ_ASSERT(p->usage_half_life_s > 0, "half-life 0");
	for (size_t i = 0; i < p->n_exempt; i++) {
		FUZZ_ASSERT(terminated(p->exempt_users[i]) &&
				p->exempt_users[i][0],
			    "exempt user %zu", i);
		FUZZ_ASSERT(qd_policy_is_exempt(p, p->exempt_users[i]),
			    "exempt user %s not found", p->exempt_users[i]);
	}
	check_rules(p);
	check_shares(p);
	probe(p, "");
	for (char *w = strtok_r(words, " \t\r\n=,\\#", &save); w;
	     w = strtok_r(NULL, " \t\r\n=,\\#", &save))
		probe(p, w);
	free(words);
}

struct reports {
	int n;
	char first[QD_ERR_MAX];
};

static void report(const char *err, void *arg)
{
	struct reports *r = arg;

	FUZZ_ASSERT(memchr(err, '\0', QD_ERR_MAX), "report not terminated");
	FUZZ_ASSERT(!strncmp(err, PATH ":", strlen(PATH ":")),
		    "report '%s' without the path", err);
	if (!r->n++)
		snprintf(r->first, sizeof(r->first), "%s", err);
}

/* qd_policy_check against qd_policy_parse with a full-size buffer. */
static void check_all_errors(const char *text, bool parsed)
{
	struct reports r = {0};
	char err[QD_ERR_MAX];
	struct qd_policy *p = qd_policy_parse(PATH, text, err, sizeof(err));
	int n = qd_policy_check(PATH, text, report, &r);

	FUZZ_ASSERT(!p == !parsed, "parse differs with a larger buffer");
	FUZZ_ASSERT(n == r.n, "%d errors returned, %d reported", n, r.n);
	FUZZ_ASSERT((n == 0) == parsed, "%d errors, parse %s", n,
		    parsed ? "succeeded" : "failed");
	if (n > 0)
		FUZZ_ASSERT(!strcmp(r.first, err), "first '%s', parse '%s'",
			    r.first, err);
	qd_policy_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t errlens[] = {QD_ERR_MAX, 0, 1, 12, 64};
	size_t errlen = errlens[size % 5];
	char *text = fuzz_strndup(data, size);
	char *err = fuzz_errbuf(errlen);
	struct qd_policy *p = qd_policy_parse(PATH, text, err, errlen);
	bool parsed = p != NULL;

	if (p) {
		check_policy(p, text);
		qd_policy_free(p);
	} else {
		fuzz_check_err(err, errlen, true);
		if (errlen > strlen(PATH ":"))
			FUZZ_ASSERT(!strncmp(err, PATH ":", strlen(PATH ":")),
				    "error '%s' without the path", err);
	}
	check_all_errors(text, parsed);
	free(err);
	free(text);
	return 0;
}
