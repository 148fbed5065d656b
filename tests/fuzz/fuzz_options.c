/*
 * qd_spank_opts_parse: the plugin's arguments on its plugstack.conf line
 * (contract section 5), parsed in slurmd and every slurmstepd.
 *
 * Input: the argument words, one per line ('\n' separates them, so a word
 * may hold blanks and be empty; a NUL ends a word early, as in a C string).
 * Checks, beyond the sanitizers:
 *   - the parse succeeds exactly when a second, plain reading of section 5
 *     accepts every word (known key, '=' and a value, no key twice, a value
 *     in its option's domain), and the options are then what that reading
 *     gives over the defaults;
 *   - after success every field is in its domain: strings terminated in
 *     their arrays, timeout_ms in 1..QD_TIMEOUT_MS_MAX, one of the four
 *     cgroup modes, and either a TCP host with a port in 1..65535 or a unix
 *     socket path, never both;
 *   - a failure says "qosdeny: ..." within errlen, and names the first
 *     word the reading refuses: the word itself when its key is unknown,
 *     else its key.
 */
#include <ctype.h>

#include "fuzz_util.h"
#include "options.h"

#define MAX_WORDS 64

static const char *const names[] = {
    "redis",  "redis_password_file", "cluster",	  "spool", "timeout_ms",
    "cgroup", "gpu_devices",	     "adopt_dir",
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

static bool model_redis(struct qd_spank_opts *m, const char *val)
{
	const char *colon;
	size_t hostlen;
	unsigned port;

	if (!strncmp(val, "unix:", 5)) {
		if (!model_path(m->redis_unix, sizeof(m->redis_unix), val + 5))
			return false;
		m->redis_host[0] = '\0';
		m->redis_port = 0;
		return true;
	}
	if (val[0] == '[') { /* [IPv6]:PORT */
		colon = strstr(val, "]:");
		if (!colon || memchr(val, ']', (size_t)(colon - val)))
			return false;
		val++;
		hostlen = (size_t)(colon - val);
		colon++;
	} else { /* HOST:PORT, exactly one ':' */
		colon = strchr(val, ':');
		if (!colon || strchr(colon + 1, ':'))
			return false;
		hostlen = (size_t)(colon - val);
	}
	if (!hostlen || hostlen >= sizeof(m->redis_host) ||
	    strcspn(val, " \t\n\v\f\r/") < hostlen)
		return false;
	if (!model_number(colon + 1, 1, 65535, &port))
		return false;
	memcpy(m->redis_host, val, hostlen);
	m->redis_host[hostlen] = '\0';
	m->redis_port = port;
	m->redis_unix[0] = '\0';
	return true;
}

static bool model_value(struct qd_spank_opts *m, size_t k, const char *val)
{
	static const char *const modes[] = {"auto", "v1", "v2", "off"};
	static const char cluster_chars[] = "abcdefghijklmnopqrstuvwxyz"
					    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "0123456789_-";

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
	default:
		return model_path(m->adopt_dir, sizeof(m->adopt_dir), val);
	}
}

/*
 * Section 5 over the defaults: the index of the first word refused (*what:
 * what its message must name), or -1 when all are accepted.
 */
static int model_parse(struct qd_spank_opts *m, int argc, char *const argv[],
		       const char **what, size_t *whatlen)
{
	bool seen[NNAMES] = {false};

	memset(m, 0, sizeof(*m));
	strcpy(m->redis_host, "127.0.0.1");
	m->redis_port = 6379;
	m->timeout_ms = 500;
	m->cgroup = QD_CG_AUTO;
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
	FUZZ_ASSERT(terminated(o->redis_host, sizeof(o->redis_host)) &&
			terminated(o->redis_unix, sizeof(o->redis_unix)) &&
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
	if (o->redis_unix[0])
		FUZZ_ASSERT(o->redis_unix[0] == '/' && !o->redis_host[0] &&
				!o->redis_port,
			    "unix '%s' with host '%s' port %u", o->redis_unix,
			    o->redis_host, o->redis_port);
	else
		FUZZ_ASSERT(o->redis_host[0] && o->redis_port >= 1 &&
				o->redis_port <= 65535,
			    "host '%s' port %u", o->redis_host, o->redis_port);
	FUZZ_ASSERT(!o->redis_password_file[0] ||
			o->redis_password_file[0] == '/',
		    "password file '%s'", o->redis_password_file);
	FUZZ_ASSERT(!o->spool[0] || o->spool[0] == '/', "spool '%s'", o->spool);
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
	FUZZ_ASSERT(!strcmp(o->redis_host, m->redis_host) &&
			o->redis_port == m->redis_port &&
			!strcmp(o->redis_unix, m->redis_unix),
		    "redis '%s' %u '%s'", o->redis_host, o->redis_port,
		    o->redis_unix);
	FUZZ_ASSERT(!strcmp(o->redis_password_file, m->redis_password_file),
		    "password file '%s'", o->redis_password_file);
	FUZZ_ASSERT(!strcmp(o->cluster, m->cluster), "cluster '%s'",
		    o->cluster);
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
