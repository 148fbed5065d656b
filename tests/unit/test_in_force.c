/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The limit in force when a job runs under its own QoS and its partition's
 * (in_force.h): Slurm's order, the first QoS that sets a TRES deciding it,
 * the flag and usage of that QoS. The scenarios are the ones measured on
 * the test cluster without qosdeny (docs/how-it-decides.md, "Which limit").
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "in_force.h"

#define ALL (QD_DENY_ON_MAX_PER_JOB | QD_DENY_ON_MAX_PER_USER | QD_DENY_ON_GRP)

static struct qd_qos_rule job_rule, part_rule;
static struct qd_qos_side job, part;
static struct qd_tres req;
static struct qd_verdict v;

static void init_side(struct qd_qos_side *s, struct qd_qos_rule *r,
		      const char *name)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->flags = ALL;
	memset(s, 0, sizeof(*s));
	s->name = r->name;
	s->rule = r;
	qd_tres_init(&s->lim.max_per_job);
	qd_tres_init(&s->lim.max_per_user);
	qd_tres_init(&s->lim.grp);
	qd_tres_init(&s->used.user);
	qd_tres_init(&s->used.all);
}

static void setup(void)
{
	init_side(&job, &job_rule, "research");
	init_side(&part, &part_rule, "gpupart");
	qd_tres_init(&req);
}

/* The job's QoS and its partition's, in Slurm's order, checked. */
static bool denied(void)
{
	const struct qd_qos_side *order[2];
	struct qd_in_force in;
	size_t n = qd_qos_order(&job, &part, order);

	qd_limits_in_force(order, n, &in);
	return qd_check_in_force(order, &in, &req, &v);
}

TestSuite(in_force, .init = setup);

Test(in_force, order_partition_first)
{
	const struct qd_qos_side *order[2];

	cr_assert_eq(qd_qos_order(&job, &part, order), 2);
	cr_expect_eq(order[0], &part);
	cr_expect_eq(order[1], &job);
}

Test(in_force, order_over_part_qos)
{
	const struct qd_qos_side *order[2];

	job.over_part_qos = true;
	cr_assert_eq(qd_qos_order(&job, &part, order), 2);
	cr_expect_eq(order[0], &job);
	cr_expect_eq(order[1], &part);
}

Test(in_force, order_same_qos_once)
{
	const struct qd_qos_side *order[2];

	part.name = "RESEARCH";
	cr_assert_eq(qd_qos_order(&job, &part, order), 1);
	cr_expect_eq(order[0], &part);
	cr_expect_eq(qd_qos_order(&job, NULL, order), 1);
	cr_expect_eq(order[0], &job);
	cr_expect_eq(qd_qos_order(NULL, &part, order), 1);
	cr_expect_eq(order[0], &part);
	cr_expect_eq(qd_qos_order(NULL, NULL, order), 0);
}

/* Measured: partition QoS GrpTRES=gres/gpu=8, job QoS GrpTRES=gres/gpu=2,
 * 4 GPUs: Slurm runs the job. */
Test(in_force, partition_group_limit_decides)
{
	qd_tres_set(&part.lim.grp, QD_TRES_GPU, 8);
	qd_tres_set(&job.lim.grp, QD_TRES_GPU, 2);
	qd_tres_set(&req, QD_TRES_GPU, 4);
	cr_expect_not(denied(), "the partition QoS's 8 is in force: %s", v.qos);
	qd_tres_set(&req, QD_TRES_GPU, 9);
	cr_assert(denied());
	cr_expect_str_eq(v.qos, "gpupart");
	cr_expect_eq(v.flag, QD_DENY_ON_GRP);
	cr_expect_eq(v.limit, 8);
}

/* Measured: the same with MaxTRESPerJob. */
Test(in_force, partition_per_job_limit_decides)
{
	qd_tres_set(&part.lim.max_per_job, QD_TRES_GPU, 8);
	qd_tres_set(&job.lim.max_per_job, QD_TRES_GPU, 2);
	qd_tres_set(&req, QD_TRES_GPU, 4);
	cr_expect_not(denied());
}

/* OverPartQOS on the job's QoS: its limit is in force. */
Test(in_force, over_part_qos_job_limit_decides)
{
	job.over_part_qos = true;
	qd_tres_set(&part.lim.grp, QD_TRES_GPU, 8);
	qd_tres_set(&job.lim.grp, QD_TRES_GPU, 2);
	qd_tres_set(&req, QD_TRES_GPU, 4);
	cr_assert(denied());
	cr_expect_str_eq(v.qos, "research");
	cr_expect_eq(v.limit, 2);
}

