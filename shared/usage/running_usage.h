/* SPDX-License-Identifier: GPL-2.0-or-later
 * Running jobs' GPU usage in Redis (docs/fair-share.md, "GPU fair share in job
 * priority"): site_factor/qosdeny publishes, every interval, each running job's
 * GPU-seconds so far, and fair share counts them beside the completed usage, so
 * that a week-long job weighs on its user's priority while it runs.
 *
 * Keys, per cluster C (beside redis_usage.h's):
 *
 *   qosdeny:{C}:running  hash JOB -> "ACCOUNT USER GPU_SECONDS START NODES
 *                        SEEN": GPU-seconds not yet covered by the job's
 *                        usage records, the run's start, how many of its
 *                        nodes' records are still to come, and when a
 *                        publication last saw it running (Redis's clock)
 *   qosdeny:{C}:ended    sorted set JOB, score = the latest end of a usage
 *                        record applied for it
 *
 * Counted once, and not missing in between: each usage record applied for
 * the job (qd_redis_apply, on any node) takes its GPU-seconds off the
 * entry and one off NODES, and removes the entry with the last node's
 * record; "ended" notes it. A publication rewrites the entries of the jobs
 * slurmctld runs, except those whose records have begun to arrive (noted
 * end not before the run's start: the snapshot was taken before the job
 * ended), which only shrink from then on; a requeued job's new run,
 * started after, is published afresh. The entry of a job slurmctld no
 * longer runs stays, frozen, until its records have all arrived (a node's
 * epilog, or a spool flushed after Redis was down), for at most
 * QD_RUNNING_KEEP_S after it was last seen running: readers count no entry
 * older than that, so entries left by a site factor that was switched off
 * do not count forever. Running usage is not decayed: a record, applied at
 * the job's end, adds the same GPU-seconds undecayed.
 */
#ifndef QD_RUNNING_USAGE_H
#define QD_RUNNING_USAGE_H

#include <stddef.h>
#include <stdint.h>

#include "redis_usage.h"

/* How long "ended" remembers a job (longer than a snapshot can lag), and
 * how long a job's entry outlives its last sighting while its records are
 * still to come. */
#define QD_ENDED_KEEP_S	  86400
#define QD_RUNNING_KEEP_S QD_ENDED_KEEP_S

/* GPU-seconds published at most (the scripts count in doubles). */
#define QD_RUNNING_GS_MAX (UINT64_C(1) << 53)

struct qd_running_job {
	uint32_t job_id;
	int64_t start; /* Unix time the job (this run of it) started */
	char account[QD_NAME_MAX];
	char user[QD_NAME_MAX];
	uint64_t gpu_seconds; /* GPUs allocated x seconds run so far */
	uint32_t nodes;	      /* nodes allocated: records to come */
};

/*
 * Replaces cluster's running entries with these jobs, atomically, leaving
 * out those whose records were applied. Each name must pass
 * qd_usage_name_ok. Returns the number of jobs published, or -1 with err.
 */
long qd_redis_publish_running(struct qd_redis *r, const char *cluster,
			      const struct qd_running_job *jobs, size_t n,
			      char *err, size_t errlen);

/*
 * One entry's value, len bytes as Redis holds them, into its account and
 * user (QD_NAME_MAX each), GPU-seconds and last sighting: 0, or -1 when it
 * is not six decimal fields and names as qd_usage_name_ok takes them
 * "ACCOUNT USER GPU_SECONDS START NODES SEEN", blank-separated, NUL-free
 * and shorter than an entry the scripts write can be.
 */
int qd_running_entry_parse(const char *s, size_t len, char *account, char *user,
			   uint64_t *gs, uint64_t *seen);

/*
 * Calls fn (kind QD_USAGE_ASSOC) once per running job of cluster with its
 * GPU-seconds not yet in its records: several jobs of one association are
 * several calls, which the caller adds up. Entries last seen running more
 * than QD_RUNNING_KEEP_S ago are left out; so is an entry that is not
 * "ACCOUNT USER GPU_SECONDS START NODES SEEN", into skipped. Returns 0, or
 * -1 with err when Redis itself failed.
 */
int qd_redis_read_running(struct qd_redis *r, const char *cluster,
			  qd_redis_usage_fn fn, void *arg,
			  struct qd_usage_skipped *skipped, char *err,
			  size_t errlen);

/*
 * The cluster's "running" and "ended" keys, each at most QD_REDIS_KEY_MAX
 * (redis_conn.h) long; qd_redis_apply names them too. Returns 0, or -1
 * when too long.
 */
int qd_running_keys(const char *cluster, char *running, char *ended);

/* The Lua script qd_redis_publish_running runs (running_script.c). */
extern const char qd_running_script[];

#endif
