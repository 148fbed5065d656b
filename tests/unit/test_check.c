/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define ALL (QD_DENY_ON_MAX_PER_JOB | QD_DENY_ON_MAX_PER_USER | QD_DENY_ON_GRP)

static struct qd_qos_rule rule;
static struct qd_limits lim;
static struct qd_usage used;
static struct qd_tres req;
static struct qd_verdict v;

static void setup(void)
{
	memset(&rule, 0, sizeof(rule));
	strcpy(rule.name, "interactive");
	rule.flags = ALL;
	qd_tres_init(&rule.max_per_job);
	qd_tres_init(&rule.max_per_user);
	qd_tres_init(&rule.grp);
	qd_tres_init(&lim.max_per_job);
	qd_tres_init(&lim.max_per_user);
	qd_tres_init(&lim.grp);
	qd_tres_init(&used.user);
	qd_tres_init(&used.all);
	qd_tres_init(&req);
}

static bool check(void)
{
	return qd_check(&rule, &lim, &used, &req, &v);
}

static void expect_denied(enum qd_flag flag, const char *tres, uint64_t r,
			  uint64_t in_use, uint64_t limit)
{
	cr_assert(v.denied, "expected a denial");
	cr_expect_eq(v.flag, flag);
	cr_expect_str_eq(v.qos, "interactive");
	cr_expect_str_eq(v.tres, tres);
	cr_expect_eq(v.requested, r);
	cr_expect_eq(v.in_use, in_use);
	cr_expect_eq(v.limit, limit);
}

TestSuite(check, .init = setup);

/* DenyOnMaxPerJob: R > limit */
Test(check, per_job_boundary)
{
	qd_tres_set(&lim.max_per_job, QD_TRES_GPU, 4);
	qd_tres_set(&req, QD_TRES_GPU, 4);
	cr_expect_not(check(), "equal to the limit passes");
	cr_expect_not(v.denied);
	qd_tres_set(&req, QD_TRES_GPU, 5);
	cr_assert(check());
	expect_denied(QD_DENY_ON_MAX_PER_JOB, "gres/gpu", 5, 0, 4);
}

/* Usage does not count toward the per-job limit. */
Test(check, per_job_ignores_usage)
{
	qd_tres_set(&lim.max_per_job, QD_TRES_CPU, 8);
	qd_tres_set(&used.user, QD_TRES_CPU, 100);
	qd_tres_set(&used.all, QD_TRES_CPU, 100);
	qd_tres_set(&req, QD_TRES_CPU, 8);
	rule.flags = QD_DENY_ON_MAX_PER_JOB;
	cr_expect_not(check());
}

/* DenyOnMaxPerUser: used_by_user + R > limit */
Test(check, per_user_boundary)
{
	qd_tres_set(&lim.max_per_user, QD_TRES_GPU, 2);
	qd_tres_set(&used.user, QD_TRES_GPU, 1);
	qd_tres_set(&used.all, QD_TRES_GPU, 50);
	qd_tres_set(&req, QD_TRES_GPU, 1);
	cr_expect_not(check(), "1 + 1 <= 2 passes");
	qd_tres_set(&used.user, QD_TRES_GPU, 2);
	cr_assert(check());
	expect_denied(QD_DENY_ON_MAX_PER_USER, "gres/gpu", 1, 2, 2);
}

/* DenyOnGrp: used_by_all + R > limit */
Test(check, grp_boundary)
{
	qd_tres_set(&lim.grp, QD_TRES_MEM, 4096);
	qd_tres_set(&used.all, QD_TRES_MEM, 2048);
	qd_tres_set(&req, QD_TRES_MEM, 2048);
	cr_expect_not(check());
	qd_tres_set(&req, QD_TRES_MEM, 2049);
	cr_assert(check());
	expect_denied(QD_DENY_ON_GRP, "mem", 2049, 2048, 4096);
	cr_expect(v.is_mem);
}