/* A partition QoS that limits cpu alone leaves gres/gpu to the job's. */
Test(in_force, each_tres_on_its_own)
{
	qd_tres_set(&part.lim.grp, QD_TRES_CPU, 100);
	qd_tres_set(&job.lim.grp, QD_TRES_GPU, 2);
	qd_tres_set(&job.lim.grp, QD_TRES_CPU, 4);
	qd_tres_set(&req, QD_TRES_CPU, 8);
	qd_tres_set(&req, QD_TRES_GPU, 3);
	cr_assert(denied());
	cr_expect_str_eq(v.qos, "research");
	cr_expect_str_eq(v.tres, "gres/gpu", "cpu is the partition QoS's 100");
	cr_expect_eq(v.limit, 2);
}

/* The limit in force belongs to a QoS without the kind's flag (or without
 * a record): nothing is denied, whatever the other QoS says. */
Test(in_force, flag_of_the_deciding_qos)
{
	part_rule.flags = QD_DENY_ON_MAX_PER_JOB;
	qd_tres_set(&part.lim.grp, QD_TRES_GPU, 3);
	qd_tres_set(&job.lim.grp, QD_TRES_GPU, 1);
	qd_tres_set(&req, QD_TRES_GPU, 4);
	cr_expect_not(denied(), "gpupart has no DenyOnGrp");
	part.rule = NULL;
	cr_expect_not(denied(), "gpupart has no record");
	part.rule = &part_rule;
	part_rule.flags = ALL;
	cr_expect(denied());
	cr_expect_str_eq(v.qos, "gpupart");
}

/* Usage is the deciding QoS's own. */
Test(in_force, usage_of_the_deciding_qos)
{
	qd_tres_set(&part.lim.max_per_user, QD_TRES_GPU, 4);
	qd_tres_set(&part.used.user, QD_TRES_GPU, 1);
	qd_tres_set(&job.used.user, QD_TRES_GPU, 3);
	qd_tres_set(&req, QD_TRES_GPU, 3);
	cr_expect_not(denied(), "1 + 3 of gpupart's 4");
	qd_tres_set(&part.used.user, QD_TRES_GPU, 2);
	cr_assert(denied());
	cr_expect_eq(v.flag, QD_DENY_ON_MAX_PER_USER);
	cr_expect_eq(v.in_use, 2);
	cr_expect_str_eq(v.qos, "gpupart");
}

/* An unlimited limit (a record's -1) sets nothing: the next QoS's holds. */
Test(in_force, unlimited_falls_through)
{
	qd_tres_set(&part.lim.grp, QD_TRES_GPU, QD_UNLIMITED);
	qd_tres_set(&job.lim.grp, QD_TRES_GPU, 2);
	qd_tres_set(&req, QD_TRES_GPU, 3);
	cr_assert(denied());
	cr_expect_str_eq(v.qos, "research");
}

/* Typed GPUs: each type on its own. */
Test(in_force, typed_each_type_on_its_own)
{
	qd_tres_set_typed(&part.lim.max_per_job, "a100", 8);
	qd_tres_set_typed(&job.lim.max_per_job, "a100", 1);
	qd_tres_set_typed(&job.lim.max_per_job, "v100", 1);
	qd_tres_set_typed(&req, "a100", 2);
	cr_expect_not(denied(), "a100: gpupart's 8");
	qd_tres_set_typed(&req, "v100", 2);
	cr_assert(denied());
	cr_expect_str_eq(v.tres, "gres/gpu:v100");
	cr_expect_str_eq(v.qos, "research");
}

/* Within one kind the TRES go cpu, mem, node, gres/gpu, the GPU types,
 * gres/shard, gres/mps: the first over its limit is the one reported. */
Test(in_force, shares_after_the_gpu_types)
{
	qd_tres_set(&job.lim.max_per_job, QD_TRES_MPS, 100);
	qd_tres_set(&job.lim.max_per_job, QD_TRES_SHARD, 4);
	qd_tres_set_typed(&job.lim.max_per_job, "a100", 1);
	qd_tres_set(&req, QD_TRES_MPS, 200);
	cr_assert(denied());
	cr_expect_str_eq(v.tres, "gres/mps");
	cr_expect_eq(v.requested, 200);
	cr_expect_eq(v.limit, 100);
	qd_tres_set(&req, QD_TRES_SHARD, 5);
	cr_assert(denied());
	cr_expect_str_eq(v.tres, "gres/shard");
	qd_tres_set_typed(&req, "a100", 2);
	cr_assert(denied());
	cr_expect_str_eq(v.tres, "gres/gpu:a100");
}

