/* SPDX-License-Identifier: GPL-2.0-or-later
 * What slurmctld's association manager knows about a job's user and QoS, in
 * the policy core's terms. Every function here expects the caller to hold
 * assoc_mgr read locks on assoc, qos, tres and user (QD_ASSOC_READ_LOCKS).
 */
#ifndef QD_ASSOC_VIEW_H
#define QD_ASSOC_VIEW_H

#include "src/common/slurm_xlator.h" /* calls by exported names */
#include "src/common/assoc_mgr.h"

#include "check.h"

#define QD_ASSOC_READ_LOCKS                                                    \
	{                                                                      \
		.assoc = READ_LOCK, .qos = READ_LOCK, .tres = READ_LOCK,       \
		.user = READ_LOCK,                                             \
	}

struct qd_who {
	uint32_t uid;
	char user[QD_NAME_MAX];	   /* from the accounting cache, else the uid */
	char account[QD_NAME_MAX]; /* as requested, else the user's default */
};

/* Fills *who; returns the job's association, or NULL when there is none
 * (Slurm then rejects or accepts the job by its own enforcement rules). */
slurmdb_assoc_rec_t *qd_find_assoc(uint32_t uid, const char *account,
				   const char *partition, struct qd_who *who);

/* The QoS asked for by name, or the association's default as Slurm picks it
 * when none is named; NULL when that QoS does not exist. */
slurmdb_qos_rec_t *qd_find_job_qos(const char *qos_name,
				   slurmdb_assoc_rec_t *assoc);

/* MaxTRESPerJob, MaxTRESPerUser and GrpTRES as the database set them. */
void qd_qos_db_limits(const slurmdb_qos_rec_t *qos, struct qd_limits *out);

/*
 * The QoS's running-usage counters, everyone's and this user's, and of
 * the nodes they hold, how many are in nodes, those the job could be given
 * (check.h, struct qd_usage). Whether such a node has room for the job is
 * not asked: each counts as able. nodes NULL: qosdeny cannot tell, all.
 */
void qd_qos_usage(const slurmdb_qos_rec_t *qos, uint32_t uid, bitstr_t *nodes,
		  struct qd_usage *out);

/* Each user the QoS's running-usage counters hold (slurmctld keeps one
 * entry per user who ran a job in it): uid[i] and use[i], at most max of
 * them (max 0: none, uid and use may be NULL); returns how many there
 * are. */
size_t qd_qos_user_usages(const slurmdb_qos_rec_t *qos, uint32_t *uid,
			  struct qd_tres *use, size_t max);

#endif
