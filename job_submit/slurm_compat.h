/* SPDX-License-Identifier: GPL-2.0-or-later
 * Every difference between the Slurm releases qosdeny supports (22.05,
 * 24.11, 26.05) in the slurmctld internals the adapters touch (job_submit/
 * and site_factor/, which includes this file), in one place. Each #if names the
 * release that made the change, so that a new release's break is found by
 * reading this file against Slurm's NEWS.
 */
#ifndef QD_SLURM_COMPAT_H
#define QD_SLURM_COMPAT_H

#include <slurm/slurm_version.h>

#include "src/common/slurm_xlator.h" /* calls by exported names */
#include "src/slurmctld/slurmctld.h"

/* 23.02 moved the plugin interfaces from src/common to src/interfaces. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#include "src/interfaces/gres.h"
#else
#include "src/common/gres.h"
#endif

/* 23.02 gave job_modify() the err_msg that job_submit() has, so that an
 * update's denial can tell the user why. */
#define QD_JOB_MODIFY_ERR_MSG                                                  \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0))

/* The release the policy core counts a request for (request.h): request
 * strings and counting changed in 23.02, 23.11, 24.05, 25.05 and 25.11. */
#define QD_THIS_SLURM_RELEASE                                                  \
	QD_SLURM_RELEASE(SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),            \
			 SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER))

/* 24.11 lets a job name several QoS (--qos=a,b): job_record_t's qos_list,
 * qos_ptr being the one the last scheduling pass tried. */
#define QD_JOB_QOS_LIST (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0))

/* 23.02 named the job's details job_details_t (24.05 then moved it, with
 * job_record_t, to src/common/job_record.h as an anonymous struct). */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
typedef job_details_t qd_job_details_t;
#else
typedef struct job_details qd_job_details_t;
#endif

/* 24.05 dropped site_factor_p_reconfig: from 23.11 a reconfigure starts a
 * new slurmctld (controller.c, _try_to_reconfig), whose init runs again. */
#define QD_SITE_FACTOR_RECONFIG                                                \
	(SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 5, 0))

#endif
