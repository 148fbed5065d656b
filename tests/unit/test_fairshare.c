/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "fairshare.h"
#include "names.h"

static struct qd_fs_table t;

static void teardown(void)
{
	qd_fs_free(&t);
}

TestSuite(fairshare, .fini = teardown);

static void account(const char *name, const char *parent, uint32_t shares,
		    double usage)
{
	struct qd_fs_row *r = qd_fs_add(&t, name, NULL, parent);

	cr_assert_not_null(r);
	r->raw_shares = shares;
	r->usage = usage;
}

static void user(const char *acct, const char *name, uint32_t shares,
		 double usage)
{
	struct qd_fs_row *r = qd_fs_add(&t, acct, name, NULL);

	cr_assert_not_null(r);
	r->raw_shares = shares;
	r->usage = usage;
}

/* The whole output of qd_fs_print, malloc'd. */
static char *print(bool parsable)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(qd_fs_compute(&t), 0);
	cr_assert_eq(qd_fs_print(f, &t, parsable), 0);
	fclose(f);
	return buf;
}

static void expect_output(bool parsable, const char *want)
{
	char *got = print(parsable);

	cr_expect_str_eq(got, want);
	free(got);
}

/*
 * docs/fair-share.md's fair share example ("qosdeny share"), added in an
 * order other than the output's.
 */
static void contract_example(void)
{
	user("research", "bob", 1, 3600);
	account("batch", NULL, 100, 1800);
	user("research", "alice", 1, 3600);
	account("research", NULL, 500, 7200);
	user("batch", "charlie", 1, 1800);
}

Test(fairshare, contract_example_parsable)
{
	contract_example();
	expect_output(true,
		      "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|"
		      "FairShare\n"
		      "batch||100|0.166667|1800|0.200000|0.435275\n"
		      "batch|charlie|1|0.166667|1800|0.200000|0.435275\n"
		      "research||500|0.833333|7200|0.800000|0.514057\n"
		      "research|alice|1|0.416667|3600|0.400000|0.514057\n"
		      "research|bob|1|0.416667|3600|0.400000|0.514057\n");
}

/* sshare's widths, header alignment and indentation, root left out. */
Test(fairshare, contract_example_aligned)
{
	contract_example();
	expect_output(false,
		      "Account                    User  RawShares  NormShares "
		      "   RawUsage  EffectvUsage  FairShare \n"
		      "-------------------- ---------- ---------- ----------- "
		      "----------- ------------- ---------- \n"
		      "batch                                  100    0.166667 "
		      "       1800      0.200000   0.435275 \n"
		      " batch                  charlie          1    0.166667 "
		      "       1800      0.200000   0.435275 \n"
		      "research                               500    0.833333 "
		      "       7200      0.800000   0.514057 \n"
		      " research                 alice          1    0.416667 "
		      "       3600      0.400000   0.514057 \n"
		      " research                   bob          1    0.416667 "
		      "       3600      0.400000   0.514057 \n");
}

/* No usage anywhere: EffectvUsage 0, so FairShare 2^0 = 1, as in Slurm. */
Test(fairshare, no_usage_gives_one)
{
	user("research", "alice", 1, 0);
	account("batch", NULL, 1, 0);
	expect_output(true,
		      "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|"
		      "FairShare\n"
		      "batch||1|0.500000|0|0.000000|1.000000\n"
		      "research||1|0.500000|0|0.000000|1.000000\n"
		      "research|alice|1|0.500000|0|0.000000|1.000000\n");
}

/* An account without users has its own row only; a user's account gets a
 * row with the default share of 1 when it has no record. */
Test(fairshare, account_without_users_and_default_shares)
{
	account("empty", NULL, 3, 0);
	user("team", "dave", 1, 100);
	qd_fs_find(&t, "team", NULL)->usage = 100;
	cr_assert_eq(qd_fs_compute(&t), 0);
	cr_assert_eq(t.n, 3);
	cr_expect_str_eq(t.rows[0].account, "empty");
	cr_expect_str_eq(t.rows[0].user, "");
	cr_expect_float_eq(t.rows[0].norm_shares, 0.75, 1e-12);
	cr_expect_float_eq(t.rows[0].fair_share, 1.0, 1e-12);
	cr_expect_str_eq(t.rows[1].account, "team");
	cr_expect_eq(t.rows[1].raw_shares, 1);
	cr_expect_float_eq(t.rows[1].norm_shares, 0.25, 1e-12);
	/* All usage is team's: 2^(-1/0.25) */
	cr_expect_float_eq(t.rows[1].fair_share, 0.0625, 1e-12);
	cr_expect_float_eq(t.rows[2].norm_shares, 0.25, 1e-12);
}

