/* SPDX-License-Identifier: GPL-2.0-or-later
 * The ctld role's families (docs/metrics.md lists each, with what it tells
 * an administrator).
 */
#include "ctld_counts.h"

/* A QoS-alone series (checked, accepted) or a denial's. */
static bool by_qos(const struct qd_ctld_series *s)
{
	return !s->flag;
}

/* Counter name for each kind of count, and the series it applies to. */
struct count_family {
	const char *name, *help;
	bool qos_alone;
	size_t offset;
};

static const struct count_family count_families[] = {
    {"qosdeny_submissions_checked_total",
     "Submissions and updates job_submit/qosdeny checked against a QoS "
     "record, by the job's QoS",
     true, offsetof(struct qd_ctld_series, checked)},
    {"qosdeny_submissions_accepted_total",
     "Checked submissions and updates accepted (Enforce=no accepts all), by "
     "the job's QoS",
     true, offsetof(struct qd_ctld_series, accepted)},
    {"qosdeny_submissions_denied_total",
     "Submissions and updates denied, by the QoS, flag and TRES the "
     "message names",
     false, offsetof(struct qd_ctld_series, denied)},
    {"qosdeny_submissions_would_deny_total",
     "Submissions and updates Enforce=no accepted that would have been "
     "denied, by QoS, flag and TRES",
     false, offsetof(struct qd_ctld_series, would_deny)},
};

static void counts(const struct qd_ctld_counts *c, struct qd_prom *out)
{
	for (size_t f = 0; f < sizeof(count_families) / sizeof(*count_families);
	     f++) {
		const struct count_family *cf = &count_families[f];

		qd_prom_family(out, cf->name, "counter", cf->help);
		for (size_t i = 0; i < c->n; i++) {
			const struct qd_ctld_series *s = &c->series[i];
			uint64_t v =
			    *(const uint64_t *)((const char *)s + cf->offset);
			/* In the order Prometheus sorts them. */
			const char *labels[] = {
			    "flag", by_qos(s) ? NULL : qd_flag_name(s->flag),
			    "qos",  s->qos,
			    "tres", by_qos(s) ? NULL : s->tres,
			    NULL};

			if (by_qos(s) == cf->qos_alone)
				qd_prom_u64(out, cf->name, labels, v);
		}
	}
}

static void policy(const struct qd_ctld_counts *c, struct qd_prom *out)
{
	qd_prom_family(out, "qosdeny_policy_loaded_timestamp_seconds", "gauge",
		       "When the policy in force was loaded from qosdeny.conf "
		       "(Unix time; 0: none yet)");
	qd_prom_u64(
	    out, "qosdeny_policy_loaded_timestamp_seconds", NULL,
	    (uint64_t)(c->policy_loaded_at > 0 ? c->policy_loaded_at : 0));
	qd_prom_family(out, "qosdeny_policy_records", "gauge",
		       "QOS= records in the policy in force");
	qd_prom_u64(out, "qosdeny_policy_records", NULL, c->policy_records);
	qd_prom_family(out, "qosdeny_policy_reload_errors_total", "counter",
		       "Changes of qosdeny.conf refused (unreadable or "
		       "invalid): the previous policy stayed in force");
	qd_prom_u64(out, "qosdeny_policy_reload_errors_total", NULL,
		    c->reload_errors);
	qd_prom_family(out, "qosdeny_metrics_series_dropped_total", "counter",
		       "Decisions not counted by label set: more label sets "
		       "than the plugin keeps");
	qd_prom_u64(out, "qosdeny_metrics_series_dropped_total", NULL,
		    c->dropped);
}

static uint64_t base_unit(const struct qd_cap_use *u, uint64_t v)
{
	return u->is_mem ? v * 1024 * 1024 : v;
}

/* Which rows a family takes, and which of their values. */
enum pick { GRP_LIMIT, GRP_USE, USER_LIMIT, USER_USE };

static bool picks(enum pick k, const struct qd_cap_use *u)
{
	switch (k) {
	case GRP_LIMIT:
	case GRP_USE:
		return u->flag == QD_DENY_ON_GRP;
	case USER_LIMIT:
		return u->flag == QD_DENY_ON_MAX_PER_USER && !u->has_uid;
	case USER_USE:
		return u->flag == QD_DENY_ON_MAX_PER_USER && u->has_uid;
	}
	return false;
}

static const struct {
	const char *name, *help;
} cap_families[] = {
    [GRP_LIMIT] = {"qosdeny_qos_grp_limit",
		   "GrpTRES limit in force of a QoS record with DenyOnGrp "
		   "(mem in bytes)"},
    [GRP_USE] = {"qosdeny_qos_grp_in_use",
		 "What the QoS's running jobs hold against its GrpTRES limit "
		 "(mem in bytes)"},
    [USER_LIMIT] = {"qosdeny_qos_user_limit",
		    "MaxTRESPerUser limit in force of a QoS record with "
		    "DenyOnMaxPerUser (mem in bytes)"},
    [USER_USE] = {"qosdeny_qos_user_in_use",
		  "What a user's running jobs in the QoS hold against its "
		  "MaxTRESPerUser limit (metrics_per_user=yes; mem in bytes)"},
};

static void caps_text(const struct qd_cap_use *caps, size_t n,
		      struct qd_prom *out)
{
	for (enum pick k = GRP_LIMIT; k <= USER_USE; k++) {
		const char *name = cap_families[k].name;

		qd_prom_family(out, name, "gauge", cap_families[k].help);
		for (size_t i = 0; i < n; i++) {
			const struct qd_cap_use *u = &caps[i];
			const char *labels[] = {
			    "qos",   u->qos, "tres",
			    u->tres, "user", k == USER_USE ? u->user : NULL,
			    NULL};
			bool use = k == GRP_USE || k == USER_USE;

			if (picks(k, u))
				qd_prom_u64(
				    out, name, labels,
				    base_unit(u, use ? u->in_use : u->limit));
		}
	}
}

void qd_ctld_metrics_text(const struct qd_ctld_counts *c,
			  const struct qd_cap_use *caps, size_t n,
			  struct qd_prom *out)
{
	counts(c, out);
	policy(c, out);
	caps_text(caps, n, out);
}
