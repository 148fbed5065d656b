/* SPDX-License-Identifier: GPL-2.0-or-later
 * sshare's two layouts for the fair-share table. The widths and the way long
 * names are cut are those of Slurm 22.05's sshare (src/sshare/process.c and
 * src/common/print_fields.c), so the output reads like sshare's.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fairshare.h"

#define W_ACCOUNT 20 /* left-aligned, as sshare's */
#define W_USER	  10
#define W_RSHARES 10
#define W_NSHARES 11
#define W_RUSAGE  11
#define W_EUSAGE  13
#define W_FS	  10

static const char header[] =
    "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare";

static uint64_t rounded(double usage)
{
	return usage > 0 ? (uint64_t)llround(usage) : 0;
}

/* s cut to width with its last character replaced by '+' when too long. */
static const char *cut(char *buf, size_t width, const char *s)
{
	size_t len = strlen(s);

	memcpy(buf, s, len > width ? width : len);
	buf[len > width ? width : len] = '\0';
	if (len > width)
		buf[width - 1] = '+';
	return buf;
}

static void print_aligned_header(FILE *f)
{
	static const int widths[] = {-W_ACCOUNT, W_USER,   W_RSHARES, W_NSHARES,
				     W_RUSAGE,	 W_EUSAGE, W_FS};
	static const char *const names[] = {
	    "Account",	"User",		"RawShares", "NormShares",
	    "RawUsage", "EffectvUsage", "FairShare"};
	size_t n = sizeof(widths) / sizeof(widths[0]);

	for (size_t i = 0; i < n; i++)
		fprintf(f, "%*.*s ", widths[i], abs(widths[i]), names[i]);
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < abs(widths[i]); k++)
			fputc('-', f);
		fputc(' ', f);
	}
	fputc('\n', f);
}

static void print_aligned_row(FILE *f, const struct qd_fs_table *t,
			      const struct qd_fs_row *r)
{
	char name[2 * W_ACCOUNT + 1], buf[W_ACCOUNT + 1];

	/* The tree shows as indentation, as in sshare (root being left out,
	 * an account directly below it is not indented). */
	snprintf(name, sizeof(name), "%*s%s",
		 r->depth > W_ACCOUNT ? W_ACCOUNT : r->depth, "",
		 qd_fs_shown(t, r->account));
	fprintf(f, "%-*s ", W_ACCOUNT, cut(buf, W_ACCOUNT, name));
	fprintf(f, "%*s ", W_USER, cut(buf, W_USER, qd_fs_shown(t, r->user)));
	if (r->raw_shares == QD_FS_USE_PARENT)
		fprintf(f, "%*s ", W_RSHARES, "parent");
	else
		fprintf(f, "%*" PRIu32 " ", W_RSHARES, r->raw_shares);
	fprintf(f, "%*f %*" PRIu64 " %*f %*f \n", W_NSHARES, r->norm_shares,
		W_RUSAGE, rounded(r->raw_usage), W_EUSAGE, r->effectv_usage,
		W_FS, r->fair_share);
}

static void print_parsable_row(FILE *f, const struct qd_fs_table *t,
			       const struct qd_fs_row *r)
{
	fprintf(f, "%s|%s|", qd_fs_shown(t, r->account),
		qd_fs_shown(t, r->user));
	if (r->raw_shares == QD_FS_USE_PARENT)
		fputs("parent|", f);
	else
		fprintf(f, "%" PRIu32 "|", r->raw_shares);
	fprintf(f, "%f|%" PRIu64 "|%f|%f\n", r->norm_shares,
		rounded(r->raw_usage), r->effectv_usage, r->fair_share);
}

/* Rows by the names printed (account, then user, "" first): the table's
 * own order, by stored names, differs only where a name is hashed. */
static int shown_cmp(const void *a, const void *b, void *table)
{
	const struct qd_fs_row *x = *(const struct qd_fs_row *const *)a,
			       *y = *(const struct qd_fs_row *const *)b;
	const struct qd_fs_table *t = table;
	int c = strcmp(qd_fs_shown(t, x->account), qd_fs_shown(t, y->account));

	return c ? c : strcmp(qd_fs_shown(t, x->user), qd_fs_shown(t, y->user));
}

int qd_fs_print(FILE *f, const struct qd_fs_table *t, bool parsable)
{
	const struct qd_fs_row **order =
	    calloc(t->n ? t->n : 1, sizeof(*order));

	if (!order)
		return -1;
	for (size_t i = 0; i < t->n; i++)
		order[i] = &t->rows[i];
	if (t->n_names)
		qsort_r(order, t->n, sizeof(*order), shown_cmp, (void *)t);
	if (parsable)
		fprintf(f, "%s\n", header);
	else
		print_aligned_header(f);
	for (size_t i = 0; i < t->n; i++) {
		if (parsable)
			print_parsable_row(f, t, order[i]);
		else
			print_aligned_row(f, t, order[i]);
	}
	free(order);
	return ferror(f) ? -1 : 0;
}