/* Zero shares: NormShares 0 and FairShare 0 (Slurm's calc_fs_factor), also
 * for a user whose siblings all have 0 shares. */
Test(fairshare, zero_shares)
{
	account("a", NULL, 0, 10);
	user("a", "u", 0, 10);
	account("b", NULL, 1, 0);
	cr_assert_eq(qd_fs_compute(&t), 0);
	cr_expect_float_eq(t.rows[0].norm_shares, 0.0, 1e-12);
	cr_expect_float_eq(t.rows[0].fair_share, 0.0, 1e-12);
	cr_expect_float_eq(t.rows[1].norm_shares, 0.0, 1e-12);
	cr_expect_float_eq(t.rows[1].fair_share, 0.0, 1e-12);
	cr_expect_float_eq(t.rows[2].norm_shares, 1.0, 1e-12);
	cr_expect_float_eq(t.rows[2].fair_share, 1.0, 1e-12);
}

/* RawUsage is rounded to whole seconds; EffectvUsage uses the exact value. */
Test(fairshare, raw_usage_rounding)
{
	user("a", "u", 1, 1799.5);
	user("a", "v", 1, 0.4);
	t.rows[0].usage = 1799.9;
	account("b", NULL, 1, 0.1);
	expect_output(true,
		      "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|"
		      "FairShare\n"
		      "a||1|0.500000|1800|0.999944|0.250019\n"
		      "a|u|1|0.250000|1800|0.999722|0.062548\n"
		      "a|v|1|0.250000|0|0.000222|0.999384\n"
		      "b||1|0.500000|0|0.000056|0.999923\n");
}

/*
 * Sub-accounts: shares normalised among siblings (users and sub-accounts
 * alike) times the parent's, usage added up the tree, indentation by depth.
 */
Test(fairshare, sub_accounts)
{
	account("physics", NULL, 3, 100);
	account("hep", "physics", 1, 300);
	user("physics", "pi", 1, 0);
	user("hep", "carol", 1, 300);
	account("chem", NULL, 1, 600);
	cr_assert_eq(qd_fs_compute(&t), 0);
	/* sorted: chem, hep, hep/carol, physics, physics/pi */
	cr_assert_str_eq(t.rows[1].account, "hep");
	cr_expect_eq(t.rows[1].depth, 1);
	cr_expect_eq(t.rows[2].depth, 2);
	cr_expect_eq(t.rows[3].depth, 0);
	cr_expect_float_eq(t.rows[3].norm_shares, 0.75, 1e-12);
	cr_expect_float_eq(t.rows[3].raw_usage, 400, 1e-9);
	cr_expect_float_eq(t.rows[1].norm_shares, 0.375, 1e-12);
	cr_expect_float_eq(t.rows[4].norm_shares, 0.375, 1e-12);
	cr_expect_float_eq(t.rows[2].norm_shares, 0.375, 1e-12);
	cr_expect_float_eq(t.rows[0].effectv_usage, 0.6, 1e-12);
	cr_expect_float_eq(t.rows[1].effectv_usage, 0.3, 1e-12);
	cr_expect_float_eq(t.rows[3].effectv_usage, 0.4, 1e-12);
}

/* FairShare=parent: the parent's NormShares and FairShare, and no share in
 * its siblings' sum. */
Test(fairshare, use_parent)
{
	account("a", NULL, 1, 50);
	user("a", "p", QD_FS_USE_PARENT, 25);
	user("a", "u", 2, 25);
	account("b", NULL, 1, 50);
	expect_output(true,
		      "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|"
		      "FairShare\n"
		      "a||1|0.500000|50|0.500000|0.500000\n"
		      "a|p|parent|0.500000|25|0.250000|0.500000\n"
		      "a|u|2|0.500000|25|0.250000|0.707107\n"
		      "b||1|0.500000|50|0.500000|0.500000\n");
}

/* A parent chain that loops, or names an account without a row, is put
 * below root rather than followed forever. */
Test(fairshare, cycle_and_missing_parent)
{
	account("x", "y", 1, 0);
	account("y", "x", 1, 0);
	account("z", "nowhere", 2, 0);
	cr_assert_eq(qd_fs_compute(&t), 0);
	cr_expect_eq(t.rows[2].depth, 0);
	cr_expect_float_eq(t.rows[2].norm_shares, 2.0 / 3, 1e-12);
	cr_expect_lt(t.rows[0].depth + t.rows[1].depth, 2);
}

