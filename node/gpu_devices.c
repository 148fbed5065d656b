/* SPDX-License-Identifier: GPL-2.0-or-later
 * This node's GPU files and a step's, from gres.conf, the gpu_devices=
 * option or /dev/nvidia[0-9]*. See gpu_devices.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "gpu_devices.h"
#include "gres_held.h"
#include "site.h"
#include "textfile.h"

/* No list may stand for more names: a typo like [0-99999999] is an error. */
#define MAX_NAMES 65536
#define MAX_NAME  4096
/* Each [ranges] is one level of recursion with a MAX_NAME buffer: bounded
 * so that a hostile list cannot exhaust a small thread stack. Slurm's own
 * host lists need far fewer. */
#define MAX_BRACKETS 16

static int add(struct qd_paths *out, const char *name, char *err, size_t errlen)
{
	if (out->n >= MAX_NAMES)
		return qd_errf(err, errlen, "more than %d names", MAX_NAMES);
	if (qd_paths_add(out, name))
		return qd_errf(err, errlen, "out of memory");
	return 0;
}

/* Ends GPU n at offset end of g->files: its files are those from the end
 * of the GPU before it up to there; type is gres.conf's Type= (NULL: none
 * given). */
static int end_gpu(struct qd_gpus *g, size_t end, const char *type, char *err,
		   size_t errlen)
{
	/* Doubling: a File= range may stand for 65536 GPUs, and growing by
	 * one each copied the offsets 65536 times (fuzz_gres timed out). */
	if (g->n + 2 > g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 8;
		size_t *bigger = realloc(g->first, cap * sizeof(*g->first));

		if (!bigger)
			return qd_errf(err, errlen, "out of memory");
		g->first = bigger;
		g->cap = cap;
	}
	if (qd_paths_add(&g->types, type ? type : ""))
		return qd_errf(err, errlen, "out of memory");
	if (!g->n)
		g->first[0] = 0;
	g->first[++g->n] = end;
	return 0;
}

/* Drops what a list that failed half-way left: the files appended to
 * g->files since offset from, and any GPU already ended among them.
 * Returns -1. */
static int drop_from(struct qd_gpus *g, size_t from)
{
	while (g->n && g->first[g->n] > from)
		g->n--;
	while (g->types.n > g->n)
		free(g->types.v[--g->types.n]);
	while (g->files.n > from)
		free(g->files.v[--g->files.n]);
	return -1;
}

/* One GPU of type for each file appended to g->files since offset from. */
static int end_each(struct qd_gpus *g, size_t from, const char *type, char *err,
		    size_t errlen)
{
	for (size_t j = from + 1; j <= g->files.n; j++)
		if (end_gpu(g, j, type, err, errlen))
			return -1;
	return 0;
}

int qd_gpus_add(struct qd_gpus *g, char *const *files, size_t n, char *err,
		size_t errlen)
{
	for (size_t i = 0; i < n; i++)
		if (add(&g->files, files[i], err, errlen))
			return -1;
	return end_gpu(g, g->files.n, NULL, err, errlen);
}

void qd_gpus_free(struct qd_gpus *g)
{
	qd_paths_free(&g->files);
	qd_paths_free(&g->types);
	free(g->first);
	g->first = NULL;
	g->n = g->cap = 0;
}

/* A decimal number of at most 9 digits at *p; advances *p. */
static int number(const char **p, unsigned long *v, int *width)
{
	const char *s = *p;

	if (!isdigit((unsigned char)*s))
		return -1;
	*v = 0;
	while (isdigit((unsigned char)*s) && s - *p < 9)
		*v = *v * 10 + (unsigned long)(*s++ - '0');
	if (isdigit((unsigned char)*s))
		return -1;
	*width = (int)(s - *p);
	*p = s;
	return 0;
}

/*
 * Appends what name (not NUL-terminated, len bytes, no top-level comma)
 * stands for: its first [ranges] expanded, and the rest of the name after it
 * expanded in turn, so several brackets multiply. depth: brackets
 * expanded so far.
 */
static int expand_name(const char *name, size_t len, int depth,
		       struct qd_paths *out, char *err, size_t errlen)
{
	const char *open = memchr(name, '[', len), *close, *p;
	const char *rest;
	unsigned long lo, hi, v;
	int width, ignored;
	char buf[MAX_NAME];
	size_t pre, restlen;
	int n;

