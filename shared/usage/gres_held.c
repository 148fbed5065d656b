/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "gres_held.h"

/* Counts past this are no node's: it keeps every product in 64 bits. */
#define COUNT_MAX (UINT64_C(1) << 24)

enum kind { K_OTHER, K_GPU, K_SHARD, K_MPS };

/* One entry: the GRES's name and type, its count, and what is in the
 * parentheses (or NULL). Points into the caller's copy. */
struct entry {
	enum kind kind;
	const char *name;
	uint64_t count;
	char *paren;
};

static enum kind kind_of(const char *name, size_t len)
{
	if (len == 3 && !strncmp(name, "gpu", 3))
		return K_GPU;
	if (len == 5 && !strncmp(name, "shard", 5))
		return K_SHARD;
	if (len == 3 && !strncmp(name, "mps", 3))
		return K_MPS;
	return K_OTHER;
}

int qd_gres_count_parse(const char *s, bool suffix, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (suffix && *end && !end[1]) {
		int shift = *end == 'K' || *end == 'k'	 ? 10
			    : *end == 'M' || *end == 'm' ? 20
			    : *end == 'G' || *end == 'g' ? 30
							 : -1;

		if (shift < 0 || v > (max >> shift))
			return -1;
		v <<= shift;
		end++;
	}
	if (*end || v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * Splits the next entry off *s at a comma outside parentheses, ending it
 * with a NUL. Returns the entry, or NULL at the end.
 */
static char *next_entry(char **s)
{
	char *start = *s, *p = start;
	int depth = 0;

	if (!start || !*start)
		return NULL;
	for (; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (*p == ',' && !depth)
			break;
	}
	if (*p) {
		*p = '\0';
		*s = p + 1;
	} else {
		*s = p;
	}
	return start;
}

/*
 * "name[:type]:count[(...)]" or "name[:type](CNT:count)". The count is the
 * last ':' field before the parenthesis, unless the parenthesis starts
 * "CNT:". A type may hold ':' characters of its own: only the first field
 * is the name, only the last the count. A node's Gres= (conf) may leave
 * the count out, as slurm.conf may ("gpu", "gpu:a100": one), and give it
 * with a K, M or G suffix.
 */
static int parse_entry(char *text, bool conf, struct entry *e)
{
	char *open = strchr(text, '('), *colon;
	size_t digits, namelen = strcspn(text, ":(");

	memset(e, 0, sizeof(*e));
	if (!namelen)
		return -1;
	e->name = text;
	e->kind = kind_of(text, namelen);
	if (open) {
		size_t len = strlen(open);

		if (len < 2 || open[len - 1] != ')' || strchr(open + 1, '(') ||
		    strchr(open, ')') != open + len - 1)
			return -1;
		open[len - 1] = '\0';
		*open = '\0';
		e->paren = open + 1;
		if (!strncmp(e->paren, "CNT:", 4)) {
			int rv = qd_gres_count_parse(e->paren + 4, false,
						     COUNT_MAX, &e->count);

			e->paren = NULL;
			return rv;
		}
	}
	colon = strrchr(text, ':');
	if (!colon && conf) {
		e->count = 1;
		return 0;
	}
	if (!colon)
		return -1;
	/* "gpu:1g.10gb" is a type (a MIG profile) and a count of one;
	 * digits alone, with a suffix, are a count that must fit. */
	digits = strspn(colon + 1, "0123456789");
	if (conf &&
	    (!digits || (colon[1 + digits] && colon[2 + digits]) ||
	     (colon[1 + digits] && !strchr("KkMmGg", colon[1 + digits])))) {
		e->count = 1;
		return 0;
	}
	return qd_gres_count_parse(colon + 1, conf, COUNT_MAX, &e->count);
}

/* What is done with each entry: 0, or -1 with err (shown: the entry as
 * written, for messages). */
typedef int (*entry_fn)(struct entry *e, const char *shown, void *arg,
			char *err, size_t errlen);

/* Calls fn for each entry of text, conf as for parse_entry. Returns 0, or
 * -1 with err at the first entry that does not parse or that fn refuses. */
static int each_entry(const char *text, bool conf, entry_fn fn, void *arg,
		      char *err, size_t errlen)
{
	char *copy, *s, *item, shown[80];
	struct entry e;
	int rv = 0;

	if (!text || !*text)
		return 0;
	copy = strdup(text);
	if (!copy)
		return qd_errf(err, errlen, "out of memory");
	s = copy;
	while (!rv && (item = next_entry(&s))) {
		snprintf(shown, sizeof(shown), "%s", item);
		if (parse_entry(item, conf, &e))
			rv = qd_errf(err, errlen,
				     conf ? "node Gres= entry '%.64s' is not "
					    "NAME[:TYPE]:COUNT"
					  : "GRES detail entry '%.64s' is not "
					    "one of slurmctld's",
				     shown);
		else
			rv = fn(&e, shown, arg, err, errlen);
	}
	free(copy);
	return rv;
}

/* One entry of a node's Gres=, added to its kind's count. */
static int add_conf(struct entry *e, const char *shown, void *arg, char *err,
		    size_t errlen)
{
	struct qd_node_gres *out = arg;
	uint64_t *sum = e->kind == K_GPU     ? &out->gpus
			: e->kind == K_SHARD ? &out->shards
			: e->kind == K_MPS   ? &out->mps
					     : NULL;

	(void)shown;
	if (sum && (*sum += e->count) > COUNT_MAX)
		return qd_errf(err, errlen, "node Gres= counts past %" PRIu64,
			       COUNT_MAX);
	return 0;
}

int qd_node_gres_parse(const char *gres, struct qd_node_gres *out, char *err,
		       size_t errlen)
{
	memset(out, 0, sizeof(*out));
	return each_entry(gres, true, add_conf, out, err, errlen);
}

/* round(1000 * s / n), at least 1 where s is; s, n below 2^48. */
static uint64_t milli_share(uint64_t s, uint64_t n)
{
	uint64_t m = (2000 * s + n) / (2 * n);

	return s && !m ? 1 : m;
}

/* "s/n,s/n,...": the sum of each GPU's share, S/N. Every field must be
 * one: "1/4,,1/4" is not Slurm's. */
static int per_gpu(char *list, uint64_t *milli)
{
	*milli = 0;
	for (char *pair = list, *next; pair; pair = next) {
		char *slash;
		uint64_t s, n;

		next = strchr(pair, ',');
		if (next)
			*next++ = '\0';
		slash = strchr(pair, '/');
		if (!slash)
			return -1;
		*slash = '\0';
		if (qd_gres_count_parse(pair, false, COUNT_MAX, &s) ||
		    qd_gres_count_parse(slash + 1, false, COUNT_MAX, &n) ||
		    s > n || (s && !n))
			return -1;
		if (s)
			*milli += milli_share(s, n);
	}
	return 0;
}

/* What qd_gres_held adds up. */
struct held {
	const struct qd_node_gres *node;
	uint64_t mgpus;
	int shared;
};

/* One entry of the detail, added to what the job holds. */
static int add_held(struct entry *e, const char *shown, void *arg, char *err,
		    size_t errlen)
{
	struct held *h = arg;
	const struct qd_node_gres *node = h->node;
	uint64_t milli, of;

	if (e->kind == K_OTHER)
		return 0;
	if (e->paren && !*e->paren)
		return qd_errf(err, errlen,
			       "GRES detail entry '%.64s': nothing between "
			       "its parentheses",
			       shown);
	if (e->kind == K_GPU) {
		milli = 1000 * e->count;
	} else if (e->paren && strchr(e->paren, '/')) {
		if (per_gpu(e->paren, &milli))
			return qd_errf(err, errlen,
				       "GRES detail entry '%.64s': not a list "
				       "of S/N per GPU",
				       shown);
	} else {
		/* No N in the detail: the node's shares of this kind over
		 * its GPUs. */
		of = !node ? 0 : e->kind == K_SHARD ? node->shards : node->mps;
		if (!of || !node->gpus || e->count > of)
			return qd_errf(err, errlen,
				       "GRES detail entry '%.64s': the node's "
				       "configured %s and GPUs are unknown",
				       shown,
				       e->kind == K_SHARD ? "shards"
							  : "MPS shares");
		milli = e->count ? milli_share(e->count * node->gpus, of) : 0;
	}
	if (e->kind != K_GPU && milli)
		h->shared = 1;
	h->mgpus += milli;
	return 0;
}

int qd_gres_held(const char *detail, const struct qd_node_gres *node,
		 uint64_t *mgpus, int *shared, char *err, size_t errlen)
{
	struct held h = {node, 0, 0};
	int rv = each_entry(detail, false, add_held, &h, err, errlen);

	*mgpus = rv ? 0 : h.mgpus;
	*shared = rv ? 0 : h.shared;
	return rv;
}
