/* SPDX-License-Identifier: GPL-2.0-or-later
 * The GPU lists of node/gpu_devices.c, read in every slurmstepd: gres.conf
 * (qd_gres_conf_parse), Slurm's host/file lists in it (qd_expand_list,
 * qd_nodelist_has), the gpu_devices= pattern with %n (qd_gpu_pattern,
 * without globs: those read /dev) and a step's GPU indices (qd_gpu_select).
 *
 * Input, '\n'-separated: the node name, a list, a gpu_devices= pattern, an
 * index list as in SLURM_STEP_GPUS, then the rest is gres.conf. Checks,
 * beyond the sanitizers (leaks included):
 *   - qd_expand_list succeeds exactly when a second, plain reading of the
 *     list grammar (gpu_devices.h) does, and gives the same names in the
 *     same order: ranges in brackets multiplied out left to right, the
 *     first number's zero padding kept, at most 16 brackets per name and
 *     65536 names, none empty or
 *     of 4096 characters or more; qd_nodelist_has agrees with it;
 *   - qd_gpu_pattern is that list after %n is replaced by the node (%% a
 *     '%', any other '%' an error);
 *   - gres.conf: a failure says "<path>:<line>: ..." (or "<path>: ...")
 *     with a line of the input; success gives at most 65536 names, none
 *     empty, too long or holding a bracket, comma, blank or '#', and, when
 *     the text has no '[' or '\\', each of them is in it, split into GPUs
 *     of at least one file each (a MIG slice's several); the same text
 *     parses the same again and with a comment line appended;
 *   - qd_gpu_select gives the files of the node's GPUs at the listed
 *     positions, each file once, in list order, and refuses an index that
 *     is not a position.
 */
#include "fuzz_util.h"
#include "gpu_devices.h"

#define PATH	     "fuzz.conf"
#define MAX_NAMES    65536
#define MAX_NAME     4096
#define MAX_BRACKETS 16

struct item {
	unsigned long lo, hi;
	int width;
};

struct bracket {
	size_t lit, litlen; /* the text before it, from the entry */
	size_t rest;	    /* where the text after it starts */
	struct item *items;
	size_t nitems;
};

/* 1 to 9 digits at s[*i]; more is an error, as a typo like [0-9999999999]. */
static bool digits(const char *s, size_t end, size_t *i, unsigned long *v,
		   int *width)
{
	size_t start = *i;

	*v = 0;
	while (*i < end && s[*i] >= '0' && s[*i] <= '9') {
		*v = *v * 10 + (unsigned long)(s[*i] - '0');
		if (++*i - start > 9)
			return false;
	}
	*width = (int)(*i - start);
	return *i > start;
}

/* "a", "a-b" separated by ',' between '[' (s[from - 1]) and s[to] (']'). */
static bool model_items(const char *s, size_t from, size_t to,
			struct bracket *b, uint64_t *count)
{
	size_t i = from;
	uint64_t n = 0;
	int w;

	b->items = calloc(to - from + 1, sizeof(*b->items));
	if (!b->items)
		abort();
	for (;;) {
		struct item *it = &b->items[b->nitems++];

		if (!digits(s, to, &i, &it->lo, &it->width))
			return false;
		it->hi = it->lo;
		if (i < to && s[i] == '-') {
			i++;
			if (!digits(s, to, &i, &it->hi, &w) || it->hi < it->lo)
				return false;
		}
		if (it->hi - it->lo >= MAX_NAMES)
			return false;
		n += it->hi - it->lo + 1;
		if (i == to)
			break;
		if (s[i] != ',')
			return false;
		i++;
	}
	*count = n;
	return true;
}

struct names {
	char **v;
	size_t n, cap;
};

static void push(struct names *l, char *name)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
	}
	if (!l->v || !name)
		abort();
	l->v[l->n++] = name;
}