	if (!open) {
		if (memchr(name, ']', len))
			return qd_errf(err, errlen, "unbalanced ']' in '%.*s'",
				       (int)len, name);
		if (len >= MAX_NAME)
			return qd_errf(err, errlen, "name too long: '%.40s...'",
				       name);
		if (!len)
			return qd_errf(err, errlen, "empty name in the list");
		snprintf(buf, sizeof(buf), "%.*s", (int)len, name);
		return add(out, buf, err, errlen);
	}
	if (depth == MAX_BRACKETS)
		return qd_errf(err, errlen, "more than %d [ranges] in one name",
			       MAX_BRACKETS);
	close = memchr(open, ']', len - (size_t)(open - name));
	if (!close)
		return qd_errf(err, errlen, "unbalanced '[' in '%.*s'",
			       (int)len, name);
	if (close == open + 1)
		goto bad;
	pre = (size_t)(open - name);
	rest = close + 1;
	restlen = len - (size_t)(rest - name);
	for (p = open + 1; p < close; p++) {
		/* "a" or "a-b", then ',' or ']' */
		/* As Slurm's hostlist: "01-10" pads to the first's width. */
		if (number(&p, &lo, &width))
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (number(&p, &hi, &ignored) || hi < lo)
				goto bad;
		}
		if ((p != close && *p != ',') || p + 1 == close)
			goto bad;
		if (hi - lo >= MAX_NAMES)
			return qd_errf(err, errlen, "range [%lu-%lu] too large",
				       lo, hi);
		for (v = lo; v <= hi; v++) {
			n = snprintf(buf, sizeof(buf), "%.*s%0*lu%.*s",
				     (int)pre, name, width, v, (int)restlen,
				     rest);
			if (n < 0 || (size_t)n >= sizeof(buf))
				return qd_errf(err, errlen, "name too long");
			if (expand_name(buf, (size_t)n, depth + 1, out, err,
					errlen))
				return -1;
		}
	}
	return 0;
bad:
	return qd_errf(err, errlen, "bad range '%.*s' in '%.*s'",
		       (int)(close - open + 1), open, (int)len, name);
}

/* Length of the entry at s: up to a comma outside brackets, or the end. */
static size_t entry_len(const char *s)
{
	int depth = 0;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] == '[')
			depth++;
		else if (s[i] == ']' && depth)
			depth--;
		else if (s[i] == ',' && !depth)
			break;
	}
	return i;
}

int qd_expand_list(const char *spec, struct qd_paths *out, char *err,
		   size_t errlen)
{
	size_t len;

	for (const char *s = spec;; s += len + 1) {
		len = entry_len(s);
		if (expand_name(s, len, 0, out, err, errlen))
			return -1;
		if (!s[len])
			return 0;
	}
}

int qd_nodelist_has(const char *spec, const char *node, char *err,
		    size_t errlen)
{
	struct qd_paths names = {0};
	int rv = -1;

	if (!qd_expand_list(spec, &names, err, errlen))
		rv = qd_paths_find(&names, node) >= 0;
	qd_paths_free(&names);
	return rv;
}

/* ---- gres.conf ---- */

struct gres_record {
	int line;
	bool node_first; /* starts with NodeName= */
	const char *nodes, *name, *files, *count;
	const char *multiple_files; /* MultipleFiles=: one GPU, a MIG slice */
	const char *type;	    /* Type=, or NULL */
};

/*
 * Reads one record from the tokens of a logical line (NUL-separated in
 * place). Values may be quoted. Keys are case-insensitive.
 */
static int parse_record(char *text, struct gres_record *r, const char *path,
			char *err, size_t errlen)
{
	char *save, *tok, *eq, *v;
	bool first = true;

	for (tok = strtok_r(text, " \t\r", &save); tok;
	     tok = strtok_r(NULL, " \t\r", &save), first = false) {
		eq = strchr(tok, '=');
		if (!eq)
			return qd_errf(err, errlen,
				       "%s:%d: not Key=Value: '%s'", path,
				       r->line, tok);
		*eq = '\0';
		v = eq + 1;
		if (*v == '"' && strlen(v) >= 2 && v[strlen(v) - 1] == '"') {
			v[strlen(v) - 1] = '\0';
			v++;
		}
		if (first) {
			if (!strcasecmp(tok, "NodeName"))
				r->node_first = true;
			else if (strcasecmp(tok, "Name") &&
				 strcasecmp(tok, "AutoDetect"))
				/*
				 * Include and the like: GPUs we cannot see
				 * would be left usable by every task.
				 */
				return qd_errf(err, errlen,
					       "%s:%d: cannot read a record "
					       "starting with '%s'; set "
					       "gpu_devices= in plugstack.conf",
					       path, r->line, tok);
		}
		if (!strcasecmp(tok, "NodeName"))
			r->nodes = v;
		else if (!strcasecmp(tok, "Name"))
			r->name = v;
		else if (!strcasecmp(tok, "File") || !strcasecmp(tok, "Files"))
			r->files = v;
		else if (!strcasecmp(tok, "MultipleFiles"))
			r->multiple_files = v;
		else if (!strcasecmp(tok, "Count"))
			r->count = v;
		else if (!strcasecmp(tok, "Type"))
			r->type = v;
	}
	return 0;
}

