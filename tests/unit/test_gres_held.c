/* SPDX-License-Identifier: GPL-2.0-or-later
 * What a job holds on a node, from slurmctld's GRES detail in each
 * release's form (shared/usage/gres_held.h): whole GPUs count 1, S of a
 * GPU's N shares count S/N, to a thousandth.
 */
#include <criterion/criterion.h>

#include "gres_held.h"

static const struct qd_node_gres four_by_four = {
    .gpus = 4, .shards = 16, .mps = 400};

/* The thousandths detail holds on node, or -1 when it is refused. */
static long long held(const char *detail, const struct qd_node_gres *node)
{
	char err[256];
	uint64_t m;
	int shared;

	if (qd_gres_held(detail, node, &m, &shared, err, sizeof(err)))
		return -1;
	return (long long)m;
}

Test(gres_held, whole_gpus_count_one_each)
{
	cr_expect_eq(held("gpu:2(IDX:0-1)", NULL), 2000);
	cr_expect_eq(held("gpu:a100:1(IDX:3)", NULL), 1000);
	cr_expect_eq(held("gpu:1g.10gb:1(IDX:5),gpu:a100:1(IDX:0)", NULL),
		     2000);
	cr_expect_eq(held("gpu(CNT:3)", NULL), 3000);
	cr_expect_eq(held("", NULL), 0);
	cr_expect_eq(held(NULL, NULL), 0);
	/* Other GRES are not GPUs. */
	cr_expect_eq(held("nic:1(IDX:0),gpu:1(IDX:1)", NULL), 1000);
}

Test(gres_held, shares_per_gpu_from_23_11_2)
{
	/* shard:2 of a GPU's 4: half of it. */
	cr_expect_eq(held("shard:2(2/4,0/4,0/4,0/4)", NULL), 500);
	/* Across two GPUs of unequal counts: 1/4 + 2/8. */
	cr_expect_eq(held("shard:3(1/4,2/8)", NULL), 500);
	/* A third: to the nearest thousandth. */
	cr_expect_eq(held("shard:1(1/3,0/3)", NULL), 333);
	cr_expect_eq(held("shard:2(2/3)", NULL), 667);
	/* Never below a thousandth. */
	cr_expect_eq(held("mps:1(1/100000)", NULL), 1);
	cr_expect_eq(held("mps:50(50/100,0/100)", NULL), 500);
	cr_expect_eq(held("shard:a100:4(4/4)", NULL), 1000);
}

Test(gres_held, shares_by_index_before_23_11_2)
{
	/* N is the node's shards over its GPUs: 4. */
	cr_expect_eq(held("shard:2(IDX:0)", &four_by_four), 500);
	cr_expect_eq(held("shard:6(IDX:0-1)", &four_by_four), 1500);
	cr_expect_eq(held("mps:50(IDX:2)", &four_by_four), 500);
	cr_expect_eq(held("mps(CNT:25)", &four_by_four), 250);
	/* Without the node's counts there is no N. */
	cr_expect_eq(held("shard:2(IDX:0)", NULL), -1);
	cr_expect_eq(held("mps:50(IDX:0)",
			  &(struct qd_node_gres){.gpus = 4, .shards = 16}),
		     -1);
}

Test(gres_held, shared_is_said)
{
	char err[256];
	uint64_t m;
	int shared;

	cr_assert_eq(
	    qd_gres_held("gpu:1(IDX:0)", NULL, &m, &shared, err, sizeof(err)),
	    0);
	cr_expect_eq(shared, 0);
	cr_assert_eq(
	    qd_gres_held("shard:1(1/4)", NULL, &m, &shared, err, sizeof(err)),
	    0);
	cr_expect_eq(shared, 1);
}

Test(gres_held, what_is_not_slurmctlds_is_refused)
{
	char err[256];
	uint64_t m;
	int shared;

	cr_expect_eq(held("gpu", NULL), -1);
	cr_expect_eq(held("gpu:x(IDX:0)", NULL), -1);
	cr_expect_eq(held("gpu:1(IDX:0", NULL), -1);
	cr_expect_eq(held("gpu:1(IDX:(0))", NULL), -1);
	cr_expect_eq(held("shard:2(3/2)", NULL), -1);
	cr_expect_eq(held("shard:2(1/0)", NULL), -1);
	cr_expect_eq(held("shard:2(1/4,x)", NULL), -1);
	cr_expect_eq(held("shard:2(1/4,,1/4)", NULL), -1);
	cr_expect_eq(held("shard:2()", &four_by_four), -1);
	cr_expect_eq(held("shard:2((null))", &four_by_four), -1);
	cr_expect_eq(held("gpu:99999999999(IDX:0)", NULL), -1);
	cr_assert_eq(
	    qd_gres_held("shard:2(9/4)", NULL, &m, &shared, err, sizeof(err)),
	    -1);
	cr_expect_str_eq(err, "GRES detail entry 'shard:2(9/4)': not a list "
			      "of S/N per GPU");
}

Test(gres_held, node_gres_as_slurm_conf_gives_it)
{
	struct qd_node_gres n;
	char err[256];

	cr_assert_eq(qd_node_gres_parse("gpu:a100:4(S:0-1),shard:16,mps:400",
					&n, err, sizeof(err)),
		     0);
	cr_expect_eq(n.gpus, 4);
	cr_expect_eq(n.shards, 16);
	cr_expect_eq(n.mps, 400);
	cr_assert_eq(qd_node_gres_parse("gpu:a100:2,gpu:v100:2,shard:1K,nic",
					&n, err, sizeof(err)),
		     0);
	cr_expect_eq(n.gpus, 4);
	cr_expect_eq(n.shards, 1024);
	cr_assert_eq(qd_node_gres_parse("gpu:a100,gpu", &n, err, sizeof(err)),
		     0);
	cr_expect_eq(n.gpus, 2);
	/* A MIG profile is a type, though it starts with a digit. */
	cr_assert_eq(qd_node_gres_parse("gpu:1g.10gb,gpu:3g.40gb:2", &n, err,
					sizeof(err)),
		     0);
	cr_expect_eq(n.gpus, 3);
	cr_assert_eq(qd_node_gres_parse(NULL, &n, err, sizeof(err)), 0);
	cr_expect_eq(n.gpus, 0);
	cr_expect_eq(qd_node_gres_parse("gpu:4(S:0", &n, err, sizeof(err)), -1);
	cr_expect_eq(
	    qd_node_gres_parse("shard:99999999999", &n, err, sizeof(err)), -1);
}
