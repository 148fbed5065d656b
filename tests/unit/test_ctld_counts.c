/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "ctld_counts.h"

static struct qd_verdict verdict(const char *qos, enum qd_flag flag,
				 const char *tres)
{
	struct qd_verdict v = {.denied = true, .flag = flag};

	snprintf(v.qos, sizeof(v.qos), "%s", qos);
	snprintf(v.tres, sizeof(v.tres), "%s", tres);
	return v;
}

static const struct qd_ctld_series *find(const struct qd_ctld_counts *c,
					 const char *qos, unsigned flag,
					 const char *tres)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->series[i].qos, qos) &&
		    c->series[i].flag == flag &&
		    !strcmp(c->series[i].tres, tres))
			return &c->series[i];
	return NULL;
}

/* Checked is accepted plus denied, per the job's QoS; a denial is counted
 * under the QoS, flag and TRES its message names. */
Test(ctld_counts, decisions)
{
	struct qd_ctld_counts c = {0};
	struct qd_verdict grp = verdict("gpu", QD_DENY_ON_GRP, "gres/gpu"),
			  part = verdict("part", QD_DENY_ON_MAX_PER_JOB, "cpu");
	const struct qd_ctld_series *s;

	qd_ctld_count_decision(&c, "gpu", NULL, true);
	qd_ctld_count_decision(&c, "gpu", &grp, true);
	qd_ctld_count_decision(&c, "gpu", &grp, true);
	qd_ctld_count_decision(&c, "gpu", &part, true);
	qd_ctld_count_decision(&c, NULL, NULL, true);

	s = find(&c, "gpu", 0, "");
	cr_assert_not_null(s);
	cr_assert_eq(s->checked, 4);
	cr_assert_eq(s->accepted, 1);
	cr_assert_eq(find(&c, "gpu", QD_DENY_ON_GRP, "gres/gpu")->denied, 2);
	cr_assert_eq(find(&c, "part", QD_DENY_ON_MAX_PER_JOB, "cpu")->denied,
		     1);
	cr_assert_eq(find(&c, "", 0, "")->accepted, 1);
	cr_assert_eq(c.n, 4);
	qd_ctld_counts_free(&c);
}

/* Enforce=no accepts the job: accepted and would-be denied, not denied. */
Test(ctld_counts, enforce_no_counts_would_be_denials)
{
	struct qd_ctld_counts c = {0};
	struct qd_verdict grp = verdict("gpu", QD_DENY_ON_GRP, "gres/gpu");
	const struct qd_ctld_series *d;

	qd_ctld_count_decision(&c, "gpu", &grp, false);
	cr_assert_eq(find(&c, "gpu", 0, "")->checked, 1);
	cr_assert_eq(find(&c, "gpu", 0, "")->accepted, 1);
	d = find(&c, "gpu", QD_DENY_ON_GRP, "gres/gpu");
	cr_assert_eq(d->would_deny, 1);
	cr_assert_eq(d->denied, 0);
	qd_ctld_counts_free(&c);
}

Test(ctld_counts, label_sets_past_the_most_kept_are_counted_as_dropped)
{
	struct qd_ctld_counts c = {0};
	char qos[16];

	for (int i = 0; i < QD_CTLD_SERIES_MAX + 3; i++) {
		snprintf(qos, sizeof(qos), "q%d", i);
		qd_ctld_count_decision(&c, qos, NULL, true);
	}
	cr_assert_eq(c.n, QD_CTLD_SERIES_MAX);
	cr_assert_eq(c.dropped, 3);
	qd_ctld_counts_free(&c);
}

Test(ctld_counts, copy_is_independent)
{
	struct qd_ctld_counts c = {0}, copy;

	qd_ctld_count_decision(&c, "gpu", NULL, true);
	qd_ctld_count_load(&c, 1700000000, 3);
	qd_ctld_count_reload_error(&c);
	cr_assert(qd_ctld_counts_copy(&copy, &c));
	qd_ctld_count_decision(&c, "gpu", NULL, true);
	cr_assert_eq(copy.series[0].checked, 1);
	cr_assert_eq(copy.policy_records, 3);
	cr_assert_eq(copy.reload_errors, 1);
	qd_ctld_counts_free(&copy);
	qd_ctld_counts_free(&c);
}

/* The whole file for a known mix: each family once, HELP before TYPE,
 * mem in bytes. */