/* A per-user cap on shards counts the user's shards in use, as Slurm's
 * MaxTRESPerUser does. */
Test(in_force, shards_in_use)
{
	qd_tres_set(&job.lim.max_per_user, QD_TRES_SHARD, 4);
	qd_tres_set(&job.used.user, QD_TRES_SHARD, 3);
	qd_tres_set(&req, QD_TRES_SHARD, 1);
	cr_expect_not(denied(), "3 + 1 is the cap");
	qd_tres_set(&req, QD_TRES_SHARD, 2);
	cr_assert(denied());
	cr_expect_eq(v.flag, QD_DENY_ON_MAX_PER_USER);
	cr_expect_str_eq(v.tres, "gres/shard");
	cr_expect_eq(v.in_use, 3);
}

/* The kinds in the order of the checks: per job before per user before
 * group, whichever QoS each comes from. */
Test(in_force, kinds_in_order)
{
	qd_tres_set(&job.lim.grp, QD_TRES_GPU, 1);
	qd_tres_set(&part.lim.max_per_user, QD_TRES_GPU, 1);
	qd_tres_set(&req, QD_TRES_GPU, 2);
	cr_assert(denied());
	cr_expect_eq(v.flag, QD_DENY_ON_MAX_PER_USER);
	cr_expect_str_eq(v.qos, "gpupart");
}

/* Measured: GrpTRES=node=1, a second 1-node job where the QoS's first runs:
 * Slurm runs it on that node, which it counts once. */
Test(in_force, shared_node_adds_nothing)
{
	qd_tres_set(&job.lim.grp, QD_TRES_NODE, 1);
	qd_tres_set(&job.used.all, QD_TRES_NODE, 1);
	qd_tres_set(&req, QD_TRES_NODE, 1);
	cr_expect(denied(), "no node the job could share: a new one");
	job.used.all_nodes_shared = 1;
	cr_expect_not(denied(), "the node in use could take it");
	qd_tres_set(&req, QD_TRES_NODE, 2);
	cr_assert(denied(), "one of its two nodes is new");
	cr_expect_str_eq(v.tres, "node");
	cr_expect_eq(v.requested, 2, "the message shows what it asked for");
	cr_expect_eq(v.in_use, 1);
}

/* The same per user, from the user's own nodes; per job, never. */
Test(in_force, shared_node_per_user_and_per_job)
{
	qd_tres_set(&job.lim.max_per_user, QD_TRES_NODE, 1);
	qd_tres_set(&job.used.user, QD_TRES_NODE, 1);
	qd_tres_set(&req, QD_TRES_NODE, 1);
	job.used.all_nodes_shared = 1;
	cr_expect(denied(), "the QoS's nodes are not the user's");
	job.used.user_nodes_shared = 1;
	cr_expect_not(denied());
	qd_tres_set(&job.lim.max_per_job, QD_TRES_NODE, 1);
	qd_tres_set(&req, QD_TRES_NODE, 2);
	job.used.user_nodes_shared = 2;
	cr_assert(denied());
	cr_expect_eq(v.flag, QD_DENY_ON_MAX_PER_JOB);
}

/* A QoS's own share of the limits in force (`qosdeny limits`). */
Test(in_force, limits_of_one_qos)
{
	const struct qd_qos_side *order[2];
	struct qd_in_force in;
	struct qd_limits mine;
	size_t n;

	qd_tres_set(&part.lim.grp, QD_TRES_GPU, 8);
	qd_tres_set(&job.lim.grp, QD_TRES_GPU, 2);
	qd_tres_set(&job.lim.grp, QD_TRES_CPU, 16);
	qd_tres_set_typed(&job.lim.max_per_job, "a100", 1);
	n = qd_qos_order(&job, &part, order);
	qd_limits_in_force(order, n, &in);
	qd_limits_in_force_of(&in, 1, &mine);
	cr_expect_not(mine.grp.set[QD_TRES_GPU], "gpupart's 8 is in force");
	cr_expect_eq(qd_tres_get(&mine.grp, QD_TRES_CPU, 0), 16);
	cr_expect_eq(qd_tres_get_typed(&mine.max_per_job, "a100", 0), 1);
	qd_limits_in_force_of(&in, 0, &mine);
	cr_expect_eq(qd_tres_get(&mine.grp, QD_TRES_GPU, 0), 8);
	cr_expect_eq(mine.max_per_job.ntyped, 0);
}
