/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "errmsg.h"
#include "partition_billing.h"
#include "textfile.h"

#define INCLUDE_DEPTH_MAX 8

struct walk {
	const char *partition; /* NULL: every partition, to each */
	int (*each)(const char *partition, const char *nodes,
		    const char *weights, void *arg);
	void *arg;
	char *out;
	size_t len;
	bool found;	       /* the partition's line was seen */
	char dflt[4096];       /* DEFAULT's TRESBillingWeights so far */
	char dflt_nodes[4096]; /* DEFAULT's Nodes= so far */
	char *err;
	size_t errlen;
};

static int read_conf(struct walk *w, const char *path, int depth);

/* A value without its quotes. */
static char *unquote(char *v)
{
	size_t n = strlen(v);

	if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
		v[n - 1] = '\0';
		v++;
	}
	return v;
}

static int store(struct walk *w, const char *path, char *dst, size_t len,
		 const char *v)
{
	if ((size_t)snprintf(dst, len, "%s", v) >= len)
		return qd_errf(w->err, w->errlen,
			       "%s: TRESBillingWeights longer than %zu "
			       "characters",
			       path, len - 1);
	return 0;
}

/* A PartitionName= line (tokens NUL-separated in place by the caller). */
static int partition_line(struct walk *w, const char *path, const char *name,
			  char *save)
{
	const char *weights = NULL, *nodes = NULL;
	bool dflt = !strcasecmp(name, "DEFAULT");
	char *tok;

	if (!dflt && w->partition && strcmp(name, w->partition))
		return 0;
	for (tok = strtok_r(NULL, " \t\r", &save); tok;
	     tok = strtok_r(NULL, " \t\r", &save)) {
		char *eq = strchr(tok, '=');

		if (eq && (size_t)(eq - tok) == strlen("TRESBillingWeights") &&
		    !strncasecmp(tok, "TRESBillingWeights", (size_t)(eq - tok)))
			weights = unquote(eq + 1);
		else if (eq && (size_t)(eq - tok) == strlen("Nodes") &&
			 !strncasecmp(tok, "Nodes", (size_t)(eq - tok)))
			nodes = unquote(eq + 1);
	}
	if (dflt) {
		/* Only doctor's look at the node's partitions reads Nodes=;
		 * a longer list is cut, and misses the nodes after it. */
		if (nodes)
			snprintf(w->dflt_nodes, sizeof(w->dflt_nodes), "%s",
				 nodes);
		return weights
			   ? store(w, path, w->dflt, sizeof(w->dflt), weights)
			   : 0;
	}
	if (w->each)
		return w->each(name, nodes ? nodes : w->dflt_nodes,
			       weights ? weights : w->dflt, w->arg);
	w->found = true;
	return store(w, path, w->out, w->len, weights ? weights : w->dflt);
}

static int include(struct walk *w, const char *from, const char *pattern,
		   int depth)
{
	char full[PATH_MAX], dir[PATH_MAX];
	glob_t g;
	int rv = 0;

	if (depth >= INCLUDE_DEPTH_MAX)
		return qd_errf(w->err, w->errlen,
			       "%s: Include nested more than %d deep", from,
			       INCLUDE_DEPTH_MAX);
	snprintf(dir, sizeof(dir), "%s", from);
	if (pattern[0] == '/')
		snprintf(full, sizeof(full), "%s", pattern);
	else
		snprintf(full, sizeof(full), "%s/%s", dirname(dir), pattern);
	if (glob(full, 0, NULL, &g))
		return 0; /* nothing matches: nothing to include */
	for (size_t i = 0; i < g.gl_pathc && !rv && !w->found; i++)
		rv = read_conf(w, g.gl_pathv[i], depth + 1);
	globfree(&g);
	return rv;
}

/* One logical line: comments cut, continuations joined by the caller. */
static int conf_line(struct walk *w, const char *path, char *line, int depth)
{
	char *save = NULL, *tok, *eq;

	line[strcspn(line, "#")] = '\0';
	tok = strtok_r(line, " \t\r", &save);
	if (!tok)
		return 0;
	if (!strcasecmp(tok, "Include")) {
		tok = strtok_r(NULL, " \t\r", &save);
		return tok ? include(w, path, unquote(tok), depth) : 0;
	}
	eq = strchr(tok, '=');
	if (!eq || (size_t)(eq - tok) != strlen("PartitionName") ||
	    strncasecmp(tok, "PartitionName", (size_t)(eq - tok)))
		return 0;
	return partition_line(w, path, unquote(eq + 1), save);
}

static int read_conf(struct walk *w, const char *path, int depth)
{
	char *text = qd_read_file(path, NULL, w->err, w->errlen);
	char *line, *next, *d;
	int rv = 0;

	if (!text)
		return -1;
	for (line = text; line && !rv && !w->found; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		/* A backslash at a line's end continues it on the next. */
		while (next && (d = line + strlen(line)) > line &&
		       d[-1] == '\\') {
			char *after = strchr(next, '\n');

			d[-1] = ' ';
			if (after)
				*after++ = '\0';
			memmove(d, next, strlen(next) + 1);
			next = after; /* the rest stays where it was */
		}
		rv = conf_line(w, path, line, depth);
	}
	free(text);
	return rv;
}

int qd_partition_billing(const char *slurm_conf, const char *partition,
			 char *out, size_t len, char *err, size_t errlen)
{
	struct walk *w;
	int rv;

	out[0] = '\0';
	if (!partition || !*partition)
		return 0;
	w = calloc(1, sizeof(*w));
	if (!w)
		return qd_errf(err, errlen, "out of memory");
	*w = (struct walk){.partition = partition,
			   .out = out,
			   .len = len,
			   .err = err,
			   .errlen = errlen};
	rv = read_conf(w, slurm_conf, 0);
	free(w);
	if (rv)
		return -1;
	return out[0] ? 1 : 0;
}

int qd_partition_billing_each(const char *slurm_conf,
			      int (*each)(const char *partition,
					  const char *nodes,
					  const char *weights, void *arg),
			      void *arg, char *err, size_t errlen)
{
	struct walk *w = calloc(1, sizeof(*w));
	int rv;

	if (!w)
		return qd_errf(err, errlen, "out of memory");
	*w = (struct walk){
	    .each = each, .arg = arg, .err = err, .errlen = errlen};
	rv = read_conf(w, slurm_conf, 0);
	free(w);
	return rv;
}