/* Long names are cut with a '+' as sshare cuts them; -P prints them whole. */
Test(fairshare, long_names)
{
	user("a-very-long-account-name", "a-long-user-name", 1, 0);
	char *got = print(false);
	char *line = strchr(strchr(got, '\n') + 1, '\n') + 1;

	cr_expect(!strncmp(line, "a-very-long-account+        ", 28), "%s",
		  line);
	line = strchr(line, '\n') + 1;
	cr_expect(!strncmp(line, " a-very-long-accoun+ a-long-us+ ", 32), "%s",
		  line);
	free(got);
	got = print(true);
	cr_expect(strstr(got, "\na-very-long-account-name|a-long-user-name|"));
	free(got);
}

/* A name stored hashed (names.h) is printed whole and escaped, and its rows
 * sorted by that: "zz..." (100 z) sorts last though its hash ("~a...")
 * would sort "a..." (70 a, "~4...") after "b". */
Test(fairshare, hashed_names_printed_whole)
{
	char zz[101], aa[71], zz_stored[QD_NAME_MAX], aa_stored[QD_NAME_MAX];
	char *got, *want;

	memset(zz, 'z', 100);
	zz[100] = '\0';
	memset(aa, 'a', 70);
	aa[69] = ':';
	aa[70] = '\0';
	cr_assert_eq(qd_name_store(zz, zz_stored), 0);
	cr_assert_eq(qd_name_store(aa, aa_stored), 0);
	cr_assert_eq(zz_stored[0], '~');
	cr_assert_eq(aa_stored[0], '~');
	cr_assert_eq(qd_fs_show_name(&t, zz), 0);
	cr_assert_eq(qd_fs_show_name(&t, zz), 0, "a second time: no change");
	cr_assert_eq(qd_fs_show_name(&t, aa), 0);
	cr_assert_eq(qd_fs_show_name(&t, "bob"), 0, "not hashed: nothing");
	cr_expect_eq(t.n_names, 2);
	account(zz_stored, NULL, 1, 0);
	user(zz_stored, aa_stored, 1, 0);
	account("b", NULL, 1, 0);
	account(aa_stored, NULL, 1, 0);
	got = print(true);
	cr_assert(asprintf(&want,
			   "Account|User|RawShares|NormShares|RawUsage|"
			   "EffectvUsage|FairShare\n"
			   "%.69s%%3A|%s|1|0.333333|0|0.000000|1.000000\n"
			   "b||1|0.333333|0|0.000000|1.000000\n"
			   "%s||1|0.333333|0|0.000000|1.000000\n"
			   "%s|%.69s%%3A|1|0.333333|0|0.000000|1.000000\n",
			   aa, "", zz, zz, aa) > 0);
	cr_expect_str_eq(got, want);
	free(want);
	free(got);
}

Test(fairshare, empty_table)
{
	expect_output(true, "Account|User|RawShares|NormShares|RawUsage|"
			    "EffectvUsage|FairShare\n");
}

Test(fairshare, add_finds_existing)
{
	struct qd_fs_row *r = qd_fs_add(&t, "a", "u", NULL);

	r->raw_shares = 7;
	cr_expect_eq(t.n, 2);
	r = qd_fs_add(&t, "a", "u", NULL);
	cr_expect_eq(r->raw_shares, 7);
	cr_expect_eq(t.n, 2);
	cr_expect_eq(qd_fs_find(&t, "a", ""), qd_fs_find(&t, "a", NULL));
	cr_expect_null(qd_fs_find(&t, "b", NULL));
}

/*
 * The hash index (qd_fs_find, qd_fs_add): many rows, grown through every
 * rehash; names sharing a long prefix; found again after qd_fs_compute has
 * sorted the rows.
 */

/* The row by a plain walk, not by the index. */
static const struct qd_fs_row *walk(const char *account, const char *user)
{
	for (size_t i = 0; i < t.n; i++)
		if (!strcmp(t.rows[i].account, account) &&
		    !strcmp(t.rows[i].user, user))
			return &t.rows[i];
	return NULL;
}

#define PREFIX_40 "department-of-computational-sciences-gp"

static void many_names(int i, char *acct, char *usr)
{
	snprintf(acct, QD_NAME_MAX, PREFIX_40 "%d", i % 50);
	snprintf(usr, QD_NAME_MAX, PREFIX_40 "user%05d", i);
}

