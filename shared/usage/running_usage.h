/*
 * Running jobs' GPU usage in Redis (contract section 9): site_factor/qosdeny
 * publishes, every interval, each running job's GPU-seconds so far, and fair
 * share counts them beside the completed usage, so that a week-long job
 * weighs on its user's priority while it runs.
 *
 * Keys, per cluster C (beside redis_usage.h's):
 *
 *   qosdeny:{C}:running  hash JOB -> "ACCOUNT USER GPU_SECONDS START": the
 *                        running jobs as of the last publication, replaced
 *                        whole by each
 *   qosdeny:{C}:ended    sorted set JOB, score = the latest end of a usage
 *                        record applied for it
 *
 * Counted once: applying a job's usage record (qd_redis_apply) removes its
 * running entry and notes its end in "ended" in the same script; a
 * publication skips a job whose noted end is not before the run it
 * describes started (its snapshot was taken before the job ended), while a
 * requeued job's new run, started after, is published again. Running usage
 * is not decayed: a record, applied at the job's end, adds the same
 * GPU-seconds undecayed.
 */
#ifndef QD_RUNNING_USAGE_H
#define QD_RUNNING_USAGE_H

#include <stddef.h>
#include <stdint.h>

#include "redis_usage.h"

/* How long "ended" remembers a job: longer than a snapshot can lag. */
#define QD_ENDED_KEEP_S 86400

struct qd_running_job {
	uint32_t job_id;
	int64_t start; /* Unix time the job (this run of it) started */
	char account[QD_NAME_MAX];
	char user[QD_NAME_MAX];
	uint64_t gpu_seconds; /* GPUs allocated x seconds run so far */
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
 * Calls fn (kind QD_USAGE_ASSOC) once per running job of cluster with its
 * GPU-seconds so far: several jobs of one association are several calls,
 * which the caller adds up. Returns 0, or -1 with err (an entry that is not
 * "ACCOUNT USER GPU_SECONDS START" is an error, not a zero).
 */
int qd_redis_read_running(struct qd_redis *r, const char *cluster,
			  qd_redis_usage_fn fn, void *arg, char *err,
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
