/* SPDX-License-Identifier: GPL-2.0-or-later
 * Where libslurm's public API differs between the Slurm versions the tool
 * builds against (docs/versions.md): the names change, the
 * structures do not.
 */
#ifndef QD_LIBSLURM_COMPAT_H
#define QD_LIBSLURM_COMPAT_H

#include <slurm/slurm.h>

/* 24.05 renamed List and ListIterator to list_t * and list_itr_t *. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
typedef list_t *qd_list_t;
typedef list_itr_t *qd_list_itr_t;
#else
typedef List qd_list_t;
typedef ListIterator qd_list_itr_t;
#endif

/* 23.11 made hostlist_t the structure, where it was a pointer to it. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
typedef hostlist_t *qd_hostlist_t;
#else
typedef hostlist_t qd_hostlist_t;
#endif

/* 26.05 asks for a job by a slurm_step_id_t (which may carry its SLUID)
 * where it took the job id. */
static inline int qd_slurm_load_job(job_info_msg_t **resp, uint32_t job_id,
				    uint16_t show_flags)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	return slurm_load_job(resp, id, show_flags);
#else
	return slurm_load_job(resp, job_id, show_flags);
#endif
}

/* 26.05 renamed slurm_free_ctl_conf() to slurm_free_conf(). */
static inline void qd_slurm_free_conf(slurm_conf_t *conf)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	slurm_free_conf(conf);
#else
	slurm_free_ctl_conf(conf);
#endif
}

#endif
