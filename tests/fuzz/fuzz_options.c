/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_spank_opts_parse: the plugin's arguments on its plugstack.conf line
 * (qosdeny(1), PLUGSTACK.CONF OPTIONS), parsed in slurmd and every slurmstepd.
 *
 * Input: the argument words, one per line ('\n' separates them, so a word
 * may hold blanks and be empty; a NUL ends a word early, as in a C string).
 * Checks, beyond the sanitizers:
 *   - the parse succeeds exactly when a second, plain reading of the
 *     option list (qosdeny(1), PLUGSTACK.CONF OPTIONS) accepts every word
 *     (known key, '=' and a value, no key twice, a value in its option's
 *     domain),
 *     and the options are then what that reading gives over the defaults;
 *   - after success every field is in its domain: strings terminated in
 *     their arrays, timeout_ms in 1..QD_TIMEOUT_MS_MAX, one of the four
 *     cgroup modes, a redis address, redis_replicas in -1..64, and no
 *     TLS file in a build without TLS;
 *   - a failure says "qosdeny: ..." within errlen, and names the first
 *     word the reading refuses: the word itself when its key is unknown,
 *     else its key.
 */
#include <ctype.h>

#include "fuzz_util.h"
#include "spank_opts.h"

#define MAX_WORDS 64

static const char *const names[] = {
    "redis",	      "redis_password_file", "cluster",
    "spool",	      "timeout_ms",	     "cgroup",
    "gpu_devices",    "adopt_dir",	     "redis_user",
    "redis_replicas", "redis_tls_ca",	     "redis_tls_cert",
    "redis_tls_key",  "metrics_dir",	     "metrics_interval",
};

#define NNAMES (sizeof(names) / sizeof(names[0]))

static bool terminated(const char *s, size_t len)
{
	return memchr(s, '\0', len) != NULL;
}

/* Digits only, at most 9 of them, in [min, max]. */
static bool model_number(const char *s, unsigned long min, unsigned long max,
			 unsigned *out)
{
	unsigned long v = 0;
	size_t n = strlen(s);

	if (!n || n > 9 || strspn(s, "0123456789") != n)
		return false;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (unsigned long)(s[i] - '0');
	if (v < min || v > max)
		return false;
	*out = (unsigned)v;
	return true;
}

static bool model_path(char *dst, size_t len, const char *val)
{
	if (val[0] != '/' || strlen(val) >= len)
		return false;
	strcpy(dst, val);
	return true;
}

/* HOST:PORT or [IPV6]:PORT in s[0..len): a host of 1 to 255 bytes with no
 * blank, '/' or ',' (and a ':' only between brackets), a port 1..65535. */
static bool model_endpoint(const char *s, size_t len)
{
	const char *host = s, *port, *close;
	size_t hostlen, colons = 0;
	char digits[16];
	unsigned v;

	if (len && s[0] == '[') {
		close = memchr(s, ']', len);
		if (!close || (size_t)(close - s) + 1 >= len || close[1] != ':')
			return false;
		host = s + 1;
		hostlen = (size_t)(close - host);
		port = close + 2;
	} else {
		for (size_t i = 0; i < len; i++)
			colons += s[i] == ':';
		if (colons != 1)
			return false;
		hostlen = (size_t)((const char *)memchr(s, ':', len) - s);
		port = s + hostlen + 1;
	}
	if (!hostlen || hostlen >= 256)
		return false;
	for (size_t i = 0; i < hostlen; i++)
		if (strchr(" \t\n\v\f\r/,", host[i]) || !host[i])
			return false;
	if ((size_t)(s + len - port) >= sizeof(digits))
		return false;
	memcpy(digits, port, (size_t)(s + len - port));
	digits[s + len - port] = '\0';
	return model_number(digits, 1, 65535, &v);
}

/* sentinel:ENDPOINT[,ENDPOINT...]/NAME: 1 to 16 endpoints, a name of 1 to
 * 63 letters, digits, '.', '_' or '-'. */
static bool model_sentinel(const char *list)
{
	static const char name_chars[] = "abcdefghijklmnopqrstuvwxyz"
					 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					 "0123456789._-";
	const char *slash = strchr(list, '/'), *p = list;
	size_t n = 0;

	if (!slash || !slash[1] || strlen(slash + 1) > 63 ||
	    strspn(slash + 1, name_chars) != strlen(slash + 1))
		return false;
	for (;;) {
		const char *comma = memchr(p, ',', (size_t)(slash - p));
		const char *stop = comma ? comma : slash;

		if (++n > 16 || !model_endpoint(p, (size_t)(stop - p)))
			return false;
		if (!comma)
			return true;
		p = comma + 1;
	}
}

static bool model_redis(struct qd_spank_opts *m, const char *val)
{
	bool ok;

	if (!strncmp(val, "unix:", 5))
		ok = val[5] == '/' && strlen(val + 5) < 108;
	else if (!strncmp(val, "sentinel:", 9))
		ok = model_sentinel(val + 9);
	else
		ok = model_endpoint(val, strlen(val));
	if (!ok || strlen(val) >= sizeof(m->redis))
		return false;
	strcpy(m->redis, val);
	return true;
}

