/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "redis_addr.h"
#include "spank_opts.h"

enum opt {
	O_REDIS,
	O_PASSWORD_FILE,
	O_CLUSTER,
	O_SPOOL,
	O_TIMEOUT_MS,
	O_CGROUP,
	O_GPU_DEVICES,
	O_ADOPT_DIR,
	O_REDIS_USER,
	O_REDIS_REPLICAS,
	O_TLS_CA,
	O_TLS_CERT,
	O_TLS_KEY,
	O_METRICS_DIR,
	O_METRICS_INTERVAL,
	O_COUNT
};

static const char *const opt_names[O_COUNT] = {
    [O_REDIS] = "redis",
    [O_PASSWORD_FILE] = "redis_password_file",
    [O_CLUSTER] = "cluster",
    [O_SPOOL] = "spool",
    [O_TIMEOUT_MS] = "timeout_ms",
    [O_CGROUP] = "cgroup",
    [O_GPU_DEVICES] = "gpu_devices",
    [O_ADOPT_DIR] = "adopt_dir",
    [O_REDIS_USER] = "redis_user",
    [O_REDIS_REPLICAS] = "redis_replicas",
    [O_TLS_CA] = "redis_tls_ca",
    [O_TLS_CERT] = "redis_tls_cert",
    [O_TLS_KEY] = "redis_tls_key",
    [O_METRICS_DIR] = "metrics_dir",
    [O_METRICS_INTERVAL] = "metrics_interval",
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "qosdeny: ");

	va_start(ap, fmt);
	if (n > 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

void qd_spank_opts_init(struct qd_spank_opts *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->redis, sizeof(o->redis), "%s", QD_REDIS_DEFAULT_ADDR);
	o->redis_replicas = -1;
	o->timeout_ms = QD_TIMEOUT_MS_DEFAULT;
	o->cgroup = QD_CG_AUTO;
	o->metrics_interval_s = QD_METRICS_INTERVAL_DEFAULT_S;
	snprintf(o->adopt_dir, sizeof(o->adopt_dir), "%s",
		 QD_ADOPT_DIR_DEFAULT);
}

/* A decimal in [min, max], nothing else. */
static bool in_range(const char *s, unsigned long min, unsigned long max,
		     unsigned *out)
{
	unsigned long v = 0;

	if (!*s || strlen(s) > 9)
		return false;
	for (const char *p = s; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return false;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v < min || v > max)
		return false;
	*out = (unsigned)v;
	return true;
}

static bool copy(char *dst, size_t len, const char *src)
{
	return snprintf(dst, len, "%s", src) < (int)len;
}

/* An absolute path that fits: for files and directories we open. */
static int path_value(char *dst, size_t len, const char *word, const char *val,
		      char *err, size_t errlen)
{
	if (val[0] != '/')
		return fail(err, errlen, "%s: expected an absolute path", word);
	if (!copy(dst, len, val))
		return fail(err, errlen, "%s: path too long", word);
	return 0;
}

/* The forms of redis_addr.h, read by the one parser the tool and the site
 * factor use too. */
static int redis_value(struct qd_spank_opts *o, const char *word,
		       const char *val, char *err, size_t errlen)
{
	struct qd_redis_addr a;
	char why[256];

	if (qd_redis_addr_parse(val, &a, why, sizeof(why)))
		return fail(err, errlen, "%s: %s", word, why);
	if (!copy(o->redis, sizeof(o->redis), val))
		return fail(err, errlen, "%s: too long", word);
	return 0;
}

/* An ACL user name: what AUTH takes as one word. */
static int user_value(struct qd_spank_opts *o, const char *word,
		      const char *val, char *err, size_t errlen)
{
	for (const char *p = val; *p; p++)
		if (!isgraph((unsigned char)*p))
			return fail(err, errlen,
				    "%s: a user name has no blanks or control "
				    "characters",
				    word);
	if (!copy(o->redis_user, sizeof(o->redis_user), val))
		return fail(err, errlen, "%s: longer than %zu characters", word,
			    sizeof(o->redis_user) - 1);
	return 0;
}

/* A TLS file; refused outright by a build without TLS, never ignored. */
static int tls_value(char *dst, size_t len, const char *word, const char *val,
		     char *err, size_t errlen)
{
	if (!qd_redis_tls_built())
		return fail(err, errlen, "%s: %s", word, QD_REDIS_NO_TLS);
	return path_value(dst, len, word, val, err, errlen);
}

