/* SPDX-License-Identifier: GPL-2.0-or-later
 * One submit-time decision: which QoS apply to the job (its own and its
 * partition's), their limits and usage from slurmctld, the policy core's
 * checks. Runs under slurmctld's job, node and partition locks (held by the
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
	const char *qos;     /* NULL: cur_qos, else the association's default;
				from 24.11 a list ("a,b") */
	slurmdb_qos_rec_t **cur_qos; /* a pending job's QoS, for updates */
	size_t n_cur_qos;
	const char *partition;	/* NULL: the default partition; may be a list */
	const char *req_nodes;	/* --nodelist, or NULL */
	const char *exc_nodes;	/* --exclude, or NULL */
	struct qd_het_sum *het; /* earlier components of a het job, or NULL */
};

/*
 * The QoS the job may run under, at most max of them into qos[]: those it
 * names ("": the association's default, as an update means it), in
 * Slurm's order (24.11 takes several and runs the job under the first
 * that lets it: highest Priority first, equal ones as listed), each once,
 * unknown names left out; else cur_qos (in the order Slurm keeps them);
 * else its association's default. Returns how many. Fills who, for the
 * log, and *assoc (NULL when the job has none).
 */
size_t qd_job_qos(const struct qd_job_view *job, struct qd_who *who,
		  slurmdb_assoc_rec_t **assoc, slurmdb_qos_rec_t **qos,
		  size_t max);

/* Room qd_job_qos may need for the job's QoS (at least 1). */
size_t qd_job_qos_room(const struct qd_job_view *job);

/*
 * Whether Slurm lets an update give the job qos: the checks of
 * _determine_and_validate_qos (job_mgr.c) that job_modify can make before
 * Slurm does. resv is the job's reservation, NULL or "" for none.
 */
bool qd_qos_allowed(const slurmdb_qos_rec_t *qos,
		    const slurmdb_assoc_rec_t *assoc, bool by_operator,
		    const char *resv);

/*
 * Returns true when the job, with the n QoS from qd_job_qos, breaks a cap
 * under each QoS it may run under, or in each partition it may run in; *v
 * then holds the first QoS's (or partition's) verdict, which
 * qd_verdict_format words for the user. req is the job's request as asked;
 * in a QoS with a typed cap its untyped GPUs also count toward the types
 * its partitions have (untyped_gpus.h, partition_gpus.h). The caller has
 * left out the users the policy exempts (qd_policy_is_exempt).
 */
bool qd_decide(const struct qd_policy *pol, const struct qd_tres *req,
	       const struct qd_job_view *job, slurmdb_qos_rec_t *const *qos,
	       size_t n, struct qd_verdict *v);

#endif