static void names_free(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/*
 * The names of one entry (len bytes at s), appended to l; false when the
 * entry is malformed or l would hold more than MAX_NAMES.
 */
static bool model_entry(const char *s, size_t len, struct names *l)
{
	/* An entry has fewer brackets than bytes. */
	struct bracket *b = calloc(len + 1, sizeof(*b));
	size_t *cur = calloc(len + 1, sizeof(*cur));
	unsigned long *val = calloc(len + 1, sizeof(*val));
	size_t nb = 0, lit = 0, i, k, off;
	uint64_t total = 1, c;
	char buf[2 * MAX_NAME];
	const char *close;
	bool ok = false;

	if (!b || !cur || !val)
		abort();
	for (i = 0; i < len; i++) {
		if (s[i] == ']')
			goto out;
		if (s[i] != '[')
			continue;
		close = memchr(s + i, ']', len - i);
		if (!close)
			goto out;
		b[nb] = (struct bracket){lit, i - lit, 0, NULL, 0};
		if (!model_items(s, i + 1, (size_t)(close - s), &b[nb++], &c))
			goto out;
		total *= c;
		if (total > MAX_NAMES)
			goto out;
		i = (size_t)(close - s);
		lit = i + 1;
		b[nb - 1].rest = lit;
	}
	if (nb > MAX_BRACKETS)
		goto out;
	if (!nb) {
		if (!len || len >= MAX_NAME || l->n + 1 > MAX_NAMES)
			goto out;
		push(l, strndup(s, len));
		ok = true;
		goto out;
	}
	if (l->n + total > MAX_NAMES)
		goto out;
	/* Odometer over (bracket, item, value), the first bracket slowest. */
	for (k = 0; k < nb; k++)
		val[k] = b[k].items[0].lo;
	for (;;) {
		off = 0;
		for (k = 0; k < nb; k++) {
			off += (size_t)snprintf(
			    buf + off, sizeof(buf) - off, "%.*s%0*lu",
			    (int)b[k].litlen, s + b[k].lit,
			    b[k].items[cur[k]].width, val[k]);
			/* The parser holds each step, with what follows
			 * still unexpanded, in MAX_NAME bytes. */
			if (off + (len - b[k].rest) >= MAX_NAME)
				goto out;
		}
		snprintf(buf + off, sizeof(buf) - off, "%.*s", (int)(len - lit),
			 s + lit);
		push(l, strdup(buf));
		for (k = nb; k-- > 0;) {
			if (val[k] < b[k].items[cur[k]].hi) {
				val[k]++;
				break;
			}
			if (cur[k] + 1 < b[k].nitems) {
				val[k] = b[k].items[++cur[k]].lo;
				break;
			}
			cur[k] = 0;
			val[k] = b[k].items[0].lo;
		}
		if (k == (size_t)-1)
			break;
	}
	ok = true;
out:
	for (k = 0; k < nb; k++)
		free(b[k].items);
	free(b);
	free(cur);
	free(val);
	return ok;
}

/* Entries split at commas outside brackets. */
static bool model_list(const char *spec, struct names *l)
{
	size_t start = 0, i;
	bool in = false;

	for (i = 0;; i++) {
		if (spec[i] == '[')
			in = true;
		else if (spec[i] == ']')
			in = false;
		if ((spec[i] == ',' && !in) || !spec[i]) {
			if (!model_entry(spec + start, i - start, l))
				return false;
			start = i + 1;
		}
		if (!spec[i])
			return true;
	}
}

static bool same(const struct qd_paths *p, const struct names *l)
{
	if (p->n != l->n)
		return false;
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(p->v[i], l->v[i]))
			return false;
	return true;
}

static void check_list(const char *spec, const char *node)
{
	struct qd_paths got = {0};
	struct names want = {0};
	char err[256];
	int rc = qd_expand_list(spec, &got, err, sizeof(err));
	bool ok = model_list(spec, &want);
	long pos = -1;

	FUZZ_ASSERT((rc == 0) == ok, "'%s': parser %d, model %d (%s)", spec, rc,
		    ok, rc ? err : "");
	fuzz_check_err(err, sizeof(err), rc);
	if (ok) {
		FUZZ_ASSERT(same(&got, &want), "'%s' expanded differently",
			    spec);
		for (size_t i = 0; i < want.n && pos < 0; i++)
			if (!strcmp(want.v[i], node))
				pos = (long)i;
	}
	rc = qd_nodelist_has(spec, node, err, sizeof(err));
	FUZZ_ASSERT(rc == (ok ? pos >= 0 : -1), "node '%s' in '%s': %d", node,
		    spec, rc);
	qd_paths_free(&got);
	names_free(&want);
}

/* pattern with %n replaced, or NULL for a lone '%'. */
static char *model_subst(const char *pattern, const char *node)
{
	char *out = malloc(strlen(pattern) * (strlen(node) + 1) + 1), *o = out;

	if (!out)
		abort();
	for (const char *s = pattern; *s; s++) {
		if (*s != '%') {
			*o++ = *s;
			continue;
		}
		if (s[1] == 'n')
			o = stpcpy(o, node);
		else if (s[1] == '%')
			*o++ = '%';
		else {
			free(out);
			return NULL;
		}
		s++;
	}
	*o = '\0';
	return out;
}