/*
 * The records in text, logical line by logical line: '#' starts a comment,
 * a '\' at the end of a line joins the next one to it as is (as Slurm's
 * parser does), blank lines are skipped. Calls fn with the line number where
 * each record starts.
 */
static int each_record(const char *path, const char *text,
		       int (*fn)(struct gres_record *, void *), void *arg,
		       char *err, size_t errlen)
{
	int rv = -1, line = 0, start = 0;
	char *buf = malloc(strlen(text) + 1), *d = buf, *hash, *from;
	const char *s = text, *nl;
	size_t len;
	struct gres_record r;

	if (!buf)
		return qd_errf(err, errlen, "%s: out of memory", path);
	while (*s) {
		nl = strchr(s, '\n');
		len = nl ? (size_t)(nl - s) : strlen(s);
		line++;
		if (d == buf)
			start = line;
		from = d;
		memcpy(d, s, len);
		d[len] = '\0';
		hash = strchr(d, '#');
		if (hash)
			*hash = '\0';
		d += strlen(d);
		s += len + (nl ? 1 : 0);
		/* Only this line's own last character joins the next line to
		 * it: after an empty one, a '\\' left from the line before
		 * is text. */
		if (d > from && d[-1] == '\\') {
			*--d = '\0';
			if (*s)
				continue;
		}
		if (strspn(buf, " \t\r") != strlen(buf)) {
			memset(&r, 0, sizeof(r));
			r.line = start;
			if (parse_record(buf, &r, path, err, errlen) ||
			    fn(&r, arg))
				goto fail;
		}
		d = buf;
		*d = '\0';
	}
	rv = 0;
fail:
	free(buf);
	return rv;
}

struct gres_pass {
	const char *path, *node;
	bool node_records; /* this pass takes records starting NodeName= */
	struct qd_gpus *out;
	char *err;
	size_t errlen;
};

/* A MultipleFiles= record: one GPU of all its files (at least two, as
 * slurmd insists), which may not be given File= too. Expanded straight
 * into the node's files, as take_files does. */
static int take_slice(struct gres_pass *p, const struct gres_record *r)
{
	size_t from = p->out->files.n;
	char why[512];

	if (r->files)
		return qd_errf(p->err, p->errlen,
			       "%s:%d: File= and MultipleFiles= in one record "
			       "(slurmd refuses it too)",
			       p->path, r->line);
	if (qd_expand_list(r->multiple_files, &p->out->files, why,
			   sizeof(why))) {
		qd_errf(p->err, p->errlen, "%s:%d: MultipleFiles=%s: %s",
			p->path, r->line, r->multiple_files, why);
		return drop_from(p->out, from);
	}
	if (p->out->files.n - from < 2) {
		qd_errf(p->err, p->errlen,
			"%s:%d: MultipleFiles=%s names one file; use File= "
			"(slurmd refuses it too)",
			p->path, r->line, r->multiple_files);
		return drop_from(p->out, from);
	}
	if (end_gpu(p->out, p->out->files.n, r->type, why, sizeof(why))) {
		qd_errf(p->err, p->errlen, "%s:%d: %s", p->path, r->line, why);
		return drop_from(p->out, from);
	}
	return 0;
}

/* A File= record: one GPU a file. */
static int take_files(struct gres_pass *p, const struct gres_record *r)
{
	size_t from = p->out->files.n;
	char why[512];

	if (qd_expand_list(r->files, &p->out->files, why, sizeof(why))) {
		qd_errf(p->err, p->errlen, "%s:%d: File=%s: %s", p->path,
			r->line, r->files, why);
		return drop_from(p->out, from);
	}
	if (end_each(p->out, from, r->type, why, sizeof(why))) {
		qd_errf(p->err, p->errlen, "%s:%d: %s", p->path, r->line, why);
		return drop_from(p->out, from);
	}
	return 0;
}

