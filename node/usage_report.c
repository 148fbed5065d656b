/* SPDX-License-Identifier: GPL-2.0-or-later
 * The job prolog's and epilog's work on the node's spool and Redis. Order
 * matters for "nothing lost, nothing twice": a job's open record is on disk
 * (fsync'd, renamed into place) from its prolog on; at its epilog the closed
 * record replaces it before it is sent, and a record leaves the spool only
 * once Redis has confirmed it. A crash or a kill at any point leaves a
 * record that is sent again and counted once (Redis keeps every record's
 * id), or the open record, which slurmd's next start or `qosdeny flush`
 * closes at the job's end (spool_orphan.h, docs/gpu-and-usage.md "Usage
 * reporting").
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "node_counts.h"
#include "spool.h"
#include "spool_orphan.h"
#include "site_policy.h"
#include "usage_report.h"

/* The Redis side of one hook: connected and the half-life read only when a
 * closed record is there to send; after a failure nothing more is tried, so
 * that the hook waits at most one timeout_ms (qosdeny(1), timeout_ms=). */
struct sender {
	const struct qd_reporter *rp;
	struct qd_redis *redis;
	uint64_t half_life_s;
	bool ready;
	bool failed;
	char why[QD_REPORT_ERR_MAX];
};

static void say(const struct qd_reporter *rp, enum qd_log_level level,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(const struct qd_reporter *rp, enum qd_log_level level,
		const char *fmt, ...)
{
	/* Room for a record and the causes beside it (the LOST line). */
	char msg[QD_REPORT_ERR_MAX + 2 * QD_SPOOL_ERR_MAX + QD_RECORD_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rp->log(level, msg, rp->log_arg);
}

static void warn(const char *msg, void *arg)
{
	say(arg, QD_LOG_INFO, "qosdeny: %s", msg);
}

static int sender_ready(struct sender *s, char *err, size_t errlen)
{
	struct qd_redis_config cfg = {0};
	struct qd_policy *policy = NULL;

	if (s->ready)
		return 0;
	/* The site's half-life or none: usage decayed with another one
	 * would be wrong for good, a record kept in the spool is not. */
	if (qd_site_policy(&s->rp->site, &policy, err, errlen))
		return -1;
	s->half_life_s = qd_site_half_life(policy);
	qd_policy_free(policy);
	qd_spank_opts_redis_config(&s->rp->opts, &cfg);
	cfg.warn = warn;
	cfg.warn_arg = (void *)s->rp;
	s->redis = qd_redis_new(&cfg, err, errlen);
	if (!s->redis)
		return -1;
	/* The whole replay, not each record, within timeout_ms: a job's
	 * start or end waits no longer (qosdeny(1), timeout_ms=). */
	qd_redis_budget(s->redis);
	s->ready = true;
	return 0;
}

/* One record to Redis, its round trip and, when Redis counted it now, the
 * record itself counted for the node's metrics (node_counts.h). */
static int apply(struct sender *s, const struct qd_usage_record *r, char *err,
		 size_t errlen)
{
	const char *spool = s->rp->spool;
	struct timespec t0, t1;
	int k;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	k = qd_redis_apply(s->redis, r, s->half_life_s, err, errlen);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (k >= 0) {
		int64_t ns = (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 +
			     (t1.tv_nsec - t0.tv_nsec);

		qd_node_counts_add(spool, QD_NC_REDIS_US,
				   (uint64_t)(ns > 0 ? ns / 1000 : 0));
		qd_node_counts_add(spool, QD_NC_REDIS_AT, (uint64_t)time(NULL));
	}
	if (k == 1)
		qd_node_counts_add(spool, QD_NC_SENT, 1);
	return k;
}

static int send_record(const struct qd_usage_record *r, void *arg, char *err,
		       size_t errlen)
{
	struct sender *s = arg;
	int k;

	if (s->failed) {
		snprintf(err, errlen, "%s", s->why);
		return -1;
	}
	k = sender_ready(s, err, errlen) ? -1 : apply(s, r, err, errlen);
	if (k == QD_REDIS_DAMAGED)
		return k; /* this record alone: the next one is sent */
	if (k < 0) {
		s->failed = true;
		snprintf(s->why, sizeof(s->why), "%s", err);
	}
	return k;
}

static void report_problem(const char *msg, void *arg)
{
	say(arg, QD_LOG_ERROR, "qosdeny: %s", msg);
}

/* Sends every closed record in the spool through s, then lets it go. */
static void replay(const struct qd_reporter *rp, struct sender *s)
{
	struct qd_spool_stats st;

	qd_spool_replay(rp->spool, time(NULL), send_record, s, report_problem,
			(void *)rp, &st);
	qd_redis_free(s->redis);
	s->redis = NULL;
	s->ready = false;
	if (st.sent || st.already)
		say(rp, QD_LOG_VERBOSE,
		    "qosdeny: spool %s: %zu usage record(s) sent to %s, %zu "
		    "counted before",
		    rp->spool, st.sent, rp->opts.redis, st.already);
	if (st.left)
		say(rp, QD_LOG_ERROR,
		    "qosdeny: spool %s: %zu usage record(s) not sent, kept "
		    "for the next job start or end here or `qosdeny flush`",
		    rp->spool, st.left);
}

static void orphan_note(bool failed, const char *msg, void *arg)
{
	say(arg, failed ? QD_LOG_ERROR : QD_LOG_INFO, "qosdeny: %s", msg);
}

void qd_report_sweep(const struct qd_reporter *rp, int64_t last_alive,
		     qd_run_lookup_fn lookup, void *lookup_arg)
{
	struct qd_orphan_bounds b = {
	    .now = time(NULL),
	    .boot_time = rp->boot_time,
	    .last_alive = last_alive,
	};
	char err[QD_SPOOL_ERR_MAX];
	struct sender s = {.rp = rp};
	struct qd_spool_list l;

	/* A spool that cannot be listed: the replay reports it. */
	if (!qd_spool_list(rp->spool, &l, err, sizeof(err))) {
		qd_spool_close_orphans(rp->spool, &l, &b, lookup, lookup_arg,
				       orphan_note, (void *)rp);
		qd_spool_list_free(&l);
	}
	replay(rp, &s);
}

/* What looking through the spool for one run's records found. */
struct found {
	struct qd_usage_record open; /* the run's newest open one */
	bool have_open;
	bool have_closed;
	size_t other_runs; /* open records of the job's other runs here */
};

/* Notes job's records in the spool: one listing, the names first, so that
 * a backlog of other jobs' records is not read. */
static void scan(const struct qd_reporter *rp,
		 const struct qd_usage_record *job, struct found *f)
{
	char err[QD_SPOOL_ERR_MAX];
	struct qd_spool_list l;

	memset(f, 0, sizeof(*f));
	if (qd_spool_list(rp->spool, &l, err, sizeof(err))) {
		say(rp, QD_LOG_ERROR, "qosdeny: %s", err);
		return;
	}
	for (size_t i = 0; i < l.n; i++) {
		struct qd_usage_record r;

		/* Unreadable ones are reported and quarantined by the
		 * replay that follows. */
		if (!qd_spool_name_is_jobs(l.names[i], job) ||
		    qd_spool_read(rp->spool, l.names[i], &r, err, sizeof(err)))
			continue;
		if (!qd_usage_record_same_run(&r, job)) {
			f->other_runs += qd_usage_record_is_open(&r);
		} else if (!qd_usage_record_is_open(&r)) {
			f->have_closed = true;
		} else if (!f->have_open || r.start > f->open.start) {
			f->open = r;
			f->have_open = true;
		}
	}
	qd_spool_list_free(&l);
}

/* A requeued job's earlier run here whose epilog never ran: its record is
 * its own, closed at that run's end by slurmd's next start or `qosdeny
 * flush` (spool_orphan.h), never by this run. */
static void say_other_runs(const struct qd_reporter *rp,
			   const struct qd_usage_record *job, size_t n)
{
	if (n)
		say(rp, QD_LOG_INFO,
		    "qosdeny: job %" PRIu32 ": %zu usage record(s) of its "
		    "earlier run(s) on %s still open; each is closed at that "
		    "run's end by slurmd's next start or `qosdeny flush`",
		    job->job_id, n, job->node);
}

enum qd_report_result qd_report_prolog(const struct qd_reporter *rp,
				       const struct qd_usage_record *job,
				       int64_t now)
{
	enum qd_report_result rv = QD_REPORT_NONE;
	char err[QD_SPOOL_ERR_MAX], text[QD_RECORD_MAX];
	struct qd_usage_record r = *job;
	struct sender s = {.rp = rp};
	struct found f;

	if (!job->mgpus)
		goto replay;
	scan(rp, job, &f);
	say_other_runs(rp, job, f.other_runs);
	if (f.have_open) {
		say(rp, QD_LOG_INFO,
		    "qosdeny: job %" PRIu32
		    ": the prolog ran again on %s; keeping the usage record "
		    "opened at %" PRId64,
		    job->job_id, job->node, f.open.start);
		rv = QD_REPORT_DONE;
		goto replay;
	}
	r.start = now;
	r.end = 0;
	r.mgpu_seconds = 0;
	if (qd_spool_write(rp->spool, &r, err, sizeof(err))) {
		/* The epilog will find no start and say so again. */
		say(rp, QD_LOG_ERROR,
		    "qosdeny: job %" PRIu32
		    ": GPU usage on %s will not be counted: %s (record: %s)",
		    job->job_id, job->node, err,
		    qd_usage_record_text(&r, text, sizeof(text)));
		rv = QD_REPORT_FAILED;
		goto replay;
	}
	rv = QD_REPORT_DONE;
replay:
	replay(rp, &s);
	return rv;
}

/* The closed record could not be spooled: Redis is its only way out. */
static enum qd_report_result send_unspooled(const struct qd_reporter *rp,
					    struct sender *s,
					    const struct qd_usage_record *r,
					    const char *why)
{
	char err[QD_REPORT_ERR_MAX], text[QD_RECORD_MAX], num[32],
	    last[QD_SPOOL_ERR_MAX];

	if (send_record(r, s, err, sizeof(err)) < 0) {
		/* Within the open record's own block: kept, not lost. */
		if (!qd_spool_overwrite(rp->spool, r, last, sizeof(last))) {
			say(rp, QD_LOG_ERROR,
			    "qosdeny: job %" PRIu32 ": usage on %s (%s"
			    " GPU-seconds) not sent to %s (%s) and could not "
			    "be spooled (%s): written over its open record, "
			    "kept in spool %s for the next job start or end "
			    "here or `qosdeny flush`",
			    r->job_id, r->node,
			    qd_milli_text(r->mgpu_seconds, num, sizeof(num)),
			    rp->opts.redis, err, why, rp->spool);
			return QD_REPORT_SPOOLED;
		}
		/*
		 * The open record stays: slurmd's next start or `qosdeny
		 * flush` closes it at the job's end as slurmctld or slurmdbd
		 * knows it (spool_orphan.h). The log holds the closed record
		 * too, for an administrator.
		 */
		say(rp, QD_LOG_ERROR,
		    "qosdeny: job %" PRIu32
		    ": usage on %s not spooled (%s) and not sent (%s): its "
		    "open record stays in spool %s, closed at the job's end "
		    "by slurmd's next start or `qosdeny flush`; record: %s",
		    r->job_id, r->node, why, err, rp->spool,
		    qd_usage_record_text(r, text, sizeof(text)));
		return QD_REPORT_FAILED;
	}
	/* Counted: the open record must not be closed again later. */
	if (qd_spool_remove(rp->spool, r, err, sizeof(err)))
		say(rp, QD_LOG_ERROR, "qosdeny: %s", err);
	say(rp, QD_LOG_ERROR,
	    "qosdeny: job %" PRIu32
	    ": usage record could not be spooled (%s), sent directly",
	    r->job_id, why);
	return QD_REPORT_DONE;
}

static enum qd_report_result epilog(const struct qd_reporter *rp,
				    const struct qd_usage_record *job,
				    int64_t now)
{
	char err[QD_REPORT_ERR_MAX], why[QD_SPOOL_ERR_MAX], text[QD_RECORD_MAX],
	    num[32];
	enum qd_report_result rv;
	struct qd_usage_record r;
	struct sender s = {.rp = rp};
	struct found f;

	scan(rp, job, &f);
	if (!f.have_open) {
		rv = job->mgpus && !f.have_closed ? QD_REPORT_FAILED
						  : QD_REPORT_NONE;
		say_other_runs(rp, job, f.other_runs);
		if (rv == QD_REPORT_FAILED)
			say(rp, QD_LOG_ERROR,
			    "qosdeny: job %" PRIu32 ": no usage record of "
			    "its %s GPU(s) on %s was opened, so "
			    "none is counted here: its prolog did not run on "
			    "this node (with PrologFlags=Alloc it runs at "
			    "allocation on every node), slurmd's start closed "
			    "it already (\"ended on %s without its epilog\" "
			    "above), or its spool file was lost",
			    job->job_id,
			    qd_milli_text(job->mgpus, num, sizeof(num)),
			    job->node, job->node);
		replay(rp, &s);
		return rv;
	}
	r = f.open;
	memcpy(r.qos, job->qos, sizeof(r.qos));
	if (qd_usage_record_close(&r, now)) {
		say(rp, QD_LOG_ERROR,
		    "qosdeny: job %" PRIu32 ": cannot close its usage "
		    "record at %" PRId64 ": %s",
		    r.job_id, now,
		    qd_usage_record_text(&r, text, sizeof(text)));
		replay(rp, &s);
		return QD_REPORT_FAILED;
	}
	/*
	 * The closed record replaces the open one before it is sent, so that
	 * an epilog killed once Redis took it leaves a record that the next
	 * replay finds counted; its name is made durable (a directory fsync)
	 * only if it has to wait. A crash before that brings back the open
	 * record, which slurmd's next start closes and Redis finds counted
	 * by its id
	 * (docs/gpu-and-usage.md "Usage reporting").
	 */
	if (qd_spool_stage(rp->spool, &r, why, sizeof(why))) {
		rv = send_unspooled(rp, &s, &r, why);
		replay(rp, &s);
		return rv;
	}
	if (send_record(&r, &s, err, sizeof(err)) >= 0) {
		say(rp, QD_LOG_VERBOSE,
		    "qosdeny: job %" PRIu32 ": usage on %s (%s"
		    " GPU-seconds) sent to %s",
		    r.job_id, r.node,
		    qd_milli_text(r.mgpu_seconds, num, sizeof(num)),
		    rp->opts.redis);
		/* Left behind, the next replay finds it counted. */
		if (qd_spool_remove(rp->spool, &r, why, sizeof(why)))
			say(rp, QD_LOG_ERROR, "qosdeny: %s", why);
		replay(rp, &s);
		return QD_REPORT_DONE;
	}
	if (qd_spool_sync(rp->spool, why, sizeof(why)))
		say(rp, QD_LOG_ERROR, "qosdeny: %s", why);
	replay(rp, &s);
	say(rp, QD_LOG_ERROR,
	    "qosdeny: job %" PRIu32 ": usage on %s (%s"
	    " GPU-seconds) not sent to %s; kept in spool %s for the next "
	    "job start or end here or `qosdeny flush`",
	    r.job_id, r.node, qd_milli_text(r.mgpu_seconds, num, sizeof(num)),
	    rp->opts.redis, rp->spool);
	return QD_REPORT_SPOOLED;
}

/* A job end whose record stayed in the spool, or was never written, is
 * counted for the node's metrics; one Redis counted, as it is sent. */
enum qd_report_result qd_report_epilog(const struct qd_reporter *rp,
				       const struct qd_usage_record *job,
				       int64_t now)
{
	enum qd_report_result rv = epilog(rp, job, now);

	if (rv == QD_REPORT_SPOOLED)
		qd_node_counts_add(rp->spool, QD_NC_SPOOLED, 1);
	else if (rv == QD_REPORT_FAILED)
		qd_node_counts_add(rp->spool, QD_NC_FAILED, 1);
	return rv;
}