static void check_pattern(const char *pattern, const char *node)
{
	struct qd_paths got = {0};
	struct names want = {0};
	char err[256], *spec;
	int rc;
	bool ok;

	if (strpbrk(pattern, "*?") || strpbrk(node, "*?"))
		return; /* a glob: the files in /dev, not the text */
	rc = qd_gpu_pattern(pattern, node, &got, err, sizeof(err));
	spec = model_subst(pattern, node);
	ok = spec && model_list(spec, &want);
	FUZZ_ASSERT((rc == 0) == ok, "pattern '%s': parser %d (%s)", pattern,
		    rc, rc ? err : "");
	fuzz_check_err(err, sizeof(err), rc);
	if (ok)
		FUZZ_ASSERT(same(&got, &want), "pattern '%s'", pattern);
	free(spec);
	qd_paths_free(&got);
	names_free(&want);
}

static void check_select(const struct qd_gpus *gpus, const char *indices)
{
	struct qd_paths got = {0};
	struct names want = {0};
	char err[256];
	int rc = qd_gpu_select(gpus, indices, &got, err, sizeof(err));
	bool ok = true;
	for (const char *s = indices; *s && ok;) {
		size_t n = strspn(s, "0123456789"), j;
		unsigned long v = strtoul(s, NULL, 10);

		ok = n >= 1 && n <= 9 && (!s[n] || s[n] == ',') &&
		     v < gpus->n && !(s[n] == ',' && !s[n + 1]);
		if (!ok)
			break;
		for (size_t f = gpus->first[v]; f < gpus->first[v + 1]; f++) {
			for (j = 0; j < want.n; j++)
				if (!strcmp(want.v[j], gpus->files.v[f]))
					break;
			if (j == want.n)
				push(&want, strdup(gpus->files.v[f]));
		}
		s += n + (s[n] == ',');
	}
	FUZZ_ASSERT((rc == 0) == ok, "indices '%s' of %zu: parser %d (%s)",
		    indices, gpus->n, rc, rc ? err : "");
	fuzz_check_err(err, sizeof(err), rc);
	if (ok)
		FUZZ_ASSERT(same(&got, &want), "indices '%s'", indices);
	qd_paths_free(&got);
	names_free(&want);
}

static bool same_gpus(const struct qd_gpus *a, const struct qd_gpus *b)
{
	if (a->n != b->n || a->files.n != b->files.n)
		return false;
	for (size_t i = 0; i < a->files.n; i++)
		if (strcmp(a->files.v[i], b->files.v[i]))
			return false;
	for (size_t i = 0; a->n && i <= a->n; i++)
		if (a->first[i] != b->first[i])
			return false;
	return true;
}

/* Each GPU has one file at least, the files in turn, none left over, and
 * one type (gres.conf's, or ""). */
static void check_split(const struct qd_gpus *g)
{
	FUZZ_ASSERT(g->types.n == g->n, "%zu types of %zu GPUs", g->types.n,
		    g->n);
	if (!g->n) {
		FUZZ_ASSERT(!g->files.n, "%zu files of no GPU", g->files.n);
		return;
	}
	FUZZ_ASSERT(g->first[0] == 0 && g->first[g->n] == g->files.n,
		    "GPUs from %zu to %zu of %zu files", g->first[0],
		    g->first[g->n], g->files.n);
	for (size_t i = 0; i < g->n; i++)
		FUZZ_ASSERT(g->first[i] < g->first[i + 1], "GPU %zu: no file",
			    i);
}

static void check_error(const char *err, const char *text)
{
	long lines = 1, line;
	char *end;

	for (const char *c = text; *c; c++)
		lines += *c == '\n';
	FUZZ_ASSERT(!strncmp(err, PATH ":", strlen(PATH ":")), "error '%s'",
		    err);
	if (err[strlen(PATH ":")] == ' ')
		return; /* "<path>: out of memory" */
	line = strtol(err + strlen(PATH ":"), &end, 10);
	FUZZ_ASSERT(*end == ':' && line >= 1 && line <= lines,
		    "error '%s' for %ld lines", err, lines);
}

/* Returns the parse's result in *out (freed by the caller). */
static int check_gres(const char *text, const char *node, size_t errlen,
		      struct qd_gpus *out)
{
	struct qd_gpus again = {0};
	char *err = fuzz_errbuf(errlen), big[1024];
	char *more = malloc(strlen(text) + 16);
	int rc = qd_gres_conf_parse(PATH, text, node, out, err, errlen);

