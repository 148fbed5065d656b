/* SPDX-License-Identifier: GPL-2.0-or-later
 * The fair-share arithmetic of docs/fair-share.md ("qosdeny share") over an
 * association table. Rows are kept in one array; the tree (account -> parent
 * account, user -> account) is rebuilt from the names when computing, so the
 * caller may add rows in any order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fairshare.h"
#include "names.h"

static bool row_is(const struct qd_fs_row *r, const char *account,
		   const char *user)
{
	return !strcmp(r->account, account) && !strcmp(r->user, user);
}

static size_t hash_names(const char *account, const char *user)
{
	size_t h = 14695981039346656037u; /* FNV-1a */

	for (const char *p = account; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211u;
	h *= 1099511628211u; /* the '\0' between the names */
	for (const char *p = user; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211u;
	return h;
}

/* The slot holding (account, user), or the empty slot where it would go. */
static size_t *slot_of(const struct qd_fs_table *t, const char *account,
		       const char *user)
{
	size_t mask = t->nslots - 1, i = hash_names(account, user) & mask;

	while (t->slots[i] && !row_is(&t->rows[t->slots[i] - 1], account, user))
		i = (i + 1) & mask;
	return &t->slots[i];
}

/* Rebuilds the index at a load of at most one half. */
static int reindex(struct qd_fs_table *t, size_t rows)
{
	size_t n = 64;

	while (n < 2 * rows)
		n *= 2;
	if (n != t->nslots) {
		size_t *slots = calloc(n, sizeof(*slots));

		if (!slots)
			return -1;
		free(t->slots);
		t->slots = slots;
		t->nslots = n;
	} else {
		memset(t->slots, 0, n * sizeof(*t->slots));
	}
	for (size_t i = 0; i < t->n; i++)
		*slot_of(t, t->rows[i].account, t->rows[i].user) = i + 1;
	return 0;
}

/*
 * A name as rows hold it: cut to QD_NAME_MAX - 1 characters (usage records
 * and Redis keys hold no longer ones, names.h). Lookups cut the same way, so
 * a longer name finds the row it made instead of adding a second one.
 */
static const char *as_stored(const char *name, char *buf)
{
	if (strnlen(name, QD_NAME_MAX) < QD_NAME_MAX)
		return name;
	memcpy(buf, name, QD_NAME_MAX - 1);
	buf[QD_NAME_MAX - 1] = '\0';
	return buf;
}

struct qd_fs_row *qd_fs_find(struct qd_fs_table *t, const char *account,
			     const char *user)
{
	char acct_buf[QD_NAME_MAX], user_buf[QD_NAME_MAX];
	size_t *slot;

	if (!t->nslots)
		return NULL;
	slot = slot_of(t, as_stored(account, acct_buf),
		       as_stored(user ? user : "", user_buf));
	return *slot ? &t->rows[*slot - 1] : NULL;
}

static struct qd_fs_row *append(struct qd_fs_table *t, const char *account,
				const char *user, const char *parent)
{
	struct qd_fs_row *r;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		struct qd_fs_row *rows =
		    reallocarray(t->rows, cap, sizeof(*rows));

		if (!rows)
			return NULL;
		t->rows = rows;
		t->cap = cap;
	}
	if (2 * (t->n + 1) > t->nslots && reindex(t, t->n + 1))
		return NULL;
	r = &t->rows[t->n++];
	memset(r, 0, sizeof(*r));
	snprintf(r->account, sizeof(r->account), "%s", account);
	snprintf(r->user, sizeof(r->user), "%s", user);
	snprintf(r->parent, sizeof(r->parent), "%s", parent ? parent : "");
	r->raw_shares = 1;
	*slot_of(t, r->account, r->user) = t->n;
	return r;
}

struct qd_fs_row *qd_fs_add(struct qd_fs_table *t, const char *account,
			    const char *user, const char *parent)
{
	struct qd_fs_row *r;

	if (!user)
		user = "";
	r = qd_fs_find(t, account, user);
	if (r)
		return r;
	/* A user row needs its account's row: the account may have no record
	 * of its own where shares come from qosdeny.conf. */
	if (user[0] && !qd_fs_find(t, account, "") &&
	    !append(t, account, "", NULL))
		return NULL;
	return append(t, account, user, user[0] ? NULL : parent);
}

int qd_fs_add_assoc(struct qd_fs_table *t, const char *account,
		    const char *user, const char *parent, uint32_t shares)
{
	struct qd_fs_row *r;

	if (!account || !strcmp(account, "root"))
		return 0;
	if (parent && !strcmp(parent, "root"))
		parent = NULL;
	if (qd_fs_find(t, account, user))
		return 0;
	r = qd_fs_add(t, account, user, user ? NULL : parent);
	if (!r)
		return -1;
	r->raw_shares = shares;
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct qd_fs_row *x = a, *y = b;
	int c = strcmp(x->account, y->account);

	/* "" sorts first, so the account's own row leads its users. */
	return c ? c : strcmp(x->user, y->user);
}

