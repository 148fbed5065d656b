/* SPDX-License-Identifier: GPL-2.0-or-later
 * The job id in libslurm's answers to a submission, for the test and bench
 * clients: 25.11 moved it into a slurm_step_id_t.
 */
#ifndef QD_SLURM_IDS_H
#define QD_SLURM_IDS_H

#include <slurm/slurm.h>

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
#define QD_RESP_JOB_ID(resp) ((resp)->step_id.job_id)
#else
#define QD_RESP_JOB_ID(resp) ((resp)->job_id)
#endif

#endif
