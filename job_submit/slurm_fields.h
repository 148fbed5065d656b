/* SPDX-License-Identifier: GPL-2.0-or-later
 * Slurm 22.05's job description and job record, turned into the policy
 * core's plain request. Everything that knows those structures' layout for
 * counting lives in slurm_fields.c.
 */
#ifndef QD_SLURM_FIELDS_H
#define QD_SLURM_FIELDS_H

#include "slurm_compat.h"

#include "request.h"

/* A new submission: fields the client did not set are left "not given". */
void qd_request_from_desc(const job_desc_msg_t *desc,
			  struct qd_job_request *req);

/* The partition a job's list starts with (the default partition when it
 * names none), or NULL. Caller holds the partition read lock. */
part_record_t *qd_first_partition(const char *list);

/* Called with a partition of the job's list (NULL for a name slurmctld does
 * not know); returns false to stop the walk. */
typedef bool (*qd_partition_fn)(part_record_t *part, void *arg);

/*
 * Calls fn for each partition in a job's list (the default partition when
 * it names none, which may be NULL), in order, once per distinct partition
 * however often it is repeated. The list is never truncated: a user's long
 * list must neither hide a partition nor cost a walk per repeat. Returns
 * false when fn stopped the walk. Caller holds the partition read lock.
 */
bool qd_each_partition(const char *list, qd_partition_fn fn, void *arg);

/*
 * slurmctld fills a job's open ends from its partition (MinNodes,
 * DefMemPerCPU/Node, what --mem=0 means) after job_submit runs, and counts
 * the result: the core needs those values to count the same. Caller holds
 * the partition and node read locks.
 */
void qd_request_partition_defaults(struct qd_job_request *req,
				   const char *partition);

/*
 * An update of a pending job: the job as it stands, with what the update
 * changes laid over it. Returns true when the update touches anything that
 * changes the job's size (GPUs, CPUs, memory, nodes, tasks).
 */
bool qd_request_from_update(const job_desc_msg_t *upd, const job_record_t *job,
			    struct qd_job_request *req);

/*
 * The QoS a pending job may run under, into *qos (xcalloc'd, the caller
 * xfrees it): from 24.11 its qos_list when it lists several, else its
 * qos_ptr. Returns how many (0: none known). Caller holds the job lock.
 */
size_t qd_job_cur_qos(const job_record_t *job, slurmdb_qos_rec_t ***qos);

#endif