Test(check, unlimited_is_not_checked)
{
	qd_tres_set(&lim.max_per_job, QD_TRES_CPU, QD_UNLIMITED);
	qd_tres_set(&lim.max_per_user, QD_TRES_CPU, QD_UNLIMITED);
	qd_tres_set(&lim.grp, QD_TRES_CPU, QD_UNLIMITED);
	qd_tres_set(&used.user, QD_TRES_CPU, QD_UNLIMITED - 1);
	qd_tres_set(&used.all, QD_TRES_CPU, QD_UNLIMITED - 1);
	qd_tres_set(&req, QD_TRES_CPU, QD_UNLIMITED - 1);
	cr_expect_not(check());
}

/* A TRES without a limit is not checked, whatever the request. */
Test(check, unset_limit_is_not_checked)
{
	qd_tres_set(&lim.max_per_job, QD_TRES_CPU, 1);
	qd_tres_set(&req, QD_TRES_GPU, 1000);
	qd_tres_set(&req, QD_TRES_MEM, 1000);
	qd_tres_set_typed(&req, "a100", 1000);
	cr_expect_not(check());
}

Test(check, zero_limit_denies_any_request)
{
	qd_tres_set(&lim.max_per_job, QD_TRES_GPU, 0);
	qd_tres_set(&req, QD_TRES_GPU, 0);
	cr_expect_not(check(), "asking for none passes a limit of 0");
	qd_tres_set(&req, QD_TRES_GPU, 1);
	cr_assert(check());
	expect_denied(QD_DENY_ON_MAX_PER_JOB, "gres/gpu", 1, 0, 0);
}

/* As in Slurm's _validate_tres_usage_limits: R == 0 is never checked, even
 * with the QoS already over its limit. */
Test(check, unrequested_tres_passes_over_used_limit)
{
	qd_tres_set(&lim.max_per_user, QD_TRES_GPU, 2);
	qd_tres_set(&lim.grp, QD_TRES_GPU, 2);
	qd_tres_set(&used.user, QD_TRES_GPU, 5);
	qd_tres_set(&used.all, QD_TRES_GPU, 5);
	qd_tres_set(&req, QD_TRES_CPU, 1);
	cr_expect_not(check());
}

Test(check, disabled_flags_skip_their_check)
{
	qd_tres_set(&lim.max_per_job, QD_TRES_CPU, 1);
	qd_tres_set(&lim.max_per_user, QD_TRES_CPU, 1);
	qd_tres_set(&lim.grp, QD_TRES_CPU, 1);
	qd_tres_set(&req, QD_TRES_CPU, 2);
	rule.flags = 0;
	cr_expect_not(check());
	rule.flags = QD_DENY_ON_GRP;
	cr_assert(check());
	cr_expect_eq(v.flag, QD_DENY_ON_GRP);
	rule.flags = QD_DENY_ON_MAX_PER_USER | QD_DENY_ON_GRP;
	cr_assert(check());
	cr_expect_eq(v.flag, QD_DENY_ON_MAX_PER_USER);
}

Test(check, no_rule_no_denial)
{
	qd_tres_set(&lim.max_per_job, QD_TRES_CPU, 0);
	qd_tres_set(&req, QD_TRES_CPU, 1);
	cr_expect_not(qd_check(NULL, &lim, &used, &req, &v));
	cr_expect_not(v.denied);
}

/* Per job, then per user, then group: the first failure is reported. */
Test(check, order_of_checks)
{
	qd_tres_set(&lim.max_per_job, QD_TRES_GPU, 1);
	qd_tres_set(&lim.max_per_user, QD_TRES_CPU, 1);
	qd_tres_set(&lim.grp, QD_TRES_CPU, 1);
	qd_tres_set(&req, QD_TRES_GPU, 2);
	qd_tres_set(&req, QD_TRES_CPU, 2);
	cr_assert(check());
	expect_denied(QD_DENY_ON_MAX_PER_JOB, "gres/gpu", 2, 0, 1);
	qd_tres_set(&req, QD_TRES_GPU, 1);
	cr_assert(check());
	expect_denied(QD_DENY_ON_MAX_PER_USER, "cpu", 2, 0, 1);
}

/* Within a check: cpu, mem, node, gres/gpu, the types by name, gres/shard,
 * gres/mps. */
