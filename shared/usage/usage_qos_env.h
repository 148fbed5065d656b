/* SPDX-License-Identifier: GPL-2.0-or-later
 * How a job's QoS reaches its job prolog and epilog, for its usage records.
 * Slurm 22.05 gives them none, but passes them the job's SPANK environment
 * (job_ptr->spank_job_env): job_submit/qosdeny puts there, as QD_QOS_ENV,
 * the QoS Slurm gives the job (those it may run under, when it lists
 * several). Users send SPANK entries of their own, which
 * slurmd only prefixes SPANK_ where they lack it, so every entry under
 * qosdeny's name is removed first: SPANK_QOSDENY_*, and QOSDENY_*, which
 * slurmd would rename so.
 */
#ifndef QD_USAGE_QOS_ENV_H
#define QD_USAGE_QOS_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QD_QOS_ENV "SPANK_QOSDENY_QOS"

/* Its value: the job's QoS, or from 24.11 the QoS a job may run under,
 * comma-separated, when it lists several. */
#define QD_QOS_LABEL_MAX 256

/* The allocator that owns the array and its strings: slurmctld's xmalloc
 * and xfree in the plugin (slurmctld frees them), libc's in the tests. */
struct qd_env_alloc {
	void *(*zalloc)(size_t size); /* zeroed; NULL when out of memory */
	void (*release)(void *p);     /* NULL is fine */
};

/* Whether an entry of a SPANK environment is under qosdeny's name. */
bool qd_qos_env_ours(const char *entry);

/*
 * Removes from *env (*n entries) every entry under qosdeny's name, and
 * empty ones (an empty string arrives as NULL, which would end the list
 * for those who walk it to its NULL), then appends QD_QOS_ENV=qos (qos ""
 * when unknown). *env ends with a NULL after its *n entries. Returns 0, or
 * -1 when out of memory: then only the removal is done.
 */
int qd_qos_env_set(char ***env, uint32_t *n, const char *qos,
		   const struct qd_env_alloc *a);

#endif
