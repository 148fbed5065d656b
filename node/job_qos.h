/* SPDX-License-Identifier: GPL-2.0-or-later
 * The QoS a job runs under, as slurmctld tells `scontrol -o show job ID`,
 * for the epilog of a job that lists several QoS (spank_job.c). Not through
 * libslurm: `slurmstepd spank epilog` runs with the reduced configuration
 * slurmd hands it, in which libslurm's RPCs do not work (seen on 24.11:
 * slurm_load_job never returned and the epilog was killed).
 */
#ifndef QD_JOB_QOS_H
#define QD_JOB_QOS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Runs scontrol (found on PATH) for job_id, stopping it after timeout_ms.
 * Returns 0 with the job's QoS in qos, or -1 with err saying why.
 */
int qd_job_qos_ask(uint32_t job_id, int timeout_ms, char *qos, size_t len,
		   char *err, size_t errlen);

/* The QOS= value of job_id's line in `scontrol -o show job` output; 0, or
 * -1 when the line or the field is missing or does not fit. */
int qd_job_qos_parse(const char *out, uint32_t job_id, char *qos, size_t len);

#endif
