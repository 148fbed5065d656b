/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny.conf in slurm.conf's syntax. A record is one logical line: the
 * physical lines joined where one ends in '\', with Slurm's own rule that the
 * next line is appended as is (no blank is inserted). Errors give the
 * physical line where the offending Key=Value starts; a record is known by
 * the line where it starts ("first on line N").
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "policy.h"

enum key {
	K_ENFORCE,
	K_EXEMPT_USERS,
	K_HALF_LIFE,
	K_FS_CLUSTERS,
	K_METRICS_DIR,
	K_METRICS_INTERVAL,
	K_METRICS_PER_USER,
	K_QOS,
	K_FLAGS,
	K_MAX_PER_JOB,
	K_MAX_PER_USER,
	K_GRP,
	K_ACCOUNT,
	K_USER,
	K_SHARES,
	K_COUNT
};

static const char *const key_names[K_COUNT] = {
    [K_ENFORCE] = "Enforce",
    [K_EXEMPT_USERS] = "ExemptUsers",
    [K_HALF_LIFE] = "UsageHalfLife",
    [K_FS_CLUSTERS] = "FairShareClusters",
    [K_METRICS_DIR] = "metrics_dir",
    [K_METRICS_INTERVAL] = "metrics_interval",
    [K_METRICS_PER_USER] = "metrics_per_user",
    [K_QOS] = "QOS",
    [K_FLAGS] = "Flags",
    [K_MAX_PER_JOB] = "MaxTRESPerJob",
    [K_MAX_PER_USER] = "MaxTRESPerUser",
    [K_GRP] = "GrpTRES",
    [K_ACCOUNT] = "Account",
    [K_USER] = "User",
    [K_SHARES] = "Shares",
};

enum kind { R_GLOBAL, R_QOS, R_ACCOUNT, R_USER, R_KINDS };

#define BIT(k) (1u << (k))

static const unsigned allowed[R_KINDS] = {
    [R_GLOBAL] = BIT(K_ENFORCE) | BIT(K_EXEMPT_USERS) | BIT(K_HALF_LIFE) |
		 BIT(K_FS_CLUSTERS) | BIT(K_METRICS_DIR) |
		 BIT(K_METRICS_INTERVAL) | BIT(K_METRICS_PER_USER),
    [R_QOS] = BIT(K_QOS) | BIT(K_FLAGS) | BIT(K_MAX_PER_JOB) |
	      BIT(K_MAX_PER_USER) | BIT(K_GRP),
    [R_ACCOUNT] = BIT(K_ACCOUNT) | BIT(K_SHARES),
    [R_USER] = BIT(K_USER) | BIT(K_ACCOUNT) | BIT(K_SHARES),
};

static const char *const where[R_KINDS] = {
    [R_GLOBAL] = "on a global line",
    [R_QOS] = "in a QOS record",
    [R_ACCOUNT] = "in an Account record",
    [R_USER] = "in a User record",
};

static const struct {
	const char *name;
	unsigned bit;
} flag_names[] = {
    {"DenyOnMaxPerJob", QD_DENY_ON_MAX_PER_JOB},
    {"DenyOnMaxPerUser", QD_DENY_ON_MAX_PER_USER},
    {"DenyOnGrp", QD_DENY_ON_GRP},
};

/* One logical line's Key=Value tokens by key. */
struct record {
	enum kind kind;
	int line; /* where the record starts */
	const char *tok[K_COUNT];
	const char *val[K_COUNT];
	int tok_line[K_COUNT];
};

struct parser {
	const char *path;
	char *err;
	size_t errlen;
	struct qd_policy *p;
	int global_line[K_COUNT]; /* where each global key was set */
	/* The logical line being assembled, with each byte's physical line. */
	char *buf;
	int *lines;
	size_t len, cap;
	/* When set, a bad record is reported and parsing goes on. */
	void (*report)(const char *err, void *arg);
	void *report_arg;
	int nerr;
	bool oom;
};