Test(check, order_of_tres)
{
	struct qd_tres *l = &lim.max_per_job;
	static const char *const want[] = {
	    "cpu",	     "mem",	      "node",	    "gres/gpu",
	    "gres/gpu:a100", "gres/gpu:v100", "gres/shard", "gres/mps"};
	static const enum qd_tres_id after[] = {QD_TRES_SHARD, QD_TRES_MPS};
	const size_t types = 2;

	qd_tres_set(l, QD_TRES_MPS, 0);
	qd_tres_set(l, QD_TRES_SHARD, 0);
	qd_tres_set_typed(l, "v100", 0);
	qd_tres_set_typed(l, "a100", 0);
	qd_tres_set(l, QD_TRES_GPU, 0);
	qd_tres_set(l, QD_TRES_NODE, 0);
	qd_tres_set(l, QD_TRES_MEM, 0);
	qd_tres_set(l, QD_TRES_CPU, 0);
	qd_tres_set(&req, QD_TRES_CPU, 1);
	qd_tres_set(&req, QD_TRES_MEM, 1);
	qd_tres_set(&req, QD_TRES_NODE, 1);
	qd_tres_set(&req, QD_TRES_GPU, 1);
	qd_tres_set_typed(&req, "a100", 1);
	qd_tres_set_typed(&req, "v100", 1);
	qd_tres_set(&req, QD_TRES_SHARD, 1);
	qd_tres_set(&req, QD_TRES_MPS, 1);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cr_assert(check());
		cr_expect_str_eq(v.tres, want[i]);
		/* Lift the limit just reported to see the next one. */
		if (i < QD_TRES_BEFORE_TYPES)
			qd_tres_set(l, (enum qd_tres_id)i, 1);
		else if (i < QD_TRES_BEFORE_TYPES + types)
			qd_tres_set_typed(l, want[i] + strlen("gres/gpu:"), 1);
		else
			qd_tres_set(l, after[i - QD_TRES_BEFORE_TYPES - types],
				    1);
	}
	cr_expect_not(check());
}

Test(check, typed_limit)
{
	qd_tres_set_typed(&lim.max_per_user, "a100", 2);
	qd_tres_set_typed(&used.user, "a100", 1);
	qd_tres_set(&req, QD_TRES_GPU, 3);
	qd_tres_set_typed(&req, "v100", 3);
	cr_expect_not(check(), "other types do not count toward a100");
	qd_tres_set_typed(&req, "a100", 2);
	cr_assert(check());
	expect_denied(QD_DENY_ON_MAX_PER_USER, "gres/gpu:a100", 2, 1, 2);
	cr_expect_not(v.is_mem);
}

/* used + R saturates instead of wrapping to a small number. */
Test(check, saturating_sum)
{
	qd_tres_set(&lim.grp, QD_TRES_GPU, 1000);
	qd_tres_set(&used.all, QD_TRES_GPU, UINT64_MAX - 10);
	qd_tres_set(&req, QD_TRES_GPU, 100);
	cr_assert(check());
	expect_denied(QD_DENY_ON_GRP, "gres/gpu", 100, UINT64_MAX - 10, 1000);
	qd_tres_set(&used.all, QD_TRES_GPU, UINT64_MAX);
	qd_tres_set(&req, QD_TRES_GPU, UINT64_MAX);
	cr_expect(check());
}

/* A limit of UNLIMITED - 1 is the largest real one: a saturated sum
 * reaches it without passing it. */
Test(check, saturation_ceiling)
{
	qd_tres_set(&lim.grp, QD_TRES_CPU, QD_UNLIMITED - 1);
	qd_tres_set(&used.all, QD_TRES_CPU, QD_UNLIMITED - 1);
	qd_tres_set(&req, QD_TRES_CPU, 5);
	cr_expect_not(check());
}

Test(check, verdict_cleared_when_passing)
{
	qd_tres_set(&lim.max_per_job, QD_TRES_CPU, 1);
	qd_tres_set(&req, QD_TRES_CPU, 2);
	cr_assert(check());
	qd_tres_set(&req, QD_TRES_CPU, 1);
	cr_assert_not(check());
	cr_expect_not(v.denied);
	cr_expect_str_eq(v.tres, "");
}

