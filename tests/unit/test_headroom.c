/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "headroom.h"

#define ALL	(QD_DENY_ON_MAX_PER_JOB | QD_DENY_ON_MAX_PER_USER | QD_DENY_ON_GRP)
#define MAXCAPS 64

static struct qd_qos_rule rule;
static struct qd_limits lim;
static struct qd_usage used;
static struct qd_cap caps[MAXCAPS];

static void setup(void)
{
	memset(&rule, 0, sizeof(rule));
	strcpy(rule.name, "interactive");
	rule.flags = ALL;
	qd_tres_init(&lim.max_per_job);
	qd_tres_init(&lim.max_per_user);
	qd_tres_init(&lim.grp);
	qd_tres_init(&used.user);
	qd_tres_init(&used.all);
}

TestSuite(headroom, .init = setup);

/* The worked example's seed: alice holds 2 of interactive's 2 per-user GPUs
 * (docs/worked-example.md). */
Test(headroom, alice_holds_her_two_gpus)
{
	size_t n;

	qd_tres_set(&lim.max_per_job, QD_TRES_GPU, 4);
	qd_tres_set(&lim.max_per_user, QD_TRES_GPU, 2);
	qd_tres_set(&lim.grp, QD_TRES_GPU, 4);
	qd_tres_set(&used.user, QD_TRES_GPU, 2);
	qd_tres_set(&used.all, QD_TRES_GPU, 2);
	n = qd_caps(&rule, &lim, &used, caps, MAXCAPS);
	cr_assert_eq(n, 3);
	cr_expect_eq(caps[0].flag, QD_DENY_ON_MAX_PER_JOB);
	cr_expect_not(caps[0].has_in_use);
	cr_expect_eq(caps[1].flag, QD_DENY_ON_MAX_PER_USER);
	cr_expect_eq(caps[1].in_use, 2);
	cr_expect_eq(caps[2].flag, QD_DENY_ON_GRP);
	cr_expect_eq(caps[2].in_use, 2);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(caps[i].can_ask, 0, "cap %zu", i);
}

Test(headroom, charlie_has_eight_cpus_left)
{
	rule.flags = QD_DENY_ON_MAX_PER_USER;
	qd_tres_set(&lim.max_per_user, QD_TRES_CPU, 32);
	qd_tres_set(&lim.max_per_job, QD_TRES_CPU, 4); /* flag not enabled */
	qd_tres_set(&used.user, QD_TRES_CPU, 24);
	cr_assert_eq(qd_caps(&rule, &lim, &used, caps, MAXCAPS), 1);
	cr_expect_eq(caps[0].id, QD_TRES_CPU);
	cr_expect_eq(caps[0].limit, 32);
	cr_expect_eq(caps[0].in_use, 24);
	cr_expect_eq(caps[0].can_ask, 8);
}

Test(headroom, over_the_cap_is_zero_not_negative)
{
	qd_tres_set(&lim.grp, QD_TRES_MEM, 1024);
	qd_tres_set(&used.all, QD_TRES_MEM, 4096);
	cr_assert_eq(qd_caps(&rule, &lim, &used, caps, MAXCAPS), 1);
	cr_expect_eq(caps[0].can_ask, 0);
}

Test(headroom, unlimited_and_no_rule_give_no_caps)
{
	qd_tres_set(&lim.max_per_job, QD_TRES_GPU, QD_UNLIMITED);
	qd_tres_set_typed(&lim.grp, "a100", QD_UNLIMITED);
	cr_expect_eq(qd_caps(&rule, &lim, &used, caps, MAXCAPS), 0);
	qd_tres_set(&lim.max_per_job, QD_TRES_GPU, 1);
	cr_expect_eq(qd_caps(NULL, &lim, &used, caps, MAXCAPS), 0);
}

Test(headroom, types_and_gres_gpu_bound_each_other)
{
	char name[48];

	qd_tres_set(&lim.max_per_user, QD_TRES_GPU, 3);
	qd_tres_set_typed(&lim.grp, "a100", 4);
	qd_tres_set(&used.user, QD_TRES_GPU, 1);
	qd_tres_set_typed(&used.all, "a100", 3);
	cr_assert_eq(qd_caps(&rule, &lim, &used, caps, MAXCAPS), 2);
	/* untyped: min(3 - 1, a100's 4 - 3) */
	cr_expect_eq(caps[0].can_ask, 1);
	qd_cap_tres(&caps[1], name, sizeof(name));
	cr_expect_str_eq(name, "gres/gpu:a100");
	cr_expect_eq(caps[1].in_use, 3);
	cr_expect_eq(caps[1].can_ask, 1);
	qd_tres_set_typed(&used.all, "a100", 0);
	qd_caps(&rule, &lim, &used, caps, MAXCAPS);
	cr_expect_eq(caps[1].can_ask, 2, "a100 within gres/gpu's 2");
}

