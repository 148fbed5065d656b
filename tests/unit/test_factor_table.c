/* SPDX-License-Identifier: GPL-2.0-or-later
 * The site factor of an association (docs/fair-share.md, "GPU fair share in job
 * priority"): qd_factor_of, qd_factor_table_build and qd_factor_lookup over a
 * computed fair-share table.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "factor_table.h"

static struct qd_fs_table fs;
static struct qd_factor_table *ft;

static void teardown(void)
{
	qd_fs_free(&fs);
	free(ft);
	ft = NULL;
}

TestSuite(factor, .fini = teardown);

Test(factor, of_rounds_the_printed_fair_share)
{
	/* docs/fair-share.md's example: 10000 x 0.435275 = 4352.75. */
	cr_expect_eq(qd_factor_of(10000, 0.435275), 4353);
	cr_expect_eq(qd_factor_of(10000, 0.514057), 5141);
	cr_expect_eq(qd_factor_of(1000000, 0.435275), 435275);
	cr_expect_eq(qd_factor_of(1000000, 0.514057), 514057);
	cr_expect_eq(qd_factor_of(1, 0.5), 1, "a half rounds up");
	cr_expect_eq(qd_factor_of(1, 0.499999), 0);
	cr_expect_eq(qd_factor_of(3, 0.5), 2, "1.5 rounds up");
	cr_expect_eq(qd_factor_of(0, 0.7), 0);
}

/* FairShare is taken as printed: 6 decimals, then weight x that, exactly. */
Test(factor, of_uses_six_decimals)
{
	/* Printed 0.435275: the digits after the sixth do not count, in
	 * either direction. */
	cr_expect_eq(qd_factor_of(1000000, 0.43527549), 435275);
	cr_expect_eq(qd_factor_of(1000000, 0.4352751), 435275);
	cr_expect_eq(qd_factor_of(1000000, 0.43527451), 435275);
	cr_expect_eq(qd_factor_of(10000000, 0.43527549), 4352750,
		     "above weight's range (README: at most 1,000,000), still "
		     "the printed digits");
	/* 0.0000004 prints as 0.000000: no factor, however large the
	 * weight. */
	cr_expect_eq(qd_factor_of(1000000, 0.0000004), 0);
	cr_expect_eq(qd_factor_of(1000000, 0.0000006), 1);
	/* 0.9999996 prints as 1.000000. */
	cr_expect_eq(qd_factor_of(1000000, 0.9999996), 1000000);
	cr_expect_eq(qd_factor_of(1000000, 0.9999994), 999999);
}

/* A tie of the printed value rounds up even where weight x F in binary
 * floating point falls just below the half (round(10000 * 0.00145) is
 * 14: the product is 14.499999999999998). */
Test(factor, of_ties_round_up_exactly)
{
	cr_expect_eq(qd_factor_of(10000, 0.00145), 15);
	cr_expect_eq(qd_factor_of(10000, 0.00015), 2);
	cr_expect_eq(qd_factor_of(10000, 0.00465), 47);
	cr_expect_eq(qd_factor_of(10000, 0.01075), 108);
	cr_expect_eq(qd_factor_of(2, 0.25), 1);
	cr_expect_eq(qd_factor_of(2, 0.75), 2);
	cr_expect_eq(qd_factor_of(1000000, 0.0000005 + 1e-12), 1);
}

Test(factor, of_ends_of_the_range)
{
	cr_expect_eq(qd_factor_of(10000, 1.0), 10000);
	cr_expect_eq(qd_factor_of(1000000, 1.0), 1000000);
	cr_expect_eq(qd_factor_of(10000, 0.0), 0);
	cr_expect_eq(qd_factor_of(1000000, 0.0), 0);
	cr_expect_eq(qd_factor_of(0, 1.0), 0);
	/* Outside [0, 1]: clamped, never a wrapped number. */
	cr_expect_eq(qd_factor_of(10000, 1.5), 10000);
	cr_expect_eq(qd_factor_of(10000, -0.5), 0);
	cr_expect_eq(qd_factor_of(10000, NAN), 0);
	cr_expect_eq(qd_factor_of(10000, INFINITY), 10000);
	cr_expect_eq(qd_factor_of(10000, 1e-300), 0);
	cr_expect_eq(qd_factor_of(UINT32_MAX, 1.0), UINT32_MAX);
	cr_expect_eq(qd_factor_of(UINT32_MAX, 0.5), 2147483648u);
}

static void fs_row(const char *account, const char *user, uint32_t shares,
		   double usage)
{
	struct qd_fs_row *r = qd_fs_add(&fs, account, user, NULL);

	cr_assert_not_null(r);
	r->raw_shares = shares;
	r->usage = usage;
}

