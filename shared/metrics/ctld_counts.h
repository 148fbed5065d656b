/* SPDX-License-Identifier: GPL-2.0-or-later
 * What job_submit/qosdeny counts for its metrics (docs/metrics.md): each
 * decision by QoS, flag and TRES, the policy's loads, and, written beside
 * them, the group and per-user caps' limits and what is in use against
 * them. The
 * counts are bumped on the submission path under the plugin's policy lock,
 * so a bump is a lookup and an add; the file is made from a copy, by the
 * plugin's own thread, off every lock.
 */
#ifndef QD_CTLD_COUNTS_H
#define QD_CTLD_COUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "prom_text.h"

/* The most label sets kept; a decision past them is counted in
 * qosdeny_metrics_series_dropped_total. QoS names are the database's, so
 * this is far above any site's count of QoS, flags and TRES. */
#define QD_CTLD_SERIES_MAX 4096

/* One label set: a QoS alone (checked, accepted), or a QoS, a flag and a
 * TRES (denied, would-be denied). */
struct qd_ctld_series {
	char qos[QD_NAME_MAX];
	unsigned flag; /* enum qd_flag; 0 for the QoS alone */
	char tres[48];
	uint64_t checked, accepted, denied, would_deny;
};

struct qd_ctld_counts {
	struct qd_ctld_series *series;
	size_t n, cap;
	uint64_t dropped;
	int64_t policy_loaded_at; /* Unix time; 0: never */
	uint64_t policy_records;
	uint64_t reload_errors;
};

/*
 * One decision on a job that qosdeny checked: qos is the job's (its first,
 * where it lists several; "" for none), v the verdict, NULL when accepted.
 * A denial is counted under the QoS, flag and TRES the verdict names, as
 * the user's message does: denied when enforced, else would-be denied (an
 * Enforce=no policy accepts the job, which is then also accepted).
 */
void qd_ctld_count_decision(struct qd_ctld_counts *c, const char *qos,
			    const struct qd_verdict *v, bool enforced);

/* A policy put in force at time now with records QOS= records. */
void qd_ctld_count_load(struct qd_ctld_counts *c, int64_t now,
			uint64_t records);

/* A changed qosdeny.conf that could not be read or parsed. */
void qd_ctld_count_reload_error(struct qd_ctld_counts *c);

/* A copy of src into dst (its series malloc'd), for the writer to use off
 * the lock; false when out of memory. */
bool qd_ctld_counts_copy(struct qd_ctld_counts *dst,
			 const struct qd_ctld_counts *src);

void qd_ctld_counts_free(struct qd_ctld_counts *c);

/* A QoS record's DenyOnGrp or DenyOnMaxPerUser cap: its limit in force
 * and the use against it, mem in MiB. Group: everyone's running jobs in
 * the QoS. Per user: the limit alone (user ""), or one user's use (with
 * metrics_per_user=yes). */
struct qd_cap_use {
	char qos[QD_NAME_MAX];
	char tres[48];
	enum qd_flag flag; /* QD_DENY_ON_GRP or QD_DENY_ON_MAX_PER_USER */
	bool has_uid;	   /* one user's use: uid, named in user */
	uint32_t uid;
	char user[QD_NAME_MAX];
	bool is_mem;
	uint64_t limit, in_use;
};

/* Every family of the ctld role's file into out: the counts, then
 * caps[0..n) (mem in bytes, the base unit). */
void qd_ctld_metrics_text(const struct qd_ctld_counts *c,
			  const struct qd_cap_use *caps, size_t n,
			  struct qd_prom *out);

#endif