/* `qosdeny limits` lists the shares after the GPU types, in the checks'
 * order. */
Test(headroom, shares_after_the_gpu_types)
{
	const char *want[] = {"gres/gpu", "gres/gpu:a100", "gres/shard",
			      "gres/mps"};
	char name[48];

	qd_tres_set(&lim.grp, QD_TRES_MPS, 400);
	qd_tres_set(&lim.grp, QD_TRES_SHARD, 16);
	qd_tres_set_typed(&lim.grp, "a100", 4);
	qd_tres_set(&lim.grp, QD_TRES_GPU, 8);
	qd_tres_set(&used.all, QD_TRES_SHARD, 10);
	cr_assert_eq(qd_caps(&rule, &lim, &used, caps, MAXCAPS), 4);
	for (size_t i = 0; i < 4; i++) {
		qd_cap_tres(&caps[i], name, sizeof(name));
		cr_expect_str_eq(name, want[i]);
	}
	cr_expect_eq(caps[2].in_use, 10);
	cr_expect_eq(caps[2].can_ask, 6);
	cr_expect_eq(caps[3].can_ask, 400);
}

Test(headroom, counts_past_max)
{
	qd_tres_set(&lim.max_per_job, QD_TRES_CPU, 1);
	qd_tres_set(&lim.max_per_job, QD_TRES_NODE, 1);
	cr_expect_eq(qd_caps(&rule, &lim, &used, caps, 1), 2);
	cr_expect_eq(caps[0].id, QD_TRES_CPU);
}

/* The request of one cap's TRES as the plugin would count it: a type
 * counts toward gres/gpu too; untyped GPUs toward every limited type (a
 * partition with plenty of each). */
static void request_of(const struct qd_cap *c, uint64_t n, struct qd_tres *req)
{
	qd_tres_init(req);
	qd_tres_set(req, c->id, n);
	if (c->type[0]) {
		qd_tres_set_typed(req, c->type, n);
		return;
	}
	if (c->id != QD_TRES_GPU)
		return;
	for (const struct qd_tres *l = &lim.max_per_job; l <= &lim.grp; l++)
		for (size_t k = 0; k < l->ntyped; k++)
			qd_tres_set_typed(req, l->typed[k].type, n);
}

static uint64_t small(void)
{
	return (uint64_t)(rand() % 6);
}

static void random_vector(struct qd_tres *t, bool limit)
{
	static const char *const types[] = {"a100", "v100", "h100"};

	for (int id = 0; id < QD_TRES_FIXED; id++)
		if (rand() % 2)
			qd_tres_set(t, id,
				    limit && rand() % 5 == 0 ? QD_UNLIMITED
							     : small());
	for (size_t k = 0; k < 3; k++)
		if (rand() % 3 == 0)
			qd_tres_set_typed(t, types[k], small());
}

/* By construction: asking for can_ask passes every check, one more fails. */
Test(headroom, can_ask_passes_and_one_more_is_denied)
{
	struct qd_verdict v;
	struct qd_tres req;

	srand(13);
	for (int round = 0; round < 5000; round++) {
		size_t n;

		setup();
		rule.flags = 1 + rand() % ALL;
		random_vector(&lim.max_per_job, true);
		random_vector(&lim.max_per_user, true);
		random_vector(&lim.grp, true);
		random_vector(&used.user, false);
		random_vector(&used.all, false);
		n = qd_caps(&rule, &lim, &used, caps, MAXCAPS);
		cr_assert_leq(n, MAXCAPS);
		for (size_t i = 0; i < n; i++) {
			request_of(&caps[i], caps[i].can_ask, &req);
			cr_assert_not(qd_check(&rule, &lim, &used, &req, &v),
				      "round %d cap %zu: %s denied at can_ask",
				      round, i, v.tres);
			request_of(&caps[i], caps[i].can_ask + 1, &req);
			cr_assert(qd_check(&rule, &lim, &used, &req, &v),
				  "round %d cap %zu: can_ask+1 accepted", round,
				  i);
		}
	}
}
