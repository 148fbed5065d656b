/*
 * One submit-time decision: which QoS apply to the job (its own and its
 * partition's), their limits and usage from slurmctld, the policy core's
 * checks. Runs under slurmctld's job/partition read locks (held by the
 * caller, slurmctld) and takes assoc_mgr's read locks itself.
 */
#ifndef QD_DECIDE_H
#define QD_DECIDE_H

#include "src/common/slurm_xlator.h" /* calls by exported names */
#include "src/slurmctld/slurmctld.h"

#include "assoc_view.h"
#include "het_sum.h"
#include "policy.h"

struct qd_job_view {
	uint32_t uid;
	const char *account; /* NULL: the user's default */
	const char *qos;     /* NULL: cur_qos, else the association's default */
	slurmdb_qos_rec_t *cur_qos; /* a pending job's QoS, for updates */
	const char *partition;	/* NULL: the default partition; may be a list */
	struct qd_het_sum *het; /* earlier components of a het job, or NULL */
};

/* Returns true when the job breaks a cap; msg then holds the user's line.
 * who is filled either way, for the log. */
bool qd_decide(const struct qd_policy *pol, const struct qd_tres *req,
	       const struct qd_job_view *job, struct qd_who *who, char *msg,
	       size_t len);

#endif
