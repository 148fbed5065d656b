/* SPDX-License-Identifier: GPL-2.0-or-later
 * The QoS a job runs under, as slurmctld tells `squeue -h -t all -j ID -O
 * JobID:|,QOS:|` (Slurm's own fields only: a job's name or comment, which
 * `scontrol show job` prints on the same line, cannot pose as its QoS),
 * for the epilog of a job that lists several QoS (spank_job.c). Not
 * through libslurm: `slurmstepd spank epilog` runs with the reduced
 * configuration slurmd hands it, in which libslurm's RPCs do not work
 * (seen on 24.11: slurm_load_job never returned and the epilog was
 * killed).
 */
#ifndef QD_JOB_QOS_H
#define QD_JOB_QOS_H

#include <stddef.h>
#include <stdint.h>

/* squeue's fields for qd_job_qos_parse, each ended by '|'. */
#define QD_JOB_QOS_FIELDS "JobID:|,QOS:|"

/*
 * Runs squeue (found on PATH) for job_id, stopping it after timeout_ms.
 * Returns 0 with the job's QoS in qos, or -1 with err saying why.
 */
int qd_job_qos_ask(uint32_t job_id, int timeout_ms, char *qos, size_t len,
		   char *err, size_t errlen);

/* The QoS in job_id's row of squeue's output; 0, or -1 when the row is
 * missing or its QoS empty, holds a '|' or does not fit. */
int qd_job_qos_parse(const char *out, uint32_t job_id, char *qos, size_t len);

#endif
