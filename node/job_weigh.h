/* SPDX-License-Identifier: GPL-2.0-or-later
 * A job's GPUs on this node weighed by its partition's TRESBillingWeights
 * for their types (docs/gpu-and-usage.md, "GPU types and billing weights";
 * shared/usage/gpu_weights.h), for the usage record its prolog opens. A
 * GPU's type is gres.conf's Type= on the record that gives its file (a MIG
 * slice's MultipleFiles= record names its profile); a GPU gres.conf gives
 * no type (AutoDetect) weighs 1.
 */
#ifndef QD_JOB_WEIGH_H
#define QD_JOB_WEIGH_H

#include <stddef.h>
#include <stdint.h>

struct qd_job_weigh {
	const char *slurm_conf; /* where the partitions are */
	const char *gres_conf;	/* where the node's GPUs and types are */
	const char *node;	/* this node, as gres.conf's NodeName= */
	const char *partition;	/* the job's (SLURM_JOB_PARTITION) */
	const char *job_gpus;	/* the job's GPU indices (SLURM_JOB_GPUS) */
};

/*
 * Scales *mgpus (thousandths of the GPUs in job_gpus: whole ones, or the
 * shares slurmctld says the job holds of them) by the mean weight of those
 * GPUs: a whole GPU is charged its type's weight, S/N of a GPU S/N of its
 * weight, never less than a thousandth. Returns 1 where the partition
 * weighs some GPU type (*mgpus then weighed; *untyped the GPUs of the job
 * without a known type), 0 where it weighs none (*mgpus as it was), -1
 * with err where slurm.conf, its weights or gres.conf cannot be read
 * (*mgpus as it was).
 */
int qd_job_weigh(const struct qd_job_weigh *j, uint32_t *mgpus, size_t *untyped,
		 char *err, size_t errlen);

struct qd_gpus;

/*
 * For doctor: the first partition of node (Nodes= lists it, or ALL) whose
 * TRESBillingWeights' GPU weights do not read, or that weighs GPU types
 * while some of gpus have no gres.conf Type=, said in why: 1; 0 where
 * there is none, or slurm.conf cannot be read (checked elsewhere).
 */
int qd_node_weights_check(const char *slurm_conf, const char *node,
			  const struct qd_gpus *gpus, char *why, size_t len);

#endif