static bool model_tls(char *dst, size_t len, const char *val)
{
	return qd_redis_tls_built() && model_path(dst, len, val);
}

static bool model_value(struct qd_spank_opts *m, size_t k, const char *val)
{
	static const char *const modes[] = {"auto", "v1", "v2", "off"};
	static const char cluster_chars[] = "abcdefghijklmnopqrstuvwxyz"
					    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "0123456789_-";
	unsigned replicas;

	switch (k) {
	case 0:
		return model_redis(m, val);
	case 1:
		return model_path(m->redis_password_file,
				  sizeof(m->redis_password_file), val);
	case 2:
		if (strspn(val, cluster_chars) != strlen(val) ||
		    strlen(val) >= sizeof(m->cluster))
			return false;
		strcpy(m->cluster, val);
		return true;
	case 3:
		return model_path(m->spool, sizeof(m->spool), val);
	case 4:
		return model_number(val, 1, 600000, &m->timeout_ms);
	case 5:
		for (size_t i = 0; i < 4; i++)
			if (!strcmp(val, modes[i])) {
				m->cgroup = (enum qd_cg_mode)i;
				return true;
			}
		return false;
	case 6:
		if (strlen(val) >= sizeof(m->gpu_devices))
			return false;
		strcpy(m->gpu_devices, val);
		return true;
	case 7:
		return model_path(m->adopt_dir, sizeof(m->adopt_dir), val);
	case 8:
		for (const char *c = val; *c; c++)
			if (!isgraph((unsigned char)*c))
				return false;
		if (strlen(val) >= sizeof(m->redis_user))
			return false;
		strcpy(m->redis_user, val);
		return true;
	case 9:
		if (!model_number(val, 0, 64, &replicas))
			return false;
		m->redis_replicas = (int)replicas;
		return true;
	case 10:
		return model_tls(m->redis_tls_ca, sizeof(m->redis_tls_ca), val);
	case 11:
		return model_tls(m->redis_tls_cert, sizeof(m->redis_tls_cert),
				 val);
	case 12:
		return model_tls(m->redis_tls_key, sizeof(m->redis_tls_key),
				 val);
	case 13:
		return model_path(m->metrics_dir, sizeof(m->metrics_dir), val);
	default:
		return model_number(val, 1, 86400, &m->metrics_interval_s);
	}
}

/*
 * qosdeny(1)'s option list over the defaults: the index of the first word
 * refused (*what: what its message must name), or -1 when all are accepted.
 */
static int model_parse(struct qd_spank_opts *m, int argc, char *const argv[],
		       const char **what, size_t *whatlen)
{
	bool seen[NNAMES] = {false};

	memset(m, 0, sizeof(*m));
	strcpy(m->redis, "127.0.0.1:6379");
	m->redis_replicas = -1;
	m->timeout_ms = 500;
	m->cgroup = QD_CG_AUTO;
	m->metrics_interval_s = 30;
	strcpy(m->adopt_dir, "/run/qosdeny");
	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		size_t keylen = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		size_t k;

		for (k = 0; k < NNAMES; k++)
			if (keylen == strlen(names[k]) &&
			    !memcmp(argv[i], names[k], keylen))
				break;
		*what = argv[i];
		*whatlen = strlen(argv[i]);
		if (k == NNAMES)
			return i;
		*whatlen = keylen;
		if (!eq || !eq[1] || seen[k] || !model_value(m, k, eq + 1))
			return i;
		seen[k] = true;
	}
	return -1;
}

static void check_domain(const struct qd_spank_opts *o)
{
	FUZZ_ASSERT(
	    terminated(o->redis, sizeof(o->redis)) &&
		terminated(o->redis_user, sizeof(o->redis_user)) &&
		terminated(o->redis_tls_ca, sizeof(o->redis_tls_ca)) &&
		terminated(o->redis_tls_cert, sizeof(o->redis_tls_cert)) &&
		terminated(o->redis_tls_key, sizeof(o->redis_tls_key)) &&
		terminated(o->redis_password_file,
			   sizeof(o->redis_password_file)) &&
		terminated(o->cluster, sizeof(o->cluster)) &&
		terminated(o->spool, sizeof(o->spool)) &&
		terminated(o->gpu_devices, sizeof(o->gpu_devices)),
	    "a string not terminated");
	FUZZ_ASSERT(o->timeout_ms >= 1 && o->timeout_ms <= QD_TIMEOUT_MS_MAX,
		    "timeout_ms %u", o->timeout_ms);
	FUZZ_ASSERT(o->cgroup == QD_CG_AUTO || o->cgroup == QD_CG_V1 ||
			o->cgroup == QD_CG_V2 || o->cgroup == QD_CG_OFF,
		    "cgroup %d", (int)o->cgroup);
	FUZZ_ASSERT(o->redis[0], "no redis address");
	FUZZ_ASSERT(o->redis_replicas >= -1 &&
			o->redis_replicas <= QD_REDIS_REPLICAS_MAX,
		    "redis_replicas %d", o->redis_replicas);
	FUZZ_ASSERT(qd_redis_tls_built() || !o->redis_tls_ca[0],
		    "TLS option taken by a build without TLS");
	FUZZ_ASSERT(!o->redis_password_file[0] ||
			o->redis_password_file[0] == '/',
		    "password file '%s'", o->redis_password_file);
	FUZZ_ASSERT(!o->spool[0] || o->spool[0] == '/', "spool '%s'", o->spool);
	FUZZ_ASSERT(terminated(o->metrics_dir, sizeof(o->metrics_dir)) &&
			(!o->metrics_dir[0] || o->metrics_dir[0] == '/'),
		    "metrics_dir '%.64s'", o->metrics_dir);
	FUZZ_ASSERT(o->metrics_interval_s >= 1 &&
			o->metrics_interval_s <= 86400,
		    "metrics_interval %u", o->metrics_interval_s);
	FUZZ_ASSERT(terminated(o->adopt_dir, sizeof(o->adopt_dir)) &&
			o->adopt_dir[0] == '/',
		    "adopt_dir '%.64s'", o->adopt_dir);
	for (const char *c = o->cluster; *c; c++)
		FUZZ_ASSERT(isalnum((unsigned char)*c) || *c == '_' ||
				*c == '-',
			    "cluster '%s'", o->cluster);
}

