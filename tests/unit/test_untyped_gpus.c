/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <criterion/criterion.h>
#include <string.h>

#include "untyped_gpus.h"

static struct qd_tres req, reach;

static void setup(void)
{
	qd_tres_init(&req);
	qd_tres_init(&reach);
	qd_tres_set_typed(&reach, "a100", 4);
	qd_tres_set_typed(&reach, "v100", 8);
}

TestSuite(untyped, .init = setup);

Test(untyped, counts_what_no_type_claims)
{
	qd_tres_set(&req, QD_TRES_GPU, 5);
	cr_expect_eq(qd_untyped_gpus(&req), 5);
	qd_tres_set_typed(&req, "a100", 2);
	cr_expect_eq(qd_untyped_gpus(&req), 3);
	qd_tres_set(&req, QD_TRES_GPU, 2);
	cr_expect_eq(qd_untyped_gpus(&req), 0, "all typed");
	qd_tres_init(&req);
	cr_expect_eq(qd_untyped_gpus(&req), 0, "no GPU at all");
}

/* Typed counts larger than gres/gpu (the same type twice in other case:
 * Slurm keeps the later record) leave nothing untyped, not a wrapped sum. */
Test(untyped, typed_beyond_total)
{
	qd_tres_set(&req, QD_TRES_GPU, 3);
	qd_tres_set_typed(&req, "a100", 2);
	qd_tres_set_typed(&req, "v100", 2);
	cr_expect_eq(qd_untyped_gpus(&req), 0);
	qd_tres_set_typed(&req, "v100", QD_COUNT_MAX);
	cr_expect_eq(qd_untyped_gpus(&req), 0);
}

Test(untyped, counted_toward_each_type_reached)
{
	qd_tres_set(&req, QD_TRES_GPU, 3);
	qd_count_untyped_gpus(&req, &reach);
	cr_expect_eq(qd_tres_get_typed(&req, "a100", 0), 3);
	cr_expect_eq(qd_tres_get_typed(&req, "v100", 0), 3);
	cr_expect_eq(qd_tres_get(&req, QD_TRES_GPU, 0), 3, "total unchanged");
}

Test(untyped, no_more_than_the_partitions_have)
{
	qd_tres_set(&req, QD_TRES_GPU, 6);
	qd_count_untyped_gpus(&req, &reach);
	cr_expect_eq(qd_tres_get_typed(&req, "a100", 0), 4);
	cr_expect_eq(qd_tres_get_typed(&req, "v100", 0), 6);
}

Test(untyped, typed_part_kept_and_topped_up)
{
	qd_tres_set(&req, QD_TRES_GPU, 3); /* a100:1 plus 2 of any type */
	qd_tres_set_typed(&req, "a100", 1);
	qd_count_untyped_gpus(&req, &reach);
	cr_expect_eq(qd_tres_get_typed(&req, "a100", 0), 3);
	cr_expect_eq(qd_tres_get_typed(&req, "v100", 0), 2);
}

Test(untyped, typed_request_never_lowered)
{
	qd_tres_set(&req, QD_TRES_GPU, 9);
	qd_tres_set_typed(&req, "a100", 9);
	qd_count_untyped_gpus(&req, &reach);
	cr_expect_eq(qd_tres_get_typed(&req, "a100", 0), 9);
	cr_expect_eq(qd_tres_get_typed(&req, "v100", 0), 0, "nothing untyped");
}

Test(untyped, types_absent_from_partitions_untouched)
{
	qd_tres_init(&reach);
	qd_tres_set(&req, QD_TRES_GPU, 3);
	qd_count_untyped_gpus(&req, &reach);
	cr_expect_eq(req.ntyped, 0);
}

Test(untyped, huge_counts_saturate)
{
	qd_tres_set_typed(&reach, "h100", QD_COUNT_MAX);
	qd_tres_set(&req, QD_TRES_GPU, QD_COUNT_MAX);
	qd_tres_set_typed(&req, "h100", 1);
	qd_count_untyped_gpus(&req, &reach);
	cr_expect_eq(qd_tres_get_typed(&req, "h100", 0), QD_COUNT_MAX);
}

static struct qd_verdict denial(const char *tres, uint64_t requested)
{
	struct qd_verdict v = {.denied = true, .requested = requested};

	strcpy(v.tres, tres);
	return v;
}

Test(untyped, verdict_noted_only_when_untyped_gpus_made_it)
{
	struct qd_verdict v = denial("gres/gpu:a100", 3);

	qd_tres_set(&req, QD_TRES_GPU, 3);
	qd_verdict_note_untyped(&v, &req);
	cr_expect(v.untyped, "gpu:3 counted as a100");
	qd_tres_set_typed(&req, "a100", 3);
	qd_verdict_note_untyped(&v, &req);
	cr_expect_not(v.untyped, "gpu:a100:3 as asked");
	v = denial("gres/gpu", 3);
	qd_verdict_note_untyped(&v, &req);
	cr_expect_not(v.untyped, "an untyped cap");
	v = denial("gres/gpu:a100", 3);
	v.denied = false;
	qd_verdict_note_untyped(&v, &req);
	cr_expect_not(v.untyped, "no denial");
}

Test(untyped, denial_line_says_why)
{
	struct qd_verdict v = denial("gres/gpu:a100", 3);
	char buf[256];

	v.flag = QD_DENY_ON_MAX_PER_JOB;
	v.limit = 2;
	v.untyped = true;
	strcpy(v.qos, "limited");
	qd_verdict_format(&v, buf, sizeof(buf));
	cr_expect_str_eq(buf, "qosdeny: DenyOnMaxPerJob: QOS limited: "
			      "gres/gpu:a100 requested 3, MaxTRESPerJob limit "
			      "2 (untyped GPUs count toward every GPU type "
			      "the job's partitions have)");
}

/* More GPU types than a vector holds: a capped type missing from reach may
 * be one the job can be given, so all its untyped GPUs count. */
Test(untyped, unbounded_for_capped_types_reach_lacks)
{
	struct qd_tres caps, asked;

	qd_tres_init(&caps);
	qd_tres_set_typed(&caps, "h100", 1);
	qd_tres_set_typed(&caps, "a100", 2);
	qd_tres_set(&req, QD_TRES_GPU, 3);
	asked = req;
	qd_count_untyped_gpus(&req, &reach);
	qd_count_untyped_gpus_unbounded(&req, &asked, &reach, &caps);
	cr_expect_eq(qd_tres_get_typed(&req, "h100", 0), 3, "not in reach");
	cr_expect_eq(qd_tres_get_typed(&req, "a100", 0), 3, "in reach: kept");
	qd_tres_init(&req);
	qd_tres_set(&req, QD_TRES_GPU, 9);
	asked = req;
	qd_count_untyped_gpus(&req, &reach);
	qd_count_untyped_gpus_unbounded(&req, &asked, &reach, &caps);
	cr_expect_eq(qd_tres_get_typed(&req, "a100", 0), 4,
		     "a type in reach keeps its bound");
	cr_expect_eq(qd_tres_get_typed(&req, "h100", 0), 9);
}

Test(untyped, unbounded_changes_nothing_without_untyped_gpus)
{
	struct qd_tres caps, asked;

	qd_tres_init(&caps);
	qd_tres_set_typed(&caps, "h100", 1);
	qd_tres_set(&req, QD_TRES_GPU, 2);
	qd_tres_set_typed(&req, "a100", 2);
	asked = req;
	qd_count_untyped_gpus_unbounded(&req, &asked, &reach, &caps);
	cr_expect(!memcmp(&req, &asked, sizeof(req)));
}
