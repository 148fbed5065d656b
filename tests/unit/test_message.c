/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <criterion/criterion.h>
#include <string.h>

#include "check.h"

static struct qd_verdict verdict(enum qd_flag flag, const char *tres,
				 uint64_t req, uint64_t in_use, uint64_t limit)
{
	struct qd_verdict v = {
	    .denied = true,
	    .flag = flag,
	    .is_mem = !strcmp(tres, "mem"),
	    .requested = req,
	    .in_use = in_use,
	    .limit = limit,
	};

	strcpy(v.qos, "interactive");
	strcpy(v.tres, tres);
	return v;
}

static void expect_text(const struct qd_verdict *v, const char *want)
{
	char buf[256];
	int n = qd_verdict_format(v, buf, sizeof(buf));

	cr_expect_str_eq(buf, want);
	cr_expect_eq(n, (int)strlen(want));
}

/* docs/worked-example.md's examples, character for character. */
Test(message, grp)
{
	struct qd_verdict v = verdict(QD_DENY_ON_GRP, "gres/gpu", 5, 0, 4);

	expect_text(&v, "qosdeny: DenyOnGrp: QOS interactive: gres/gpu "
			"requested 5, in use 0, GrpTRES limit 4");
}

Test(message, per_user)
{
	struct qd_verdict v =
	    verdict(QD_DENY_ON_MAX_PER_USER, "gres/gpu", 1, 2, 2);

	expect_text(&v, "qosdeny: DenyOnMaxPerUser: QOS interactive: gres/gpu "
			"requested 1, in use 2, MaxTRESPerUser limit 2");
}

/* Per job: no in-use part, even when in_use is set. */
Test(message, per_job)
{
	struct qd_verdict v =
	    verdict(QD_DENY_ON_MAX_PER_JOB, "gres/gpu", 5, 3, 4);

	expect_text(&v, "qosdeny: DenyOnMaxPerJob: QOS interactive: gres/gpu "
			"requested 5, MaxTRESPerJob limit 4");
}

Test(message, mem_in_mib)
{
	struct qd_verdict v =
	    verdict(QD_DENY_ON_MAX_PER_JOB, "mem", 2048, 0, 1024);

	expect_text(&v, "qosdeny: DenyOnMaxPerJob: QOS interactive: mem "
			"requested 2048M, MaxTRESPerJob limit 1024M");
	v = verdict(QD_DENY_ON_GRP, "mem", 2048, 4096, 5000);
	expect_text(&v, "qosdeny: DenyOnGrp: QOS interactive: mem requested "
			"2048M, in use 4096M, GrpTRES limit 5000M");
}

Test(message, typed_and_other_tres)
{
	struct qd_verdict v =
	    verdict(QD_DENY_ON_MAX_PER_USER, "gres/gpu:a100", 1, 2, 2);

	expect_text(&v, "qosdeny: DenyOnMaxPerUser: QOS interactive: "
			"gres/gpu:a100 requested 1, in use 2, MaxTRESPerUser "
			"limit 2");
	v = verdict(QD_DENY_ON_MAX_PER_JOB, "cpu", 64, 0, 32);
	expect_text(&v, "qosdeny: DenyOnMaxPerJob: QOS interactive: cpu "
			"requested 64, MaxTRESPerJob limit 32");
	v = verdict(QD_DENY_ON_GRP, "node", 3, 18446744073709551614u, 10);
	expect_text(&v, "qosdeny: DenyOnGrp: QOS interactive: node requested "
			"3, in use 18446744073709551614, GrpTRES limit 10");
}

/* From check to text, as the plugin does it. */
Test(message, from_check)
{
	struct qd_qos_rule rule = {.name = "interactive",
				   .flags = QD_DENY_ON_GRP};
	struct qd_limits lim;
	struct qd_usage used = {0};
	struct qd_tres req;
	struct qd_verdict v;

	qd_tres_init(&lim.max_per_job);
	qd_tres_init(&lim.max_per_user);
	qd_tres_init(&lim.grp);
	qd_tres_init(&used.user);
	qd_tres_init(&used.all);
	qd_tres_init(&req);
	qd_tres_set(&lim.grp, QD_TRES_GPU, 4);
	qd_tres_set(&req, QD_TRES_GPU, 5);
	cr_assert(qd_check(&rule, &lim, &used, &req, &v));
	expect_text(&v, "qosdeny: DenyOnGrp: QOS interactive: gres/gpu "
			"requested 5, in use 0, GrpTRES limit 4");
}

Test(message, not_denied_is_empty)
{
	struct qd_verdict v = {0};
	char buf[16] = "junk";

	cr_expect_eq(qd_verdict_format(&v, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "");
}

/* snprintf's contract: truncated but terminated, full length returned. */
Test(message, truncation)
{
	struct qd_verdict v = verdict(QD_DENY_ON_GRP, "gres/gpu", 5, 0, 4);
	const char *full = "qosdeny: DenyOnGrp: QOS interactive: gres/gpu "
			   "requested 5, in use 0, GrpTRES limit 4";
	char buf[10];

	cr_expect_eq(qd_verdict_format(&v, buf, sizeof(buf)),
		     (int)strlen(full));
	cr_expect_str_eq(buf, "qosdeny: ");
	cr_expect_eq(qd_verdict_format(&v, NULL, 0), (int)strlen(full));
}

Test(message, flag_names)
{
	cr_expect_str_eq(qd_flag_name(QD_DENY_ON_MAX_PER_JOB),
			 "DenyOnMaxPerJob");
	cr_expect_str_eq(qd_flag_name(QD_DENY_ON_MAX_PER_USER),
			 "DenyOnMaxPerUser");
	cr_expect_str_eq(qd_flag_name(QD_DENY_ON_GRP), "DenyOnGrp");
	cr_expect_str_eq(qd_flag_name((enum qd_flag)0), "unknown");
}
