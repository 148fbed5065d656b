/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The limits in force for a job that runs under two QoS, its own and its
 * partition's, as Slurm's acct_policy.c resolves them (22.05 to 26.05):
 *
 *   - Order (acct_policy_set_qos_order): the partition's QoS first, unless
 *     the job's QoS has the flag OverPartQOS; a QoS that is both is looked
 *     at once.
 *   - For each kind of limit (MaxTRESPerJob, MaxTRESPerUser, GrpTRES) and
 *     each TRES on its own, the first QoS in that order that sets a limit
 *     for it decides: its limit, against its own usage. The other QoS's
 *     limit for that TRES is not consulted, stricter or not (the qos_out_ptr
 *     arrays of _qos_policy_validate and _qos_job_runnable_post_select).
 *
 * qosdeny denies only where the QoS whose limit is in force has a QOS=
 * record with that kind's flag; a QOS= record's limit replaces its QoS's
 * database limit for that TRES before the order is applied
 * (qd_limits_merge). docs/how-it-decides.md, "Which limit".
 */
#ifndef QD_IN_FORCE_H
#define QD_IN_FORCE_H

#include <stdbool.h>
#include <stddef.h>

#include "check.h"

/* One QoS a job runs under. */
struct qd_qos_side {
	const char *name;
	const struct qd_qos_rule *rule; /* its QOS= record; NULL: none (its
					   limits hold, it denies nothing) */
	struct qd_limits lim;		/* qd_limits_merge's */
	struct qd_usage used;		/* its own RUNNING jobs' */
	bool over_part_qos;		/* Flags=OverPartQOS */
};

/*
 * Slurm's order of the job's QoS and its partition's (either may be NULL)
 * into order[]; returns how many (0 to 2). The same QoS (by name, which
 * Slurm compares without case) counts once.
 */
size_t qd_qos_order(const struct qd_qos_side *job,
		    const struct qd_qos_side *part,
		    const struct qd_qos_side *order[2]);

/* The limit in force for each kind and TRES, and which of order[] set it. */
struct qd_in_force {
	struct qd_limits lim;
	unsigned char job_from[QD_TRES_FIXED], user_from[QD_TRES_FIXED],
	    grp_from[QD_TRES_FIXED];
	unsigned char job_typed_from[QD_TYPES_MAX],
	    user_typed_from[QD_TYPES_MAX], grp_typed_from[QD_TYPES_MAX];
};

/* Resolves order[0..n) (n at most 2) as above. */
void qd_limits_in_force(const struct qd_qos_side *const *order, size_t n,
			struct qd_in_force *out);

/* Of the limits in force, those of order[idx] alone (a QoS's own rows in
 * `qosdeny limits`). */
void qd_limits_in_force_of(const struct qd_in_force *in, size_t idx,
			   struct qd_limits *out);

/*
 * The checks of qd_check (check.h) against the limits in force: a TRES is
 * checked where a limit is in force, its QoS has a record with the kind's
 * flag and the job asks for some of it; usage is that QoS's. The verdict
 * names that QoS. Returns true when denied.
 */
bool qd_check_in_force(const struct qd_qos_side *const *order,
		       const struct qd_in_force *in, const struct qd_tres *req,
		       struct qd_verdict *v);

#endif