/* docs/fair-share.md's fair share example ("qosdeny share"), computed. */
static void contract_fs(void)
{
	fs_row("research", NULL, 500, 7200);
	fs_row("research", "alice", 1, 3600);
	fs_row("research", "bob", 1, 3600);
	fs_row("batch", NULL, 100, 1800);
	fs_row("batch", "charlie", 1, 1800);
	cr_assert_eq(qd_fs_compute(&fs), 0);
}

/* Associations as slurmctld has them: a user's per-partition associations
 * are several ids for one (account, user). */
static const struct qd_assoc_ref contract_assocs[] = {
    {2, "research", ""},	  {1, "root", ""},
    {30, "research", "alice"},	  {31, "research", "bob"},
    {7, "research", "alice"},	  {4, "batch", ""},
    {1001, "batch", "charlie"},	  {5, "batch", "charlie"},
    {900, "research", "alice"},	  {77, "batch", "dave"},
    {4000000000u, "newacct", ""},
};

#define N_CONTRACT (sizeof(contract_assocs) / sizeof(contract_assocs[0]))

Test(factor, table_of_the_contract_example)
{
	static const struct {
		uint32_t id, factor;
	} want[] = {
	    {2, 5141},	 {30, 5141},  {31, 5141},	    {7, 5141},
	    {900, 5141}, {4, 4353},   {1001, 4353},	    {5, 4353},
	    {1, 10000},	 {77, 10000}, {4000000000u, 10000},
	};

	contract_fs();
	ft = qd_factor_table_build(&fs, contract_assocs, N_CONTRACT, 10000);
	cr_assert_not_null(ft);
	cr_expect_eq(ft->weight, 10000);
	cr_expect_eq(ft->n, N_CONTRACT);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect_eq(qd_factor_lookup(ft, want[i].id), want[i].factor,
			     "assoc %u: %u, expected %u", want[i].id,
			     qd_factor_lookup(ft, want[i].id), want[i].factor);
	/* Ids the table does not know: no usage yet, FairShare 1. */
	cr_expect_eq(qd_factor_lookup(ft, 0), 10000);
	cr_expect_eq(qd_factor_lookup(ft, 3), 10000);
	cr_expect_eq(qd_factor_lookup(ft, 6), 10000);
	cr_expect_eq(qd_factor_lookup(ft, UINT32_MAX), 10000);
	/* Sorted by id, for the binary search. */
	for (size_t i = 1; i < ft->n; i++)
		cr_expect_lt(ft->e[i - 1].assoc_id, ft->e[i].assoc_id);
}

/*
 * Ids up to 1001 among 10 associations are dense enough for the direct
 * index (one load per lookup, p_update's walk); adding 4000000000 makes
 * them too sparse, and the table falls back to the binary search above.
 * Both answer the same.
 */
Test(factor, dense_ids_indexed_sparse_searched)
{
	static const uint32_t ids[] = {
	    0, 1, 2, 3, 4, 5, 6, 7, 30, 31, 77, 900, 1001, 1002, 4000000000u};
	struct qd_factor_table *sparse;

	contract_fs();
	ft = qd_factor_table_build(&fs, contract_assocs, N_CONTRACT - 1, 10000);
	sparse = qd_factor_table_build(&fs, contract_assocs, N_CONTRACT, 10000);
	cr_assert(ft && sparse);
	cr_expect_not_null(ft->direct);
	cr_expect_eq(ft->ndirect, 1002);
	cr_expect_null(sparse->direct, "ids up to 4e9: no direct index");
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		cr_expect_eq(qd_factor_lookup(ft, ids[i]),
			     qd_factor_lookup(sparse, ids[i]), "assoc %u",
			     ids[i]);
	cr_expect_eq(qd_factor_lookup(ft, 1001), 4353);
	cr_expect_eq(qd_factor_lookup(ft, 900), 5141);
	cr_expect_eq(qd_factor_lookup(ft, 1002), 10000, "past the index");
	cr_expect_eq(qd_factor_lookup(ft, 3), 10000, "a hole in the index");
	free(sparse);
}

Test(factor, table_other_weights)
{
	contract_fs();
	ft = qd_factor_table_build(&fs, contract_assocs, N_CONTRACT, 1000000);
	cr_assert_not_null(ft);
	cr_expect_eq(qd_factor_lookup(ft, 30), 514057);
	cr_expect_eq(qd_factor_lookup(ft, 1001), 435275);
	cr_expect_eq(qd_factor_lookup(ft, 77), 1000000);
	cr_expect_eq(qd_factor_lookup(ft, 12345), 1000000);
	free(ft);
	ft = qd_factor_table_build(&fs, contract_assocs, N_CONTRACT, 0);
	cr_assert_not_null(ft);
	for (size_t i = 0; i < N_CONTRACT; i++)
		cr_expect_eq(qd_factor_lookup(ft, contract_assocs[i].id), 0);
	cr_expect_eq(qd_factor_lookup(ft, 12345), 0);
}