/* Index of an account's own row in the sorted table, or -1. */
static long account_index(const struct qd_fs_table *t, const char *account)
{
	struct qd_fs_row key;
	const struct qd_fs_row *r;

	snprintf(key.account, sizeof(key.account), "%s", account);
	key.user[0] = '\0';
	r = bsearch(&key, t->rows, t->n, sizeof(*t->rows), row_cmp);
	return r ? r - t->rows : -1;
}

/*
 * up[i]: the row above row i (the account of a user row, the parent of an
 * account row), -1 for root. An account whose parent chain does not reach
 * root within n steps is in a cycle and is put below root.
 */
static void link_rows(const struct qd_fs_table *t, long *up)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct qd_fs_row *r = &t->rows[i];

		if (r->user[0])
			up[i] = account_index(t, r->account);
		else if (r->parent[0] && strcmp(r->parent, r->account))
			up[i] = account_index(t, r->parent);
		else
			up[i] = -1;
	}
	for (size_t i = 0; i < t->n; i++) {
		size_t steps = 0;

		for (long k = up[i]; k >= 0 && steps <= t->n; k = up[k])
			steps++;
		if (steps > t->n)
			up[i] = -1;
	}
}

static int depth_of(const long *up, size_t i)
{
	int d = 0;

	for (long k = up[i]; k >= 0; k = up[k])
		d++;
	return d;
}

int qd_fs_compute(struct qd_fs_table *t)
{
	long *up = NULL;
	double *sib = NULL; /* shares of the children of row k; [t->n] root */
	double total = 0;
	int max_depth = 0;
	int rv = -1;

	if (!t->n)
		return 0;
	qsort(t->rows, t->n, sizeof(*t->rows), row_cmp);
	if (reindex(t, t->n))
		goto fail;
	up = calloc(t->n, sizeof(*up));
	sib = calloc(t->n + 1, sizeof(*sib));
	if (!up || !sib)
		goto fail;
	link_rows(t, up);

	for (size_t i = 0; i < t->n; i++) {
		struct qd_fs_row *r = &t->rows[i];

		r->depth = depth_of(up, i);
		if (r->depth > max_depth)
			max_depth = r->depth;
		r->raw_usage = r->usage;
		if (r->raw_shares != QD_FS_USE_PARENT)
			sib[up[i] >= 0 ? (size_t)up[i] : t->n] += r->raw_shares;
	}

	/* Sub-accounts' usage counts toward their parents', deepest first. */
	for (int d = max_depth; d > 0; d--)
		for (size_t i = 0; i < t->n; i++)
			if (t->rows[i].depth == d && !t->rows[i].user[0])
				t->rows[up[i]].raw_usage +=
				    t->rows[i].raw_usage;
	for (size_t i = 0; i < t->n; i++)
		if (up[i] < 0)
			total += t->rows[i].raw_usage;

	/* Parents before children: NormShares multiplies down the tree. */
	for (int d = 0; d <= max_depth; d++) {
		for (size_t i = 0; i < t->n; i++) {
			struct qd_fs_row *r = &t->rows[i];
			const struct qd_fs_row *p =
			    up[i] >= 0 ? &t->rows[up[i]] : NULL;
			double level = sib[p ? (size_t)up[i] : t->n];
			double above = p ? p->norm_shares : 1.0;

			if (r->depth != d)
				continue;
			if (r->raw_shares == QD_FS_USE_PARENT)
				r->norm_shares = above;
			else
				r->norm_shares =
				    level > 0 ? above * r->raw_shares / level
					      : 0;
			r->effectv_usage =
			    total > 0 ? fmin(r->raw_usage / total, 1.0) : 0;
			r->fair_share =
			    r->norm_shares > 0
				? exp2(-r->effectv_usage / r->norm_shares)
				: 0;
			if (r->raw_shares == QD_FS_USE_PARENT && p)
				r->fair_share = p->fair_share;
		}
	}
	rv = 0;
fail:
	free(up);
	free(sib);
	return rv;
}

int qd_fs_show_name(struct qd_fs_table *t, const char *name)
{
	struct qd_fs_name one = {0}, *names;

	if (qd_name_store(name, one.stored) || one.stored[0] != '~' ||
	    qd_fs_shown(t, one.stored) != one.stored)
		return 0;
	one.shown = qd_name_shown(name);
	names = one.shown
		    ? reallocarray(t->names, t->n_names + 1, sizeof(*names))
		    : NULL;
	if (!names) {
		free(one.shown);
		return -1;
	}
	t->names = names;
	t->names[t->n_names++] = one;
	return 0;
}

const char *qd_fs_shown(const struct qd_fs_table *t, const char *stored)
{
	if (stored[0] == '~')
		for (size_t i = 0; i < t->n_names; i++)
			if (!strcmp(t->names[i].stored, stored))
				return t->names[i].shown;
	return stored;
}

void qd_fs_free(struct qd_fs_table *t)
{
	for (size_t i = 0; i < t->n_names; i++)
		free(t->names[i].shown);
	free(t->names);
	free(t->rows);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
