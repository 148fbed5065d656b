/* SPDX-License-Identifier: GPL-2.0-or-later
 * What `qosdeny limits` shows: each cap a QoS's record makes qosdeny
 * enforce, what is in use against it, and how much of that TRES a job may
 * ask for now without qd_check denying it. Same limits, same counters,
 * same arithmetic as the submit-time decision (check.c).
 */
#ifndef QD_HEADROOM_H
#define QD_HEADROOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"

struct qd_cap {
	enum qd_flag flag;
	enum qd_tres_id id;	     /* QD_TRES_GPU for a GPU type too */
	char type[QD_TYPE_NAME_MAX]; /* "a100"; "" for the fixed TRES */
	uint64_t limit;
	bool has_in_use;  /* false for DenyOnMaxPerJob */
	uint64_t in_use;  /* the user's, or everyone's (grp) */
	uint64_t can_ask; /* see qd_caps */
};

/*
 * One cap per flag the rule enables and TRES with a limit there (not
 * unlimited), in qd_check's order (per job, per user, group; cpu, mem, node,
 * gres/gpu, each GPU type, gres/shard, gres/mps), at most max of them into
 * out[]; returns how many there are. can_ask is the same on every cap of one
 * TRES: the most a job may ask for of it, the tightest of the rule's caps on
 * it, never below 0. A typed request counts toward gres/gpu too, so a type's
 * can_ask is within gres/gpu's; an untyped request counts toward each GPU type
 * the job's partitions have (untyped_gpus.h), so gres/gpu's is within each
 * type's (exact unless a partition holds fewer GPUs of a type than that
 * type's room).
 */
size_t qd_caps(const struct qd_qos_rule *rule, const struct qd_limits *lim,
	       const struct qd_usage *used, struct qd_cap *out, size_t max);

/* "gres/gpu:a100", "cpu", ... */
void qd_cap_tres(const struct qd_cap *c, char *buf, size_t len);

#endif