static int fail_n(struct parser *ps, int line, const char *text, int len,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int fail_n(struct parser *ps, int line, const char *text, int len,
		  const char *fmt, ...)
{
	char what[QD_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(ps->err, ps->errlen, "%s:%d: %s '%.*s'", ps->path, line, what,
		 len, text);
	return -1;
}

#define fail(ps, line, text, ...)                                              \
	fail_n(ps, line, text, (int)strlen(text), __VA_ARGS__)

static int out_of_memory(struct parser *ps)
{
	ps->oom = true;
	snprintf(ps->err, ps->errlen, "%s: out of memory", ps->path);
	return -1;
}

/* Index into key_names of a token's key, -1 when unknown. */
static int key_of(const char *tok)
{
	size_t len = strcspn(tok, "=");

	for (int k = 0; k < K_COUNT; k++)
		if (strlen(key_names[k]) == len &&
		    !strncasecmp(tok, key_names[k], len))
			return k;
	return -1;
}

/* Offset of the token at or after i, ps->len when there is none. */
static size_t next_token(const struct parser *ps, size_t i)
{
	while (i < ps->len && !ps->buf[i])
		i++;
	return i;
}

static size_t token_after(const struct parser *ps, size_t i)
{
	return next_token(ps, i + strlen(ps->buf + i));
}

/* The record key decides the type, wherever it stands on the line, so
 * that "Account=a User=b" is read as the User record it is meant to be. */
static enum kind classify(const struct parser *ps)
{
	unsigned keys = 0;

	for (size_t i = next_token(ps, 0); i < ps->len;
	     i = token_after(ps, i)) {
		int k = key_of(ps->buf + i);

		if (k >= 0)
			keys |= BIT(k);
	}
	if (keys & BIT(K_QOS))
		return R_QOS;
	if (keys & BIT(K_USER))
		return R_USER;
	if (keys & BIT(K_ACCOUNT))
		return R_ACCOUNT;
	return R_GLOBAL;
}

static int collect_token(struct parser *ps, struct record *r, const char *tok,
			 int line)
{
	const char *eq = strchr(tok, '=');
	int k = key_of(tok);
	int first;

	if (k < 0)
		return fail(ps, line, tok, "unknown key");
	if (!(allowed[r->kind] & BIT(k)))
		return fail(ps, line, tok, "key not allowed %s",
			    where[r->kind]);
	/* Global keys may be spread over lines, but each is set once. */
	first = r->kind == R_GLOBAL ? ps->global_line[k] : r->tok_line[k];
	if (first)
		return fail(ps, line, tok, "repeated key (first on line %d)",
			    first);
	if (!eq || !eq[1])
		return fail(ps, line, tok, "missing value");
	r->tok[k] = tok;
	r->val[k] = eq + 1;
	r->tok_line[k] = line;
	if (r->kind == R_GLOBAL)
		ps->global_line[k] = line;
	return 0;
}

static int collect(struct parser *ps, struct record *r)
{
	r->kind = classify(ps);
	r->line = ps->lines[next_token(ps, 0)];
	for (size_t i = next_token(ps, 0); i < ps->len; i = token_after(ps, i))
		if (collect_token(ps, r, ps->buf + i, ps->lines[i]))
			return -1;
	return 0;
}

static int check_name(struct parser *ps, const struct record *r, enum key k)
{
	if (strlen(r->val[k]) < QD_NAME_MAX)
		return 0;
	return fail(ps, r->tok_line[k], r->tok[k],
		    "name too long (at most %d characters)", QD_NAME_MAX - 1);
}

static int set_enforce(struct parser *ps, const struct record *r)
{
	const char *v = r->val[K_ENFORCE];

	if (!strcasecmp(v, "yes"))
		ps->p->enforce = true;
	else if (!strcasecmp(v, "no"))
		ps->p->enforce = false;
	else
		return fail(ps, r->tok_line[K_ENFORCE], r->tok[K_ENFORCE],
			    "Enforce must be yes or no");
	return 0;
}

/* An array of n that only this file appends to, with room for one more:
 * its capacity is the power of two at or above n, so it doubles when n
 * reaches one (NULL: out of memory, the array as it was). One realloc per
 * element copied a 2,000-QoS file's rules (2 kB each) 2,000 times over. */
static void *grow(void *array, size_t n, size_t size)
{
	if (n & (n - 1))
		return array;
	return realloc(array, (n ? 2 * n : 1) * size);
}

/* One name onto a list of names (ExemptUsers, FairShareClusters). */
static int add_name(struct parser *ps, char (**list)[QD_NAME_MAX], size_t *n,
		    const char *name, size_t len)
{
	char(*names)[QD_NAME_MAX] = grow(*list, *n, sizeof(*names));

	if (!names)
		return out_of_memory(ps);
	*list = names;
	memcpy(names[*n], name, len);
	names[(*n)++][len] = '\0';
	return 0;
}

/*
 * A comma-separated list of names. what names one in errors ("user",
 * "cluster"). Cluster names stand in Redis keys, so they must be names a
 * usage record accepts; a cluster listed twice would count twice.
 */
static int set_names(struct parser *ps, const struct record *r, int k,
		     const char *what, char (**list)[QD_NAME_MAX], size_t *n)
{
	const char *tok = r->tok[k];
	int line = r->tok_line[k];

	for (const char *v = r->val[k];; v++) {
		size_t len = strcspn(v, ",");

		if (len == 0)
			return fail(ps, line, tok, "empty %s name in", what);
		if (len >= QD_NAME_MAX)
			return fail_n(ps, line, v, len,
				      "name too long (at most %d characters)",
				      QD_NAME_MAX - 1);
		if (add_name(ps, list, n, v, len))
			return -1;
		if (k == K_FS_CLUSTERS) {
			if (*n > QD_FS_CLUSTERS_MAX)
				return fail_n(ps, line, v, len,
					      "more than %d clusters",
					      QD_FS_CLUSTERS_MAX);
			if (!qd_usage_name_ok((*list)[*n - 1]))
				return fail_n(ps, line, v, len,
					      "invalid cluster name");
			for (size_t i = 0; i + 1 < *n; i++)
				if (!strcmp((*list)[i], (*list)[*n - 1]))
					return fail_n(ps, line, v, len,
						      "cluster listed twice");
		}
		v += len;
		if (!*v)
			return 0;
	}
}

static int set_half_life(struct parser *ps, const struct record *r)
{
	int64_t t = qd_parse_slurm_time(r->val[K_HALF_LIFE]);
	int line = r->tok_line[K_HALF_LIFE];

	if (t < 0)
		return fail(ps, line, r->tok[K_HALF_LIFE],
			    "invalid time (Slurm syntax, e.g. 7-0 for 7 days)");
	if (t == 0)
		return fail(ps, line, r->tok[K_HALF_LIFE],
			    "UsageHalfLife must be more than 0");
	ps->p->usage_half_life_s = t;
	return 0;
}

/* metrics_dir=, metrics_interval=, metrics_per_user= (docs/metrics.md):
 * an absolute directory, whole seconds, yes or no. */
static int set_metrics(struct parser *ps, const struct record *r)
{
	const char *v;

	if ((v = r->val[K_METRICS_DIR])) {
		if (*v != '/')
			return fail(ps, r->tok_line[K_METRICS_DIR],
				    r->tok[K_METRICS_DIR],
				    "metrics_dir must be an absolute path");
		if (strlen(v) >= sizeof(ps->p->metrics_dir))
			return fail(ps, r->tok_line[K_METRICS_DIR],
				    r->tok[K_METRICS_DIR],
				    "path too long (at most %zu characters)",
				    sizeof(ps->p->metrics_dir) - 1);
		strcpy(ps->p->metrics_dir, v);
	}
	if ((v = r->val[K_METRICS_INTERVAL])) {
		unsigned long s = 0;

		for (const char *c = v; *c && s <= QD_METRICS_INTERVAL_MAX_S;
		     c++)
			s = *c >= '0' && *c <= '9'
				? s * 10 + (*c - '0')
				: QD_METRICS_INTERVAL_MAX_S + 1;
		if (s < 1 || s > QD_METRICS_INTERVAL_MAX_S)
			return fail(ps, r->tok_line[K_METRICS_INTERVAL],
				    r->tok[K_METRICS_INTERVAL],
				    "metrics_interval must be whole seconds, "
				    "1 to %d",
				    QD_METRICS_INTERVAL_MAX_S);
		ps->p->metrics_interval_s = (unsigned)s;
	}
	if ((v = r->val[K_METRICS_PER_USER])) {
		if (strcasecmp(v, "yes") && strcasecmp(v, "no"))
			return fail(ps, r->tok_line[K_METRICS_PER_USER],
				    r->tok[K_METRICS_PER_USER],
				    "metrics_per_user must be yes or no");
		ps->p->metrics_per_user = !strcasecmp(v, "yes");
	}
	return 0;
}

static int apply_global(struct parser *ps, const struct record *r)
{
	if (set_metrics(ps, r))
		return -1;
	if (r->tok[K_ENFORCE] && set_enforce(ps, r))
		return -1;
	if (r->tok[K_EXEMPT_USERS] &&
	    set_names(ps, r, K_EXEMPT_USERS, "user", &ps->p->exempt_users,
		      &ps->p->n_exempt))
		return -1;
	if (r->tok[K_FS_CLUSTERS] &&
	    set_names(ps, r, K_FS_CLUSTERS, "cluster", &ps->p->fs_clusters,
		      &ps->p->n_fs_clusters))
		return -1;
	if (r->tok[K_HALF_LIFE] && set_half_life(ps, r))
		return -1;
	return 0;
}

static int parse_flag(struct parser *ps, const char *flag, size_t len, int line,
		      unsigned *flags)
{
	for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
		if (strlen(flag_names[i].name) == len &&
		    !strncasecmp(flag, flag_names[i].name, len)) {
			*flags |= flag_names[i].bit;
			return 0;
		}
	return fail_n(ps, line, flag, len, "unknown flag");
}

static int parse_flags(struct parser *ps, const struct record *r,
		       unsigned *flags)
{
	int line = r->tok_line[K_FLAGS];

	for (const char *v = r->val[K_FLAGS];; v++) {
		size_t len = strcspn(v, ",");

		if (len == 0)
			return fail(ps, line, r->tok[K_FLAGS], "empty flag in");
		if (parse_flag(ps, v, len, line, flags))
			return -1;
		v += len;
		if (!*v)
			return 0;
	}
}

static int parse_limit(struct parser *ps, const struct record *r, enum key k,
		       struct qd_tres *t)
{
	char msg[QD_ERR_MAX];

	qd_tres_init(t);
	if (!r->tok[k] || !qd_tres_parse(r->val[k], t, msg, sizeof(msg)))
		return 0;
	snprintf(ps->err, ps->errlen, "%s:%d: %s: %s", ps->path, r->tok_line[k],
		 key_names[k], msg);
	return -1;
}

static int add_rule(struct parser *ps, const struct qd_qos_rule *rule)
{
	struct qd_policy *p = ps->p;
	struct qd_qos_rule *rules = grow(p->rules, p->n_rules, sizeof(*rules));

	if (!rules)
		return out_of_memory(ps);
	p->rules = rules;
	rules[p->n_rules++] = *rule;
	return 0;
}

static int apply_qos(struct parser *ps, const struct record *r)
{
	const struct qd_qos_rule *old;
	struct qd_qos_rule rule = {.line = r->line};

	if (check_name(ps, r, K_QOS))
		return -1;
	old = qd_policy_rule(ps->p, r->val[K_QOS]);
	if (old)
		return fail(ps, r->tok_line[K_QOS], r->tok[K_QOS],
			    "duplicate QOS record (first on line %d)",
			    old->line);
	/* A record without flags would silently do nothing. */
	if (!r->tok[K_FLAGS])
		return fail(ps, r->tok_line[K_QOS], r->tok[K_QOS],
			    "QOS record without Flags");
	strcpy(rule.name, r->val[K_QOS]);
	if (parse_flags(ps, r, &rule.flags) ||
	    parse_limit(ps, r, K_MAX_PER_JOB, &rule.max_per_job) ||
	    parse_limit(ps, r, K_MAX_PER_USER, &rule.max_per_user) ||
	    parse_limit(ps, r, K_GRP, &rule.grp))
		return -1;
	return add_rule(ps, &rule);
}

static int parse_shares(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
		if (v > UINT32_MAX)
			return -1;
	}
	*out = v;
	return v ? 0 : -1;
}

/* Slurm keeps account and user names of associations in lowercase. */
static const struct qd_share_rule *find_share(const struct qd_policy *p,
					      const struct qd_share_rule *s)
{
	for (size_t i = 0; i < p->n_shares; i++)
		if (!strcasecmp(p->shares[i].account, s->account) &&
		    !strcasecmp(p->shares[i].user, s->user))
			return &p->shares[i];
	return NULL;
}

static int add_share(struct parser *ps, const struct qd_share_rule *s)
{
	struct qd_policy *p = ps->p;
	struct qd_share_rule *shares =
	    grow(p->shares, p->n_shares, sizeof(*shares));

	if (!shares)
		return out_of_memory(ps);
	p->shares = shares;
	shares[p->n_shares++] = *s;
	return 0;
}

/* Account=NAME Shares=N, or User=NAME Account=NAME Shares=N. */
static int apply_share(struct parser *ps, const struct record *r)
{
	enum key rk = r->kind == R_USER ? K_USER : K_ACCOUNT;
	struct qd_share_rule s = {.line = r->line};
	const struct qd_share_rule *old;

	if (check_name(ps, r, rk))
		return -1;
	if (!r->tok[K_ACCOUNT])
		return fail(ps, r->tok_line[rk], r->tok[rk],
			    "User record without Account");
	if (rk == K_USER && check_name(ps, r, K_ACCOUNT))
		return -1;
	if (!r->tok[K_SHARES])
		return fail(ps, r->tok_line[rk], r->tok[rk],
			    "%s record without Shares", key_names[rk]);
	if (parse_shares(r->val[K_SHARES], &s.shares))
		return fail(ps, r->tok_line[K_SHARES], r->tok[K_SHARES],
			    "Shares must be a positive integer");
	strcpy(s.account, r->val[K_ACCOUNT]);
	if (rk == K_USER)
		strcpy(s.user, r->val[K_USER]);
	old = find_share(ps->p, &s);
	if (old)
		return fail(ps, r->tok_line[rk], r->tok[rk],
			    "duplicate %s record%s%s (first on line %d)",
			    key_names[rk], rk == K_USER ? " in account " : "",
			    rk == K_USER ? s.account : "", old->line);
	return add_share(ps, &s);
}

static int apply(struct parser *ps, const struct record *r)
{
	switch (r->kind) {
	case R_GLOBAL:
		return apply_global(ps, r);
	case R_QOS:
		return apply_qos(ps, r);
	default:
		return apply_share(ps, r);
	}
}

/* Blanks become NULs, so that each token is a string in place. */
static int end_record(struct parser *ps)
{
	struct record r = {0};
	int rv = 0;

	for (size_t i = 0; i < ps->len; i++)
		if (isspace((unsigned char)ps->buf[i]))
			ps->buf[i] = '\0';
	if (next_token(ps, 0) < ps->len)
		rv = collect(ps, &r) || apply(ps, &r) ? -1 : 0;
	ps->len = 0;
	return rv;
}

static int append(struct parser *ps, const char *s, size_t n, int line)
{
	if (ps->len + n + 1 > ps->cap) {
		size_t cap = 2 * (ps->len + n + 1);
		char *buf = realloc(ps->buf, cap);
		int *lines;

		if (!buf)
			return out_of_memory(ps);
		ps->buf = buf;
		lines = realloc(ps->lines, cap * sizeof(*lines));
		if (!lines)
			return out_of_memory(ps);
		ps->lines = lines;
		ps->cap = cap;
	}
	memcpy(ps->buf + ps->len, s, n);
	for (size_t i = 0; i < n; i++)
		ps->lines[ps->len + i] = line;
	ps->len += n;
	ps->buf[ps->len] = '\0';
	return 0;
}

/* As Slurm: the comment goes first, so a '\' inside one continues nothing. */
static int add_line(struct parser *ps, const char *s, size_t n, int line)
{
	const char *hash = memchr(s, '#', n);
	int cont;

	if (hash)
		n = hash - s;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	cont = n && s[n - 1] == '\\';
	if (append(ps, s, n - cont, line))
		return -1;
	return cont ? 0 : end_record(ps);
}

/* A bad record stops the parse, unless ps->report takes the error and the
 * parse goes on with the next record to find them all. */
static int record_failed(struct parser *ps)
{
	ps->nerr++;
	if (!ps->report || ps->oom)
		return -1;
	ps->report(ps->err, ps->report_arg);
	return 0;
}

static struct qd_policy *parse(struct parser *ps, const char *text)
{
	struct qd_policy *rv = NULL;
	int line = 0;

	ps->p = calloc(1, sizeof(*ps->p));
	if (!ps->p) {
		out_of_memory(ps);
		goto fail;
	}
	ps->p->enforce = true;
	ps->p->usage_half_life_s = QD_HALF_LIFE_DEFAULT_S;
	ps->p->metrics_interval_s = QD_METRICS_INTERVAL_DEFAULT_S;
	for (const char *s = text; *s; s++) {
		size_t n = strcspn(s, "\n");

		if (add_line(ps, s, n, ++line) && record_failed(ps))
			goto fail;
		s += n;
		if (!*s)
			break;
	}
	/* The last line may end in '\' with nothing after it. */
	if (ps->len && end_record(ps) && record_failed(ps))
		goto fail;
	if (ps->nerr)
		goto fail;
	rv = ps->p;
	ps->p = NULL;
fail:
	qd_policy_free(ps->p);
	free(ps->buf);
	free(ps->lines);
	return rv;
}

struct qd_policy *qd_policy_parse(const char *path, const char *text, char *err,
				  size_t errlen)
{
	struct parser ps = {.path = path, .err = err, .errlen = errlen};

	return parse(&ps, text);
}

int qd_policy_check(const char *path, const char *text,
		    void (*report)(const char *err, void *arg), void *arg)
{
	char err[QD_ERR_MAX];
	struct parser ps = {.path = path,
			    .err = err,
			    .errlen = sizeof(err),
			    .report = report,
			    .report_arg = arg};
	struct qd_policy *p = parse(&ps, text);

	qd_policy_free(p);
	if (ps.oom) {
		report(err, arg);
		return -1;
	}
	return ps.nerr;
}