/* No usage anywhere: every FairShare is 1, every factor the weight. */
Test(factor, table_without_usage)
{
	fs_row("research", "alice", 1, 0);
	fs_row("batch", NULL, 1, 0);
	cr_assert_eq(qd_fs_compute(&fs), 0);
	ft = qd_factor_table_build(&fs, contract_assocs, N_CONTRACT, 10000);
	cr_assert_not_null(ft);
	for (size_t i = 0; i < N_CONTRACT; i++)
		cr_expect_eq(qd_factor_lookup(ft, contract_assocs[i].id),
			     10000);
}

/* An empty fair-share table, and a table of no associations. */
Test(factor, empty_tables)
{
	cr_assert_eq(qd_fs_compute(&fs), 0);
	ft = qd_factor_table_build(&fs, contract_assocs, N_CONTRACT, 500);
	cr_assert_not_null(ft);
	cr_expect_eq(qd_factor_lookup(ft, 30), 500);
	free(ft);
	contract_fs();
	ft = qd_factor_table_build(&fs, NULL, 0, 500);
	cr_assert_not_null(ft);
	cr_expect_eq(ft->n, 0);
	cr_expect_eq(qd_factor_lookup(ft, 0), 500);
	cr_expect_eq(qd_factor_lookup(ft, 30), 500);
}

/* 10,000 associations in 100 accounts, usage and shares varied, ids given
 * out of order: every lookup gives the factor of its own row. */
Test(factor, ten_thousand_associations, .timeout = 60)
{
	enum { N = 10000, ACCOUNTS = 100 };
	struct qd_assoc_ref *a = calloc(N, sizeof(*a));
	size_t distinct = 0;
	uint32_t last = UINT32_MAX;

	cr_assert_not_null(a);
	for (int i = 0; i < N; i++) {
		char acct[QD_NAME_MAX], usr[QD_NAME_MAX];

		snprintf(acct, sizeof(acct), "acct%03d", i % ACCOUNTS);
		snprintf(usr, sizeof(usr), "user%05d", i);
		/* One user in ten has no row: no usage, the weight. */
		if ((i / ACCOUNTS) % 10)
			fs_row(acct, usr, 1 + i % 7, (double)(i % 997) * 60);
		/* Ids scrambled (a bijection of 0..N-1), spread apart. */
		a[i].id = (uint32_t)((i * 7919) % N) * 3 + 11;
		memcpy(a[i].account, acct, sizeof(acct));
		memcpy(a[i].user, usr, sizeof(usr));
	}
	for (int i = 0; i < ACCOUNTS; i++) {
		char acct[QD_NAME_MAX];
		struct qd_fs_row *r;

		snprintf(acct, sizeof(acct), "acct%03d", i);
		r = qd_fs_find(&fs, acct, NULL);
		cr_assert_not_null(r);
		r->raw_shares = 1 + i;
		for (size_t k = 0; k < fs.n; k++)
			if (!strcmp(fs.rows[k].account, acct) &&
			    fs.rows[k].user[0])
				r->usage += fs.rows[k].usage;
	}
	cr_assert_eq(qd_fs_compute(&fs), 0);
	ft = qd_factor_table_build(&fs, a, N, 1000000);
	cr_assert_not_null(ft);
	cr_assert_eq(ft->n, N);
	for (int i = 0; i < N; i++) {
		const struct qd_fs_row *row = NULL;
		uint32_t want, got;

		/* The row by a plain walk, not by the index under test. */
		for (size_t k = 0; k < fs.n && !row; k++)
			if (!strcmp(fs.rows[k].account, a[i].account) &&
			    !strcmp(fs.rows[k].user, a[i].user))
				row = &fs.rows[k];
		cr_assert_eq(row != NULL, (i / ACCOUNTS) % 10 != 0, "%s",
			     a[i].user);
		/* Weight 10^6: the printed FairShare's millionths. */
		want = row ? (uint32_t)llround(row->fair_share * 1e6) : 1000000;
		got = qd_factor_lookup(ft, a[i].id);
		cr_assert_eq(got, want, "assoc %u (%s %s): %u, expected %u",
			     a[i].id, a[i].account, a[i].user, got, want);
		if (got != last)
			distinct++;
		last = got;
	}
	cr_expect_gt(distinct, 1000, "the factors differ: %zu", distinct);
	for (uint32_t id = 0; id < 11; id++)
		cr_expect_eq(qd_factor_lookup(ft, id), 1000000);
	cr_expect_eq(qd_factor_lookup(ft, 12), 1000000);
	cr_expect_eq(qd_factor_lookup(ft, (N - 1) * 3 + 12), 1000000);
	free(a);
}