Test(fairshare, index_twenty_thousand_rows, .timeout = 60)
{
	enum { N = 20000 };
	char acct[QD_NAME_MAX], usr[QD_NAME_MAX];

	for (int i = 0; i < N; i++) {
		struct qd_fs_row *r;

		many_names(i, acct, usr);
		r = qd_fs_add(&t, acct, usr, NULL);
		cr_assert_not_null(r);
		cr_assert_str_eq(r->account, acct);
		cr_assert_str_eq(r->user, usr);
		r->usage = i;
		/* Found at once, and (every 50th row: the walk is linear,
		 * and all of them took over 60 s under ASan on a loaded host,
		 * make check run 51) the earliest rows still found. */
		cr_assert_eq(qd_fs_find(&t, acct, usr), r, "%s %s", acct, usr);
		if (i % 50)
			continue;
		many_names(i / 2, acct, usr);
		cr_assert_eq(qd_fs_find(&t, acct, usr), walk(acct, usr));
	}
	cr_assert_eq(t.n, N + 50);
	for (int i = 0; i < N; i++) {
		struct qd_fs_row *r;

		many_names(i, acct, usr);
		r = qd_fs_find(&t, acct, usr);
		cr_assert_not_null(r, "%s %s", acct, usr);
		cr_assert_float_eq(r->usage, i, 0);
		/* Adding it again finds it: no second row. */
		cr_assert_eq(qd_fs_add(&t, acct, usr, NULL), r);
	}
	cr_assert_eq(t.n, N + 50);
	for (int i = 0; i < 50; i++) {
		snprintf(acct, sizeof(acct), PREFIX_40 "%d", i);
		cr_assert_not_null(qd_fs_find(&t, acct, NULL), "%s", acct);
		cr_assert_str_eq(qd_fs_find(&t, acct, "")->user, "");
	}
	/* Names that are not there, some a prefix or an extension of one
	 * that is. */
	cr_expect_null(qd_fs_find(&t, PREFIX_40 "1", PREFIX_40 "user0000"));
	cr_expect_null(qd_fs_find(&t, PREFIX_40 "1", PREFIX_40 "user000011"));
	cr_expect_null(qd_fs_find(&t, PREFIX_40 "2", PREFIX_40 "user00001"));
	cr_expect_null(qd_fs_find(&t, PREFIX_40 "50", NULL));
	cr_expect_null(qd_fs_find(&t, PREFIX_40, NULL));
	cr_expect_null(qd_fs_find(&t, "", NULL));

	/* Sorted by qd_fs_compute: every row moved, each still found. */
	cr_assert_eq(qd_fs_compute(&t), 0);
	cr_assert_eq(t.n, N + 50);
	for (size_t k = 1; k < t.n; k++) {
		int c = strcmp(t.rows[k - 1].account, t.rows[k].account);

		cr_assert(c < 0 || (!c && strcmp(t.rows[k - 1].user,
						 t.rows[k].user) < 0));
	}
	for (int i = 0; i < N; i++) {
		const struct qd_fs_row *r;

		many_names(i, acct, usr);
		r = qd_fs_find(&t, acct, usr);
		cr_assert_not_null(r, "%s %s", acct, usr);
		cr_assert_eq(r, walk(acct, usr));
		cr_assert_float_eq(r->usage, i, 0);
	}
	for (size_t k = 0; k < t.n; k++)
		cr_assert_eq(qd_fs_find(&t, t.rows[k].account, t.rows[k].user),
			     &t.rows[k]);
	/* Rows added after the sort are indexed too. */
	cr_assert_not_null(qd_fs_add(&t, "zz", "late", NULL));
	cr_assert_eq(t.n, N + 52);
	cr_assert_eq(qd_fs_find(&t, "zz", "late"), walk("zz", "late"));
	cr_assert_eq(qd_fs_find(&t, "zz", NULL), walk("zz", ""));
	many_names(1234, acct, usr);
	cr_assert_eq(qd_fs_find(&t, acct, usr), walk(acct, usr));
}

/* (account, user) is a pair, not a concatenation. */
Test(fairshare, index_keeps_the_pair_apart)
{
	cr_assert_not_null(qd_fs_add(&t, "ab", NULL, NULL));
	cr_assert_not_null(qd_fs_add(&t, "a", "b", NULL));
	cr_assert_eq(t.n, 3); /* ab, a, a/b */
	cr_expect_str_eq(qd_fs_find(&t, "ab", NULL)->account, "ab");
	cr_expect_str_eq(qd_fs_find(&t, "a", "b")->user, "b");
	cr_expect_null(qd_fs_find(&t, "ab", "b"));
	cr_expect_null(qd_fs_find(&t, "a", "ab"));
	cr_expect_null(qd_fs_find(&t, "b", "a"));
	cr_expect_null(qd_fs_find(&t, "b", NULL));
}

