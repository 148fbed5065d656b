/* SPDX-License-Identifier: GPL-2.0-or-later
 * The three submit-time checks and the message a denied user sees.
 */
#ifndef QD_CHECK_H
#define QD_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "tres.h"

/* A QoS's limits, as in the Slurm database or after merging. */
struct qd_limits {
	struct qd_tres max_per_job;  /* MaxTRESPerJob */
	struct qd_tres max_per_user; /* MaxTRESPerUser */
	struct qd_tres grp;	     /* GrpTRES */
};

/* What is already allocated to RUNNING jobs in the QoS. */
struct qd_usage {
	struct qd_tres user; /* this user's jobs */
	struct qd_tres all;  /* everyone's jobs */
	/* Of the nodes counted in user's and all's node, how many the job
	 * could be given too (in its partition): Slurm counts a node once
	 * however many of the QoS's jobs share it (_get_unique_job_node_cnt),
	 * so the job's nodes there add nothing to the node in use. */
	uint64_t user_nodes_shared, all_nodes_shared;
};

/* Database limits with the rule's overrides laid on top, TRES by TRES (and
 * type by type); rule NULL: the database's. */
void qd_limits_merge(struct qd_limits *out, const struct qd_limits *db,
		     const struct qd_qos_rule *rule);

struct qd_verdict {
	bool denied;
	enum qd_flag flag; /* which check failed */
	char qos[QD_NAME_MAX];
	char tres[48]; /* "gres/gpu:a100" */
	bool is_mem;   /* values are MiB */
	uint64_t requested;
	uint64_t in_use; /* 0 for DenyOnMaxPerJob */
	uint64_t limit;
	bool untyped; /* requested includes untyped GPUs (untyped_gpus.h) */
};

/*
 * One QoS on its own (in_force.h has a job under its QoS and its
 * partition's): runs the checks the rule's flags enable, in the order of
 * docs/how-it-decides.md "Checks" (per job, per user, group; within each cpu,
 * mem, node, gres/gpu, gres/gpu:<type>), and fills *v with the first failure
 * (zeroed when none). A TRES is checked only where a limit is set, not
 * QD_UNLIMITED, and the job asks for some of it, as in Slurm's acct_policy.c;
 * sums saturate rather than wrap. rule NULL: no checks. Returns true when
 * denied.
 */
bool qd_check(const struct qd_qos_rule *rule, const struct qd_limits *lim,
	      const struct qd_usage *used, const struct qd_tres *req,
	      struct qd_verdict *v);

/*
 * The user's line, e.g.
 * "qosdeny: DenyOnGrp: QOS interactive: gres/gpu requested 5, in use 0,
 *  GrpTRES limit 4" (one line; DenyOnMaxPerJob has no "in use" part; mem
 * values end in "M"; an untyped note follows the limit when v->untyped). An
 * empty string when v is not a denial. Returns what snprintf returns.
 */
int qd_verdict_format(const struct qd_verdict *v, char *buf, size_t len);

/* "DenyOnMaxPerJob" etc. */
const char *qd_flag_name(enum qd_flag f);

#endif