/* Merging: the rule's TRES replace the database's, the rest stays. */
Test(check, merge_overrides_per_tres)
{
	struct qd_limits db, out;

	qd_tres_init(&db.max_per_job);
	qd_tres_init(&db.max_per_user);
	qd_tres_init(&db.grp);
	qd_tres_set(&db.max_per_job, QD_TRES_CPU, 16);
	qd_tres_set(&db.max_per_job, QD_TRES_MEM, 4096);
	qd_tres_set_typed(&db.max_per_job, "a100", 4);
	qd_tres_set_typed(&db.max_per_job, "v100", 8);
	qd_tres_set(&db.grp, QD_TRES_GPU, 10);
	qd_tres_set(&rule.max_per_job, QD_TRES_CPU, 32);
	qd_tres_set(&rule.max_per_job, QD_TRES_GPU, 2);
	qd_tres_set_typed(&rule.max_per_job, "a100", 1);
	qd_tres_set(&rule.max_per_user, QD_TRES_NODE, QD_UNLIMITED);

	qd_limits_merge(&out, &db, &rule);
	cr_expect_eq(qd_tres_get(&out.max_per_job, QD_TRES_CPU, 0), 32);
	cr_expect_eq(qd_tres_get(&out.max_per_job, QD_TRES_MEM, 0), 4096);
	cr_expect_eq(qd_tres_get(&out.max_per_job, QD_TRES_GPU, 0), 2);
	cr_expect_not(out.max_per_job.set[QD_TRES_NODE]);
	cr_expect_eq(out.max_per_job.ntyped, 2);
	cr_expect_eq(qd_tres_get_typed(&out.max_per_job, "a100", 0), 1);
	cr_expect_eq(qd_tres_get_typed(&out.max_per_job, "v100", 0), 8);
	cr_expect_eq(qd_tres_get(&out.max_per_user, QD_TRES_NODE, 0),
		     QD_UNLIMITED, "a rule can lift a database limit");
	cr_expect_eq(qd_tres_get(&out.grp, QD_TRES_GPU, 0), 10);
	cr_expect_eq(out.grp.ntyped, 0);
}

Test(check, merge_without_rule_copies_db)
{
	struct qd_limits db, out;

	qd_tres_init(&db.max_per_job);
	qd_tres_init(&db.max_per_user);
	qd_tres_init(&db.grp);
	qd_tres_set(&db.max_per_user, QD_TRES_CPU, 3);
	qd_tres_set_typed(&db.grp, "a100", 4);
	qd_limits_merge(&out, &db, NULL);
	cr_expect_eq(qd_tres_get(&out.max_per_user, QD_TRES_CPU, 0), 3);
	cr_expect_not(out.max_per_job.set[QD_TRES_CPU]);
	cr_expect_eq(out.grp.ntyped, 1);
	cr_expect_eq(qd_tres_get_typed(&out.grp, "a100", 0), 4);
}

/* The rule's types survive when the two together exceed a vector. */
Test(check, merge_full_vector_keeps_rule_types)
{
	struct qd_limits db, out;
	char name[16];

	qd_tres_init(&db.max_per_job);
	qd_tres_init(&db.max_per_user);
	qd_tres_init(&db.grp);
	for (int i = 0; i < QD_TYPES_MAX; i++) {
		snprintf(name, sizeof(name), "d%02d", i);
		qd_tres_set_typed(&db.grp, name, 1);
	}
	qd_tres_set_typed(&rule.grp, "zz", 7);
	qd_limits_merge(&out, &db, &rule);
	cr_expect_eq(out.grp.ntyped, QD_TYPES_MAX);
	cr_expect_eq(qd_tres_get_typed(&out.grp, "zz", 0), 7);
}

/* Merge then check, as the adapter does. */
Test(check, merged_limits_decide)
{
	struct qd_limits db;

	qd_tres_init(&db.max_per_job);
	qd_tres_init(&db.max_per_user);
	qd_tres_init(&db.grp);
	qd_tres_set(&db.max_per_job, QD_TRES_GPU, 8);
	qd_tres_set(&rule.max_per_job, QD_TRES_GPU, 4);
	qd_limits_merge(&lim, &db, &rule);
	qd_tres_set(&req, QD_TRES_GPU, 5);
	cr_assert(check());
	expect_denied(QD_DENY_ON_MAX_PER_JOB, "gres/gpu", 5, 0, 4);
}