/* Names of QD_NAME_MAX - 1 characters, alike but for the last one. */
Test(fairshare, index_longest_names)
{
	char a1[QD_NAME_MAX], a2[QD_NAME_MAX], u1[QD_NAME_MAX], u2[QD_NAME_MAX];

	memset(a1, 'a', QD_NAME_MAX - 1);
	a1[QD_NAME_MAX - 1] = '\0';
	memcpy(a2, a1, sizeof(a1));
	a2[QD_NAME_MAX - 2] = 'b';
	memset(u1, 'u', QD_NAME_MAX - 1);
	u1[QD_NAME_MAX - 1] = '\0';
	memcpy(u2, u1, sizeof(u1));
	u2[QD_NAME_MAX - 2] = 'v';
	cr_assert_eq(strlen(a1), 63);
	qd_fs_add(&t, a1, u1, NULL)->usage = 1;
	qd_fs_add(&t, a1, u2, NULL)->usage = 2;
	qd_fs_add(&t, a2, u1, NULL)->usage = 3;
	cr_assert_eq(t.n, 5);
	cr_expect_float_eq(qd_fs_find(&t, a1, u1)->usage, 1, 0);
	cr_expect_float_eq(qd_fs_find(&t, a1, u2)->usage, 2, 0);
	cr_expect_float_eq(qd_fs_find(&t, a2, u1)->usage, 3, 0);
	cr_expect_null(qd_fs_find(&t, a2, u2));
	cr_expect_eq(qd_fs_add(&t, a1, u1, NULL), qd_fs_find(&t, a1, u1));
	cr_assert_eq(qd_fs_compute(&t), 0);
	cr_expect_float_eq(qd_fs_find(&t, a1, u1)->usage, 1, 0);
	cr_expect_float_eq(qd_fs_find(&t, a1, u2)->usage, 2, 0);
	cr_expect_float_eq(qd_fs_find(&t, a2, u1)->usage, 3, 0);
	cr_expect_str_eq(qd_fs_find(&t, a2, NULL)->account, a2);
	cr_expect_eq(t.n, 5);
}

/* A table never added to, one freed, and one used again after qd_fs_free. */
Test(fairshare, index_free_and_reuse)
{
	cr_expect_null(qd_fs_find(&t, "a", NULL));
	cr_expect_null(qd_fs_find(&t, "a", "u"));
	for (int i = 0; i < 200; i++) {
		char u[16];

		snprintf(u, sizeof(u), "u%d", i);
		cr_assert_not_null(qd_fs_add(&t, "a", u, NULL));
	}
	cr_assert_eq(qd_fs_compute(&t), 0);
	qd_fs_free(&t);
	cr_expect_eq(t.n, 0);
	cr_expect_null(t.rows);
	cr_expect_null(t.slots);
	cr_expect_eq(t.nslots, 0);
	cr_expect_null(qd_fs_find(&t, "a", NULL));
	cr_expect_null(qd_fs_find(&t, "a", "u1"));
	qd_fs_add(&t, "b", "u1", NULL)->usage = 5;
	cr_assert_eq(t.n, 2);
	cr_expect_null(qd_fs_find(&t, "a", "u1"));
	cr_expect_float_eq(qd_fs_find(&t, "b", "u1")->usage, 5, 0);
	cr_assert_not_null(qd_fs_find(&t, "b", NULL));
	qd_fs_find(&t, "b", NULL)->usage = 5;
	/* And a compute of the reused table. */
	expect_output(true,
		      "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|"
		      "FairShare\n"
		      "b||1|1.000000|5|1.000000|0.500000\n"
		      "b|u1|1|1.000000|5|1.000000|0.500000\n");
}

/* Rows keep names to QD_NAME_MAX - 1 characters; a longer name must find
 * the row it made (sacctmgr allows longer account names), not add another. */
Test(fairshare, long_names_find_their_rows)
{
	char acct[100], name[100];

	memset(acct, 'a', 80);
	acct[80] = '\0';
	memset(name, 'u', 70);
	name[70] = '\0';
	cr_assert_eq(qd_fs_add_assoc(&t, acct, NULL, NULL, 5), 0);
	cr_assert_eq(qd_fs_add_assoc(&t, acct, name, NULL, 2), 0);
	cr_assert_eq(qd_fs_add_assoc(&t, acct, name, NULL, 9), 0);
	user(acct, name, 2, 10);
	cr_assert_eq(t.n, 2);
	cr_assert_not_null(qd_fs_find(&t, acct, NULL));
	cr_assert_eq(qd_fs_find(&t, acct, name)->raw_shares, 2);
	cr_assert_eq(qd_fs_find(&t, acct, name)->usage, 10);
	cr_assert_eq(strlen(t.rows[1].user), QD_NAME_MAX - 1);
}