static int cluster_value(struct qd_spank_opts *o, const char *word,
			 const char *val, char *err, size_t errlen)
{
	for (const char *p = val; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return fail(err, errlen,
				    "%s: a cluster name is letters, digits, "
				    "'_' and '-'",
				    word);
	if (!copy(o->cluster, sizeof(o->cluster), val))
		return fail(err, errlen, "%s: longer than %zu characters", word,
			    sizeof(o->cluster) - 1);
	return 0;
}

static int cgroup_value(struct qd_spank_opts *o, const char *word,
			const char *val, char *err, size_t errlen)
{
	static const enum qd_cg_mode modes[] = {QD_CG_AUTO, QD_CG_V1, QD_CG_V2,
						QD_CG_OFF};

	for (size_t i = 0; i < sizeof(modes) / sizeof(*modes); i++)
		if (!strcmp(val, qd_cg_mode_name(modes[i]))) {
			o->cgroup = modes[i];
			return 0;
		}
	return fail(err, errlen, "%s: expected auto, v1, v2 or off", word);
}

static int set(struct qd_spank_opts *o, enum opt k, const char *word,
	       const char *val, char *err, size_t errlen)
{
	unsigned replicas;

	switch (k) {
	case O_REDIS:
		return redis_value(o, word, val, err, errlen);
	case O_PASSWORD_FILE:
		return path_value(o->redis_password_file,
				  sizeof(o->redis_password_file), word, val,
				  err, errlen);
	case O_CLUSTER:
		return cluster_value(o, word, val, err, errlen);
	case O_SPOOL:
		return path_value(o->spool, sizeof(o->spool), word, val, err,
				  errlen);
	case O_TIMEOUT_MS:
		if (!in_range(val, 1, QD_TIMEOUT_MS_MAX, &o->timeout_ms))
			return fail(err, errlen,
				    "%s: expected milliseconds, 1 to %d", word,
				    QD_TIMEOUT_MS_MAX);
		return 0;
	case O_CGROUP:
		return cgroup_value(o, word, val, err, errlen);
	case O_GPU_DEVICES:
		if (!copy(o->gpu_devices, sizeof(o->gpu_devices), val))
			return fail(err, errlen, "%s: too long", word);
		return 0;
	case O_ADOPT_DIR:
		return path_value(o->adopt_dir, sizeof(o->adopt_dir), word, val,
				  err, errlen);
	case O_REDIS_USER:
		return user_value(o, word, val, err, errlen);
	case O_METRICS_DIR:
		return path_value(o->metrics_dir, sizeof(o->metrics_dir), word,
				  val, err, errlen);
	case O_METRICS_INTERVAL:
		if (!in_range(val, 1, QD_METRICS_INTERVAL_MAX_S,
			      &o->metrics_interval_s))
			return fail(err, errlen,
				    "%s: expected seconds, 1 to %d", word,
				    QD_METRICS_INTERVAL_MAX_S);
		return 0;
	case O_REDIS_REPLICAS:
		if (!in_range(val, 0, QD_REDIS_REPLICAS_MAX, &replicas))
			return fail(err, errlen, "%s: expected 0 to %d", word,
				    QD_REDIS_REPLICAS_MAX);
		o->redis_replicas = (int)replicas;
		return 0;
	case O_TLS_CA:
		return tls_value(o->redis_tls_ca, sizeof(o->redis_tls_ca), word,
				 val, err, errlen);
	case O_TLS_CERT:
		return tls_value(o->redis_tls_cert, sizeof(o->redis_tls_cert),
				 word, val, err, errlen);
	case O_TLS_KEY:
		return tls_value(o->redis_tls_key, sizeof(o->redis_tls_key),
				 word, val, err, errlen);
	case O_COUNT:
		break;
	}
	return fail(err, errlen, "%s: internal error", word);
}

/* The word, and every option there is, from the one table of names. */
static int unknown(const char *word, char *err, size_t errlen)
{
	char known[256];
	size_t n = 0;

	for (int k = 0; k < O_COUNT && n < sizeof(known); k++)
		n += (size_t)snprintf(known + n, sizeof(known) - n, "%s%s",
				      k ? ", " : "", opt_names[k]);
	return fail(err, errlen,
		    "unknown option '%s' in plugstack.conf (known: %s)", word,
		    known);
}

int qd_spank_opts_parse(struct qd_spank_opts *o, int argc, char *const argv[],
			char *err, size_t errlen)
{
	bool seen[O_COUNT] = {false};
	const char *word, *eq;
	size_t len;
	int k;

	for (int i = 0; i < argc; i++) {
		word = argv[i];
		eq = strchr(word, '=');
		len = eq ? (size_t)(eq - word) : strlen(word);
		for (k = 0; k < O_COUNT; k++)
			if (strlen(opt_names[k]) == len &&
			    !strncmp(word, opt_names[k], len))
				break;
		if (k == O_COUNT)
			return unknown(word, err, errlen);
		if (!eq || !eq[1])
			return fail(err, errlen, "option '%s' needs a value",
				    word);
		if (seen[k])
			return fail(err, errlen, "option '%s' given twice",
				    opt_names[k]);
		seen[k] = true;
		if (set(o, (enum opt)k, word, eq + 1, err, errlen))
			return -1;
	}
	return 0;
}

static const char *given(const char *s)
{
	return s[0] ? s : NULL;
}

void qd_spank_opts_redis_config(const struct qd_spank_opts *o,
				struct qd_redis_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->addr = o->redis;
	cfg->password_file = given(o->redis_password_file);
	cfg->timeout_ms = (int)o->timeout_ms;
	cfg->user = given(o->redis_user);
	cfg->replicas = o->redis_replicas;
	cfg->replicas_given = o->redis_replicas >= 0;
	cfg->tls_ca = given(o->redis_tls_ca);
	cfg->tls_cert = given(o->redis_tls_cert);
	cfg->tls_key = given(o->redis_tls_key);
}