	FUZZ_ASSERT(rc == 0 || rc == -1, "rc %d", rc);
	fuzz_check_err(err, errlen, rc);
	FUZZ_ASSERT(out->files.n <= MAX_NAMES, "%zu names", out->files.n);
	if (rc == 0)
		check_split(out);
	if (rc == 0)
		for (size_t i = 0; i < out->files.n; i++) {
			const char *f = out->files.v[i];

			FUZZ_ASSERT(f[0] && strlen(f) < MAX_NAME &&
					!strpbrk(f, "[],# \t\r\n"),
				    "file '%s'", f);
			/* (A '\\' may join a name across lines.) */
			FUZZ_ASSERT(strpbrk(text, "[\\") || strstr(text, f),
				    "file '%s' not in the text", f);
		}
	FUZZ_ASSERT(qd_gres_conf_parse(PATH, text, node, &again, big,
				       sizeof(big)) == rc &&
			(rc || same_gpus(out, &again)),
		    "not deterministic");
	if (rc)
		check_error(big, text);
	qd_gpus_free(&again);
	if (!more)
		abort();
	strcpy(stpcpy(more, text), "\n# more\n");
	FUZZ_ASSERT(qd_gres_conf_parse(PATH, more, node, &again, big,
				       sizeof(big)) == rc &&
			(rc || same_gpus(out, &again)),
		    "a comment line changes it: %s", rc ? "" : big);
	qd_gpus_free(&again);
	free(more);
	free(err);
	return rc;
}

static void check_names(const struct qd_paths *p, int rc, const char *err)
{
	fuzz_check_err(err, 256, rc);
	FUZZ_ASSERT(p->n <= MAX_NAMES, "%zu names", p->n);
	for (size_t i = 0; i < p->n; i++)
		FUZZ_ASSERT(p->v[i][0] && strlen(p->v[i]) < MAX_NAME,
			    "name '%s'", p->v[i]);
}

static void check_bounded(const char *list, const char *pattern,
			  const char *text, const char *node)
{
	struct qd_paths p = {0};
	struct qd_gpus g = {0};
	char err[256];
	int rc;

	rc = qd_expand_list(list, &p, err, sizeof(err));
	check_names(&p, rc, err);
	qd_paths_free(&p);
	if (!strpbrk(pattern, "*?") && !strpbrk(node, "*?")) {
		rc = qd_gpu_pattern(pattern, node, &p, err, sizeof(err));
		check_names(&p, rc, err);
		qd_paths_free(&p);
	}
	if (text) {
		rc = qd_gres_conf_parse(PATH, text, node, &g, err, sizeof(err));
		check_names(&g.files, rc, err);
		if (rc)
			check_error(err, text);
		qd_gpus_free(&g);
	}
}

/*
 * At most how many names the input's brackets could stand for, counting
 * every bracket of the input as if in one name: a generous bound.
 */
static uint64_t names_bound(const char *s)
{
	uint64_t bound = 1, in;
	unsigned long lo, hi;
	char *end;

	while ((s = strchr(s, '['))) {
		in = 0;
		for (s++; *s && *s != ']'; s++) {
			if (*s < '0' || *s > '9')
				continue;
			lo = hi = strtoul(s, &end, 10);
			if (*end == '-' && end[1] >= '0' && end[1] <= '9')
				hi = strtoul(end + 1, &end, 10);
			in += hi > lo ? hi - lo + 1 : 1;
			s = end - 1;
		}
		if (in && __builtin_mul_overflow(bound, in, &bound))
			return UINT64_MAX;
	}
	return bound;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t errlens[] = {512, 0, 1, 20, 100};
	char *text = fuzz_strndup(data, size), *part[4] = {"", "", "", ""};
	char *rest = text, *nl;
	struct qd_gpus gpus = {0};
	uint64_t bound = names_bound(text);

	for (int i = 0; i < 4 && rest; i++) {
		part[i] = rest;
		nl = strchr(rest, '\n');
		if (nl)
			*nl++ = '\0';
		rest = nl;
	}
	/*
	 * Tens of thousands of names take a good part of a second to expand
	 * under the sanitizers: such an input is only parsed once, each list
	 * on its own, with the checks that cost nothing more (the limit on
	 * the number of names among them), so that it does not take the time
	 * of thousands of others.
	 */
	if (bound > 4096) {
		check_bounded(part[1], part[2], rest, part[0]);
		free(text);
		return 0;
	}
	check_list(part[1], part[0]);
	check_pattern(part[2], part[0]);
	if (rest && check_gres(rest, part[0], errlens[size % 5], &gpus) == 0)
		check_select(&gpus, part[3]);
	qd_gpus_free(&gpus);
	free(text);
	return 0;
}