static void check_same(const struct qd_spank_opts *o,
		       const struct qd_spank_opts *m)
{
	FUZZ_ASSERT(!strcmp(o->redis, m->redis), "redis '%s'", o->redis);
	FUZZ_ASSERT(!strcmp(o->redis_user, m->redis_user) &&
			o->redis_replicas == m->redis_replicas &&
			!strcmp(o->redis_tls_ca, m->redis_tls_ca) &&
			!strcmp(o->redis_tls_cert, m->redis_tls_cert) &&
			!strcmp(o->redis_tls_key, m->redis_tls_key),
		    "redis_user '%s' replicas %d tls '%s'", o->redis_user,
		    o->redis_replicas, o->redis_tls_ca);
	FUZZ_ASSERT(!strcmp(o->redis_password_file, m->redis_password_file),
		    "password file '%s'", o->redis_password_file);
	FUZZ_ASSERT(!strcmp(o->cluster, m->cluster), "cluster '%s'",
		    o->cluster);
	FUZZ_ASSERT(!strcmp(o->metrics_dir, m->metrics_dir) &&
			o->metrics_interval_s == m->metrics_interval_s,
		    "metrics_dir '%.64s' interval %u", o->metrics_dir,
		    o->metrics_interval_s);
	FUZZ_ASSERT(!strcmp(o->spool, m->spool), "spool '%s'", o->spool);
	FUZZ_ASSERT(o->timeout_ms == m->timeout_ms, "timeout %u",
		    o->timeout_ms);
	FUZZ_ASSERT(o->cgroup == m->cgroup, "cgroup %d", (int)o->cgroup);
	FUZZ_ASSERT(!strcmp(o->gpu_devices, m->gpu_devices), "gpu_devices '%s'",
		    o->gpu_devices);
	FUZZ_ASSERT(!strcmp(o->adopt_dir, m->adopt_dir), "adopt_dir '%s'",
		    o->adopt_dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t errlens[] = {512, 0, 1, 9, 10, 40};
	size_t errlen = errlens[size % 6];
	char *argv[MAX_WORDS], *err = fuzz_errbuf(errlen), big[8192];
	static struct qd_spank_opts o, m;
	const uint8_t *nl;
	const char *what = NULL;
	size_t whatlen = 0, off = 0, len;
	int argc = 0, bad, rc;

	/* Each word its own allocation, so ASan sees a read past one. */
	while (size && argc < MAX_WORDS) {
		nl = memchr(data + off, '\n', size - off);
		len = nl ? (size_t)(nl - data) - off : size - off;
		argv[argc++] = fuzz_strndup(data + off, len);
		if (!nl)
			break;
		off += len + 1;
	}
	qd_spank_opts_init(&o);
	rc = qd_spank_opts_parse(&o, argc, argv, err, errlen);
	bad = model_parse(&m, argc, argv, &what, &whatlen);
	FUZZ_ASSERT(rc == 0 || rc == -1, "rc %d", rc);
	FUZZ_ASSERT((rc == 0) == (bad < 0), "parser %d, model refuses word %d",
		    rc, bad);
	fuzz_check_err(err, errlen, rc);
	if (rc == 0) {
		check_domain(&o);
		check_same(&o, &m);
	} else {
		qd_spank_opts_init(&o);
		FUZZ_ASSERT(
		    qd_spank_opts_parse(&o, argc, argv, big, sizeof(big)) == -1,
		    "not deterministic");
		FUZZ_ASSERT(!strncmp(big, "qosdeny: ", 9) && big[9],
			    "error '%s'", big);
		/* (A word cut short by the buffer is named by its start.) */
		if (whatlen > 1024)
			whatlen = 1024;
		FUZZ_ASSERT(memmem(big, strlen(big), what, whatlen),
			    "'%s' does not name '%.*s'", big, (int)whatlen,
			    what);
	}
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(err);
	return 0;
}