/* Whether record r is node's (no NodeName=, or one that lists it): 1, 0,
 * or -1 with err naming its line. */
static int for_node(const struct gres_record *r, const char *path,
		    const char *node, char *err, size_t errlen)
{
	char why[512];
	int has;

	if (!r->nodes)
		return 1;
	has = qd_nodelist_has(r->nodes, node, why, sizeof(why));
	if (has < 0)
		return qd_errf(err, errlen, "%s:%d: NodeName=%s: %s", path,
			       r->line, r->nodes, why);
	return has;
}

static int take_record(struct gres_record *r, void *arg)
{
	struct gres_pass *p = arg;
	int has;

	if (r->node_first != p->node_records || !r->name ||
	    strcasecmp(r->name, "gpu"))
		return 0;
	has = for_node(r, p->path, p->node, p->err, p->errlen);
	if (has <= 0)
		return has;
	if (r->multiple_files)
		return take_slice(p, r);
	if (!r->files)
		return 0; /* AutoDetect fills it in: the fallback applies */
	return take_files(p, r);
}

int qd_gres_conf_parse(const char *path, const char *text, const char *node,
		       struct qd_gpus *out, char *err, size_t errlen)
{
	struct gres_pass p = {path, node, false, out, err, errlen};

	/* Slurm appends the Name= records, then the NodeName= ones. */
	if (each_record(path, text, take_record, &p, err, errlen))
		return -1;
	p.node_records = true;
	return each_record(path, text, take_record, &p, err, errlen);
}

void qd_gres_conf_path(char *buf, size_t len)
{
	const char *conf = getenv("SLURM_CONF");
	const char *slash;

	if (!conf || !*conf)
		conf = QD_DEFAULT_SLURM_CONF;
	slash = strrchr(conf, '/');
	if (slash)
		snprintf(buf, len, "%.*s/gres.conf", (int)(slash - conf), conf);
	else
		snprintf(buf, len, "gres.conf");
}

/* gres.conf's text, or NULL: *rv 0 where the file is missing (no GRES,
 * as for Slurm), -1 with err where it cannot be read. */
static char *conf_text(const char *path, int *rv, char *err, size_t errlen)
{
	char *text;

	*rv = 0;
	if (access(path, F_OK) && errno == ENOENT)
		return NULL;
	text = qd_read_file(path, NULL, err, errlen);
	if (!text)
		*rv = -1;
	return text;
}

struct share_pass {
	const char *node;
	enum qd_gres_shares found;
};

/* A shard or MPS record; for the node where a NodeName= that does not
 * parse is taken as one (the caller then asks slurmctld, which knows). */
static int note_share(struct gres_record *r, void *arg)
{
	struct share_pass *p = arg;
	char why[512];

	if (!r->name ||
	    (strcasecmp(r->name, "shard") && strcasecmp(r->name, "mps")))
		return 0;
	if (!r->nodes || qd_nodelist_has(r->nodes, p->node, why, sizeof(why)))
		p->found = QD_SHARES_HERE;
	else if (p->found == QD_SHARES_NONE)
		p->found = QD_SHARES_ELSEWHERE;
	return 0;
}

enum qd_gres_shares qd_gres_conf_shares(const char *path, const char *node)
{
	struct share_pass p = {node, QD_SHARES_NONE};
	char err[512], *text;
	int rv;

	text = conf_text(path, &rv, err, sizeof(err));
	if (!text && !rv)
		return QD_SHARES_NONE;
	/* Unreadable: slurmd would not run with it; asking costs little. */
	if (!text || each_record(path, text, note_share, &p, err, sizeof(err)))
		p.found = QD_SHARES_HERE;
	free(text);
	return p.found;
}

struct count_pass {
	const char *path, *node;
	unsigned long long *shards, *mps;
	char *err;
	size_t errlen;
};

