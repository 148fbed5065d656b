/* SPDX-License-Identifier: GPL-2.0-or-later
 * GPU usage reporting from a compute node (docs/gpu-and-usage.md, "Usage
 * reporting"), for the SPANK plugin's job prolog and epilog, which slurmd runs
 * once per job per node, as root. No SPANK types here, so the tests drive it
 * without slurmd.
 *
 * The prolog writes an open record (the job's start on this node) to the
 * node's spool; the epilog closes it at the job's end and writes the closed
 * form over it. Both then send every closed record in the spool to Redis,
 * removing those Redis confirmed, so a record refused or lost earlier goes
 * at the next job start or end on the node (or with `qosdeny flush`), and
 * the Redis script counts a record sent twice once. A Redis that is down or
 * slow costs one timeout_ms per hook; nothing here fails the job, and
 * everything that goes wrong is logged as an error.
 */
#ifndef QD_USAGE_REPORT_H
#define QD_USAGE_REPORT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "spank_opts.h"
#include "redis_usage.h"
#include "site.h"
#include "spool_orphan.h"
#include "usage_record.h"

#define QD_REPORT_ERR_MAX 1024

enum qd_log_level { QD_LOG_ERROR, QD_LOG_INFO, QD_LOG_VERBOSE };

/* One line, no newline. */
typedef void (*qd_report_log_fn)(enum qd_log_level level, const char *msg,
				 void *arg);

/* A variable of the job's prolog/epilog environment; NULL when unset. */
typedef const char *(*qd_env_fn)(const char *name, void *arg);

struct qd_reporter {
	struct qd_site site; /* qosdeny.conf's path, for UsageHalfLife */
	char spool[PATH_MAX];
	/* The plugstack.conf line's options: Redis, TLS, timeout_ms. */
	struct qd_spank_opts opts;
	int64_t boot_time; /* this boot's start; 0: unknown */
	qd_report_log_fn log;
	void *log_arg;
};

/*
 * Fills a reporter from the plugstack.conf options and the site's
 * slurm.conf (SLURM_CONF): the spool is spool=, else qosdeny under
 * SlurmdSpoolDir, with Slurm's %n (node) and %h (host) expanded as slurmd
 * expands them, since several slurmd may share a host; boot_time from
 * qd_boot_time(). Returns 0, or -1 with err.
 */
int qd_reporter_init(struct qd_reporter *rp, const struct qd_spank_opts *o,
		     const char *node, qd_report_log_fn log, void *log_arg,
		     char *err, size_t errlen);

/* The short host name, as slurmd's %h and its default node name. */
void qd_short_host(char *buf, size_t len);

/* path with %n, %h and %% expanded. Returns 0, or -1 when it does not fit. */
int qd_expand_node_path(const char *path, const char *node, const char *host,
			char *out, size_t len);

/*
 * The job's record on this node from the prolog/epilog environment slurmd
 * builds (src/plugins/prep/script/prep_script_slurmd.c), every variable set
 * by slurmd itself (what users pass through SPANK arrives prefixed SPANK_):
 * SLURM_JOB_ID (the job's own id: an array task's or a het component's),
 * SLURMD_NODENAME, SLURM_JOB_USER, SLURM_JOB_ACCOUNT ("" when unset: a
 * cluster without accounting), SLURM_JOB_PARTITION,
 * SLURM_JOB_GPUS (this node's GPU indices), cluster from the option, else
 * SLURM_CLUSTER_NAME; qos from the SPANK entry job_submit/qosdeny sets
 * (QD_QOS_ENV; "" when unset or not a name), a label whose trust
 * usage_job.c explains; the run: restart from SLURM_JOB_RESTART_COUNT
 * (QD_RESTART_UNKNOWN when unset), job_start from SLURM_JOB_START_TIME
 * (24.11 on; 0 when unset). start and end stay 0. Returns 0, or -1 with
 * err naming the variable; r->gpus is set even then, unless SLURM_JOB_GPUS
 * itself is the problem.
 */
int qd_job_record(qd_env_fn env, void *env_arg, const char *cluster,
		  struct qd_usage_record *r, char *err, size_t errlen);

/* The number of GPUs in SLURM_JOB_GPUS ("0,2,3"; ranges "0-3" too; NULL or
 * "" is none). Returns 0, or -1 when malformed. */
int qd_gpu_count(const char *list, uint32_t *n);

enum qd_report_result {
	QD_REPORT_DONE,	   /* prolog: start spooled; epilog: Redis has it */
	QD_REPORT_NONE,	   /* no GPUs here: nothing to count */
	QD_REPORT_SPOOLED, /* epilog: closed and spooled, Redis failed */
	QD_REPORT_FAILED,  /* not recorded (logged with the record) */
};

/*
 * Job prolog: writes the job's open record, starting now, then replays the
 * spool. job comes from qd_job_record. An open record of the same run
 * (qd_usage_record_same_run) is kept: slurmd ran the prolog again (it lost
 * its state). One of the job's earlier runs here, whose epilog never ran
 * (slurmd died before the job's launch and slurmctld requeued it), is that
 * run's own: left for qd_report_sweep or `qosdeny flush` to close at that
 * run's end, and said.
 */
enum qd_report_result qd_report_prolog(const struct qd_reporter *rp,
				       const struct qd_usage_record *job,
				       int64_t now);

/*
 * Job epilog: closes the open record of the job's run (the newest, when
 * the run is not known) at now (GPU-seconds = its GPUs
 * times the seconds since its start) with job's QoS (the epilog's comes
 * from slurmctld's job record; a prolog started by a step launch has the
 * client's), writes it to the spool, then replays the spool, which sends
 * it with the rest.
 */
enum qd_report_result qd_report_epilog(const struct qd_reporter *rp,
				       const struct qd_usage_record *job,
				       int64_t now);

/*
 * slurmd's start: closes the records of jobs that ended here without
 * their epilog (spool_orphan.h), asking lookup about each open record,
 * with this boot's start and last_alive (the heartbeat the slurmd before
 * this one left, spool_alive.h) as the bounds, then replays the spool.
 */
void qd_report_sweep(const struct qd_reporter *rp, int64_t last_alive,
		     qd_run_lookup_fn lookup, void *lookup_arg);

/*
 * Keeps in Redis what each of names (a job's user and account, as Slurm
 * gives them) stands for where its stored form is hashed (usage_names.c);
 * connects only then. A failure is logged, naming the job.
 */
void qd_report_names(const struct qd_reporter *rp, const char *cluster,
		     uint32_t job, const char *const *names, size_t n);

#endif