Test(ctld_counts, text)
{
	struct qd_ctld_counts c = {0};
	struct qd_verdict grp = verdict("gpu", QD_DENY_ON_GRP, "gres/gpu");
	struct qd_cap_use use[] = {
	    {.qos = "gpu",
	     .tres = "gres/gpu",
	     .flag = QD_DENY_ON_GRP,
	     .limit = 4,
	     .in_use = 2},
	    {.qos = "gpu",
	     .tres = "mem",
	     .flag = QD_DENY_ON_GRP,
	     .is_mem = true,
	     .limit = 2,
	     .in_use = 1},
	    {.qos = "gpu",
	     .tres = "gres/gpu",
	     .flag = QD_DENY_ON_MAX_PER_USER,
	     .limit = 2,
	     .in_use = 4},
	    {.qos = "gpu",
	     .tres = "gres/gpu",
	     .flag = QD_DENY_ON_MAX_PER_USER,
	     .has_uid = true,
	     .user = "alice",
	     .limit = 2,
	     .in_use = 1},
	};
	struct qd_prom p = {0};

	qd_ctld_count_decision(&c, "gpu", NULL, true);
	qd_ctld_count_decision(&c, "gpu", &grp, true);
	qd_ctld_count_decision(&c, "gpu", &grp, false);
	qd_ctld_count_load(&c, 1700000000, 2);
	qd_ctld_metrics_text(&c, use, 4, &p);
	cr_assert_str_eq(
	    p.text,
	    "# HELP qosdeny_submissions_checked_total Submissions and updates "
	    "job_submit/qosdeny checked against a QoS record, by the job's "
	    "QoS\n"
	    "# TYPE qosdeny_submissions_checked_total counter\n"
	    "qosdeny_submissions_checked_total{qos=\"gpu\"} 3\n"
	    "# HELP qosdeny_submissions_accepted_total Checked submissions and "
	    "updates accepted (Enforce=no accepts all), by the job's QoS\n"
	    "# TYPE qosdeny_submissions_accepted_total counter\n"
	    "qosdeny_submissions_accepted_total{qos=\"gpu\"} 2\n"
	    "# HELP qosdeny_submissions_denied_total Submissions and updates "
	    "denied, by the QoS, flag and TRES the message names\n"
	    "# TYPE qosdeny_submissions_denied_total counter\n"
	    "qosdeny_submissions_denied_total{flag=\"DenyOnGrp\",qos=\"gpu\","
	    "tres=\"gres/gpu\"} 1\n"
	    "# HELP qosdeny_submissions_would_deny_total Submissions and "
	    "updates Enforce=no accepted that would have been denied, by QoS, "
	    "flag and TRES\n"
	    "# TYPE qosdeny_submissions_would_deny_total counter\n"
	    "qosdeny_submissions_would_deny_total{flag=\"DenyOnGrp\",qos="
	    "\"gpu\",tres=\"gres/gpu\"} 1\n"
	    "# HELP qosdeny_policy_loaded_timestamp_seconds When the policy in "
	    "force was loaded from qosdeny.conf (Unix time; 0: none yet)\n"
	    "# TYPE qosdeny_policy_loaded_timestamp_seconds gauge\n"
	    "qosdeny_policy_loaded_timestamp_seconds 1700000000\n"
	    "# HELP qosdeny_policy_records QOS= records in the policy in "
	    "force\n"
	    "# TYPE qosdeny_policy_records gauge\n"
	    "qosdeny_policy_records 2\n"
	    "# HELP qosdeny_policy_reload_errors_total Changes of qosdeny.conf "
	    "refused (unreadable or invalid): the previous policy stayed in "
	    "force\n"
	    "# TYPE qosdeny_policy_reload_errors_total counter\n"
	    "qosdeny_policy_reload_errors_total 0\n"
	    "# HELP qosdeny_metrics_series_dropped_total Decisions not counted "
	    "by label set: more label sets than the plugin keeps\n"
	    "# TYPE qosdeny_metrics_series_dropped_total counter\n"
	    "qosdeny_metrics_series_dropped_total 0\n"
	    "# HELP qosdeny_qos_grp_limit GrpTRES limit in force of a QoS "
	    "record with DenyOnGrp (mem in bytes)\n"
	    "# TYPE qosdeny_qos_grp_limit gauge\n"
	    "qosdeny_qos_grp_limit{qos=\"gpu\",tres=\"gres/gpu\"} 4\n"
	    "qosdeny_qos_grp_limit{qos=\"gpu\",tres=\"mem\"} 2097152\n"
	    "# HELP qosdeny_qos_grp_in_use What the QoS's running jobs hold "
	    "against its GrpTRES limit (mem in bytes)\n"
	    "# TYPE qosdeny_qos_grp_in_use gauge\n"
	    "qosdeny_qos_grp_in_use{qos=\"gpu\",tres=\"gres/gpu\"} 2\n"
	    "qosdeny_qos_grp_in_use{qos=\"gpu\",tres=\"mem\"} 1048576\n"
	    "# HELP qosdeny_qos_user_limit MaxTRESPerUser limit in force of a "
	    "QoS record with DenyOnMaxPerUser (mem in bytes)\n"
	    "# TYPE qosdeny_qos_user_limit gauge\n"
	    "qosdeny_qos_user_limit{qos=\"gpu\",tres=\"gres/gpu\"} 2\n"
	    "# HELP qosdeny_qos_user_in_use What a user's running jobs in the "
	    "QoS hold against its MaxTRESPerUser limit (metrics_per_user=yes; "
	    "mem in bytes)\n"
	    "# TYPE qosdeny_qos_user_in_use gauge\n"
	    "qosdeny_qos_user_in_use{qos=\"gpu\",tres=\"gres/gpu\",user="
	    "\"alice\"} 1\n");
	qd_prom_free(&p);
	qd_ctld_counts_free(&c);
}