/* A shard or MPS record of the node: its Count= added to its kind's. */
static int add_count(struct gres_record *r, void *arg)
{
	struct count_pass *p = arg;
	unsigned long long *sum;
	uint64_t v;
	int has;

	if (!r->name)
		return 0;
	sum = !strcasecmp(r->name, "shard") ? p->shards
	      : !strcasecmp(r->name, "mps") ? p->mps
					    : NULL;
	if (!sum)
		return 0;
	has = for_node(r, p->path, p->node, p->err, p->errlen);
	if (has <= 0)
		return has;
	/* As gres.conf takes it: a K, M or G suffix. */
	if (!r->count ||
	    qd_gres_count_parse(r->count, true, UINT64_C(1) << 40, &v))
		return qd_errf(p->err, p->errlen,
			       "%s:%d: Name=%s without a Count= it can read",
			       p->path, r->line, r->name);
	*sum += v;
	return 0;
}

int qd_gres_conf_share_counts(const char *path, const char *node,
			      unsigned long long *shards,
			      unsigned long long *mps, char *err, size_t errlen)
{
	struct count_pass p = {path, node, shards, mps, err, errlen};
	char *text;
	int rv;

	*shards = *mps = 0;
	text = conf_text(path, &rv, err, errlen);
	if (!text)
		return rv;
	rv = each_record(path, text, add_count, &p, err, errlen);
	free(text);
	return rv;
}

struct stray_pass {
	const char *path, *node;
	const struct qd_paths *gpu_files; /* the node's Name=gpu File= */
	char *msg;
	size_t len;
	bool found;
};

/* A shard or MPS record of the node with File=: each of its files one of
 * the node's GPU files, by name. The first that is none, in msg. */
static int find_stray(struct gres_record *r, void *arg)
{
	struct stray_pass *p = arg;
	struct qd_paths files = {0};
	char why[512];
	int has;

	if (p->found || !r->name || !r->files ||
	    (strcasecmp(r->name, "shard") && strcasecmp(r->name, "mps")))
		return 0;
	has = for_node(r, p->path, p->node, p->msg, p->len);
	if (has <= 0)
		return has;
	if (qd_expand_list(r->files, &files, why, sizeof(why))) {
		qd_errf(p->msg, p->len, "%s:%d: File=%s: %s", p->path, r->line,
			r->files, why);
		qd_paths_free(&files);
		return -1;
	}
	for (size_t i = 0; i < files.n && !p->found; i++)
		if (qd_paths_find(p->gpu_files, files.v[i]) < 0) {
			snprintf(p->msg, p->len,
				 "%s:%d: Name=%s File=%s is no GPU of %s's",
				 p->path, r->line, r->name, files.v[i],
				 p->node);
			p->found = true;
		}
	qd_paths_free(&files);
	return 0;
}

int qd_gres_conf_stray_share(const char *path, const char *node, char *msg,
			     size_t len)
{
	struct qd_gpus gpus = {0};
	struct stray_pass p = {path, node, &gpus.files, msg, len, false};
	char *text;
	int rv;

	text = conf_text(path, &rv, msg, len);
	if (!text)
		return rv;
	rv = qd_gres_conf_parse(path, text, node, &gpus, msg, len);
	/* A GPU of several files (MultipleFiles=, a MIG slice) is matched
	 * by Slurm as a whole: not this check's to judge. */
	if (!rv && gpus.files.n == gpus.n)
		rv = each_record(path, text, find_stray, &p, msg, len);
	if (!rv)
		rv = p.found;
	qd_gpus_free(&gpus);
	free(text);
	return rv;
}

int qd_gres_conf_load(const char *path, const char *node, struct qd_gpus *out,
		      char *err, size_t errlen)
{
	char *text;
	int rv;

	text = conf_text(path, &rv, err, errlen);
	if (!text)
		return rv;
	rv = qd_gres_conf_parse(path, text, node, out, err, errlen);
	free(text);
	return rv;
}

/* ---- gpu_devices= and the fallback ---- */

struct found {
	char *path;
	dev_t rdev;
};

static int by_device(const void *a, const void *b)
{
	const struct found *x = a, *y = b;

	return (x->rdev > y->rdev) - (x->rdev < y->rdev);
}

/* The character devices matching a shell glob, by device number. */
static int glob_devices(const char *pattern, struct qd_paths *out, char *err,
			size_t errlen)
{
	int rv = -1;
	glob_t g;
	struct found *f = NULL;
	struct stat st;
	size_t n = 0, i;
	int r = glob(pattern, 0, NULL, &g);

	if (r == GLOB_NOMATCH)
		return 0;
	if (r)
		return qd_errf(err, errlen, "%s: cannot expand (glob error %d)",
			       pattern, r);
	f = calloc(g.gl_pathc, sizeof(*f));
	if (!f) {
		qd_errf(err, errlen, "out of memory");
		goto fail;
	}
	for (i = 0; i < g.gl_pathc; i++)
		if (!stat(g.gl_pathv[i], &st) && S_ISCHR(st.st_mode)) {
			f[n].path = g.gl_pathv[i];
			f[n++].rdev = st.st_rdev;
		}
	qsort(f, n, sizeof(*f), by_device);
	for (i = 0; i < n; i++)
		if (qd_paths_find(out, f[i].path) < 0 &&
		    add(out, f[i].path, err, errlen))
			goto fail;
	rv = 0;
fail:
	free(f);
	globfree(&g);
	return rv;
}

