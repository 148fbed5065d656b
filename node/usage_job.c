/* SPDX-License-Identifier: GPL-2.0-or-later
 * The job's usage record from its prolog/epilog environment. slurmd builds
 * that environment itself (prep_script_slurmd.c _build_env) from the job's
 * credential: the job's own id (array tasks and het components each have
 * theirs, and their own prolog and epilog), user, account, partition, and
 * from the GRES plugin the node's GPU indices. Variables a user sets
 * through SPANK arrive renamed SPANK_*, so none of these can be forged.
 *
 * The QoS is the exception: Slurm 22.05 passes none, so it is the job's
 * SPANK entry QD_QOS_ENV, which job_submit/qosdeny overwrites at every
 * submission and QoS update with the QoS Slurm gives the job. That makes
 * it slurmctld's word in the epilog (whose SPANK environment is the job
 * record's) and in a prolog slurmctld starts (PrologFlags=Alloc, batch
 * jobs); a prolog started by a step's launch gets the launch request's,
 * which the user's client sets (libslurm's slurm_step_launch takes any;
 * 22.05's srun drops its SLURM_SPANK_* variables), hence the epilog's QoS
 * replaces the prolog's (usage_report.c). Without job_submit/qosdeny it is
 * the user's word throughout. Either way it only labels the record, for
 * the per-QoS usage: user, account and fair share never depend on it.
 *
 * The account may be missing too: without accounting
 * (AccountingStorageType=accounting_storage/none, slurm.conf(5)) slurmctld
 * gives a job no account unless it names one, and slurmd then sets no
 * SLURM_JOB_ACCOUNT. The record is made with the account empty, so the
 * user's GPU time still counts (spank_slurmd.c says so once, at slurmd's
 * start, rather than each job twice).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "usage_qos_env.h"
#include "usage_report.h"

/* A decimal without sign, in [0, max]. */
static int parse_ull(const char *s, unsigned long long max,
		     unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	unsigned long long v;

	if (parse_ull(s, max, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int qd_gpu_count(const char *list, uint32_t *n)
{
	const char *p = list;
	uint32_t count = 0;

	*n = 0;
	if (!list || !*list)
		return 0;
	for (;;) {
		char item[24], *dash;
		size_t len = strcspn(p, ",");
		uint32_t lo, hi;

		if (!len || len >= sizeof(item))
			return -1;
		memcpy(item, p, len);
		item[len] = '\0';
		dash = strchr(item, '-');
		if (dash)
			*dash = '\0';
		if (parse_u32(item, UINT32_MAX, &lo) ||
		    parse_u32(dash ? dash + 1 : item, UINT32_MAX, &hi) ||
		    hi < lo || hi - lo >= UINT32_MAX - count)
			return -1;
		count += hi - lo + 1;
		p += len;
		if (!*p)
			break;
		p++;
	}
	*n = count;
	return 0;
}

/* A required name field from the environment. */
static int name_from(qd_env_fn env, void *arg, const char *var, char *dst,
		     char *err, size_t errlen)
{
	const char *v = env(var, arg);

	/* Escaped where it must be, hashed where even escaped it is too
	 * long (names.h): a name is kept, never dropped. */
	if (!v || qd_name_store(v, dst))
		return qd_errf(err, errlen, "%s is not set", var);
	return 0;
}

/* A label: unset, empty or unusable is "". Not an error, which would cost
 * the record: a user can set it where a prolog starts from srun. Not
 * escaped either: a QoS name is one, and text that is not a QoS name is no
 * label worth a key of its own. */
static void label_from(qd_env_fn env, void *arg, const char *var, char *dst)
{
	const char *v = env(var, arg);

	snprintf(dst, QD_NAME_MAX, "%s", v && qd_usage_name_ok(v) ? v : "");
}

/* The first name of a comma-separated list, as label_from. */
static void first_label_from(qd_env_fn env, void *arg, const char *var,
			     char *dst)
{
	const char *v = env(var, arg);
	size_t len = v ? strcspn(v, ",") : 0;
	char first[QD_NAME_MAX];

	snprintf(first, sizeof(first), "%.*s", (int)len, v ? v : "");
	snprintf(dst, QD_NAME_MAX, "%s",
		 len < QD_NAME_MAX && qd_usage_name_ok(first) ? first : "");
}

/* An optional one: unset or empty is "". */
static int optional_from(qd_env_fn env, void *arg, const char *var, char *dst,
			 char *err, size_t errlen)
{
	const char *v = env(var, arg);

	dst[0] = '\0';
	if (!v || !*v)
		return 0;
	return name_from(env, arg, var, dst, err, errlen);
}

int qd_job_record(qd_env_fn env, void *env_arg, const char *cluster,
		  struct qd_usage_record *r, char *err, size_t errlen)
{
	unsigned long long t;
	uint32_t gpus;
	const char *v;

	memset(r, 0, sizeof(*r));
	r->restart = QD_RESTART_UNKNOWN;
	/* First, so that a caller can tell a GPU job from the others even
	 * when something else is missing. */
	v = env("SLURM_JOB_GPUS", env_arg);
	if (qd_gpu_count(v, &gpus) || gpus > UINT32_MAX / 1000)
		return qd_errf(err, errlen,
			       "SLURM_JOB_GPUS '%.64s' is not a list of GPU "
			       "indices",
			       v);
	r->mgpus = gpus * 1000;
	v = env("SLURM_JOB_ID", env_arg);
	if (parse_u32(v, UINT32_MAX, &r->job_id) || !r->job_id)
		return qd_errf(err, errlen,
			       "SLURM_JOB_ID '%.32s' is not a job id",
			       v ? v : "");
	if (cluster && *cluster) {
		if (!qd_usage_name_ok(cluster))
			return qd_errf(err, errlen,
				       "cluster '%.64s' is not a name a usage "
				       "record can hold",
				       cluster);
		snprintf(r->cluster, sizeof(r->cluster), "%s", cluster);
	} else if (name_from(env, env_arg, "SLURM_CLUSTER_NAME", r->cluster,
			     err, errlen)) {
		return -1;
	}
	if (name_from(env, env_arg, "SLURMD_NODENAME", r->node, err, errlen) ||
	    name_from(env, env_arg, "SLURM_JOB_USER", r->user, err, errlen) ||
	    optional_from(env, env_arg, "SLURM_JOB_ACCOUNT", r->account, err,
			  errlen) ||
	    optional_from(env, env_arg, "SLURM_JOB_PARTITION", r->partition,
			  err, errlen))
		return -1;
	/* From 26.05 slurmd gives the prolog and epilog the QoS the job runs
	 * under (before, spank_job.c's env asks slurmctld for it in the
	 * epilog of a job that may run under several); else the label
	 * job_submit/qosdeny put in the job's SPANK environment, whose first
	 * QoS is the one a job listing several runs under unless slurmctld
	 * picked another. */
	label_from(env, env_arg, "SLURM_JOB_QOS", r->qos);
	if (!r->qos[0])
		first_label_from(env, env_arg, QD_QOS_ENV, r->qos);
	/* The run: slurmd gives the restart count wherever the job's
	 * credential is at hand (every prolog), the start time from 24.11. */
	v = env("SLURM_JOB_RESTART_COUNT", env_arg);
	if (v && parse_u32(v, QD_RESTART_UNKNOWN - 1, &r->restart))
		return qd_errf(err, errlen,
			       "SLURM_JOB_RESTART_COUNT '%.32s' is not a count",
			       v);
	v = env("SLURM_JOB_START_TIME", env_arg);
	if (v && (parse_ull(v, INT64_MAX, &t) || !t))
		return qd_errf(err, errlen,
			       "SLURM_JOB_START_TIME '%.32s' is not a time", v);
	r->job_start = v ? (int64_t)t : 0;
	return 0;
}