/* pattern with every %n replaced by node ("%%" is a '%'). */
static char *subst_node(const char *pattern, const char *node, char *err,
			size_t errlen)
{
	size_t cap = strlen(pattern) * (strlen(node) + 1) + 1, j = 0;
	char *out = malloc(cap);

	if (!out) {
		qd_errf(err, errlen, "out of memory");
		return NULL;
	}
	for (const char *s = pattern; *s; s++) {
		if (s[0] == '%' && s[1] == 'n') {
			memcpy(out + j, node, strlen(node));
			j += strlen(node);
			s++;
		} else if (s[0] == '%' && s[1] == '%') {
			out[j++] = '%';
			s++;
		} else if (s[0] == '%') {
			qd_errf(err, errlen, "'%s': only %%n is replaced",
				pattern);
			free(out);
			return NULL;
		} else {
			out[j++] = *s;
		}
	}
	out[j] = '\0';
	return out;
}

int qd_gpu_pattern(const char *pattern, const char *node, struct qd_paths *out,
		   char *err, size_t errlen)
{
	int rv = -1;
	char *spec = subst_node(pattern, node, err, errlen), *entry;
	size_t len;

	if (!spec)
		return -1;
	for (char *s = spec;; s += len + 1) {
		len = entry_len(s);
		entry = strndup(s, len);
		if (!entry) {
			qd_errf(err, errlen, "out of memory");
			goto fail;
		}
		if (strpbrk(entry, "*?")
			? glob_devices(entry, out, err, errlen)
			: qd_expand_list(entry, out, err, errlen)) {
			free(entry);
			goto fail;
		}
		free(entry);
		if (!s[len])
			break;
	}
	rv = 0;
fail:
	free(spec);
	return rv;
}

/* The GPUs a pattern names, one a file. */
static int pattern_gpus(const char *pattern, const char *node,
			struct qd_gpus *out, char *err, size_t errlen)
{
	size_t from = out->files.n;

	if (qd_gpu_pattern(pattern, node, &out->files, err, errlen) ||
	    end_each(out, from, NULL, err, errlen))
		return drop_from(out, from);
	return 0;
}

int qd_node_gpus(const char *option, const char *gres_conf, const char *node,
		 struct qd_gpus *out, const char **source, char *err,
		 size_t errlen)
{
	char why[1024];

	if (option) {
		*source = "gpu_devices=";
		if (pattern_gpus(option, node, out, why, sizeof(why)))
			return qd_errf(err, errlen, "gpu_devices=%s: %s",
				       option, why);
		return 0;
	}
	*source = gres_conf;
	if (qd_gres_conf_load(gres_conf, node, out, err, errlen))
		return -1;
	if (out->n)
		return 0;
	*source = QD_GPU_FALLBACK;
	return pattern_gpus(QD_GPU_FALLBACK, node, out, err, errlen);
}

int qd_gpu_select(const struct qd_gpus *node_gpus, const char *indices,
		  struct qd_paths *out, char *err, size_t errlen)
{
	const char *s = indices, *start;
	unsigned long v;
	int width;

	if (!*s)
		return 0;
	for (;;) {
		start = s;
		if (number(&s, &v, &width) || (*s && *s != ','))
			return qd_errf(err, errlen, "'%.*s' is not a GPU index",
				       (int)strcspn(start, ","), start);
		if (v >= node_gpus->n)
			return qd_errf(
			    err, errlen,
			    "GPU index %lu, but this node has %zu GPU%s", v,
			    node_gpus->n, node_gpus->n == 1 ? "" : "s");
		for (size_t j = node_gpus->first[v];
		     j < node_gpus->first[v + 1]; j++)
			if (qd_paths_find(out, node_gpus->files.v[j]) < 0 &&
			    add(out, node_gpus->files.v[j], err, errlen))
				return -1;
		if (!*s++)
			return 0;
	}
}
