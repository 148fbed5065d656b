/* SPDX-License-Identifier: GPL-2.0-or-later
 * slurmd context. Steps that start in slurmd's own cgroup (TaskPlugin
 * task/none) get their qosdeny_* child cgroups there; a slurmstepd killed
 * before its step's exit hook leaves them behind, empty once its processes
 * are gone. slurmd's start is the moment to remove them: no step of this
 * slurmd is being set up yet, and ones still in use are refused by the
 * kernel.
 *
 * It is also where what holds for every job of the node is said, once:
 * the job prolog and epilog run per job, and a line there would repeat
 * twice per job.
 *
 * And where the usage records of jobs that ended here without their
 * epilog are closed at their end (spool_orphan.h): slurmd calls this
 * before it takes any job, and a job's prolog or epilog never asks
 * slurmctld about another job. A thread keeps slurmd's heartbeat in the
 * spool meanwhile (spool_alive.h), the bound for the next start, and,
 * with metrics_dir=, writes the node's metrics file (metrics_node.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "hiredis_lib.h"
#include "job_end_ask.h"
#include "metrics_file.h"
#include "metrics_node.h"
#include "now_ms.h"
#include "site.h"
#include "spank_priv.h"
#include "spool_alive.h"

/* The longest slurmd's start waits on slurmctld and slurmdbd for the
 * ends of orphaned records; what is not asked in time stays open. */
#define SWEEP_BUDGET_MS 5000

/*
 * A thread of slurmd's that runs its tick every every_ms until stopped:
 * the heartbeat, and the metrics file in one of its own, so that a slow
 * metrics directory (NFS) or a large spool never delays the heartbeat,
 * the bound of what a job on a crashed node is charged.
 */
struct ticker {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool running;
	bool stop;
	int64_t every_ms;
	void (*tick)(void);
};

static struct ticker beat = {.lock = PTHREAD_MUTEX_INITIALIZER,
			     .wake = PTHREAD_COND_INITIALIZER},
		     metrics = {.lock = PTHREAD_MUTEX_INITIALIZER,
				.wake = PTHREAD_COND_INITIALIZER};

/* What the threads work on, set before they start. */
static char spool_dir[PATH_MAX];
static char metrics_dir[PATH_MAX]; /* metrics_dir=, "": none */
static char adopt_dir[PATH_MAX];   /* adopt_dir=: the confinement's counts */
static char node_name[256];

static void sweep_cgroups(const struct qd_spank_opts *o)
{
	char err[1024];
	int n;

	if (o->cgroup == QD_CG_OFF)
		return;
	n = qd_cg_sweep(getpid(), err, sizeof(err));
	if (n < 0)
		slurm_verbose("qosdeny: no leftover cgroups looked for: %s",
			      err);
	else if (n > 0)
		slurm_info("qosdeny: removed %d leftover cgroup%s of ended "
			   "steps",
			   n, n == 1 ? "" : "s");
}

/*
 * Without accounting a job has no account unless it names one (--account),
 * and its records carry none (usage_job.c). slurmd set SLURM_CONF to the
 * slurm.conf it read before loading plugins (slurmd.c), so the site is
 * slurmd's own. A slurm.conf qosdeny cannot read is said by each job's
 * prolog, which needs it.
 */
static void say_accounting(void)
{
	char err[QD_SITE_ERR_MAX];
	/* struct qd_site is large: not on slurmd's stack. */
	struct qd_site *site = malloc(sizeof(*site));

	if (!site)
		return;
	if (qd_site_load(site, err, sizeof(err)))
		slurm_verbose("qosdeny: %s", err);
	else if (qd_site_accounting_off(site))
		slurm_info("qosdeny: accounting is off "
			   "(AccountingStorageType=%s): GPU usage is reported "
			   "under the user with an empty account, unless the "
			   "job names one (--account)",
			   site->accounting[0] ? site->accounting
					       : "accounting_storage/none");
	free(site);
}

/* slurmd's arguments, NUL-separated, into args; returns their length. */
static size_t slurmd_args(char *args, size_t len)
{
	ssize_t n = 0;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, args, len - 1);
		close(fd);
	}
	args[n > 0 ? n : 0] = '\0';
	return n > 0 ? (size_t)n : 0;
}

/* The node this slurmd serves, as slurmd takes it: its -N argument, else
 * the short host name. */
static void slurmd_node(const char *args, size_t n, char *node, size_t len)
{
	for (const char *a = args; a < args + n; a += strlen(a) + 1) {
		if (!strncmp(a, "-N", 2) && a[2]) {
			snprintf(node, len, "%s", a + 2);
			return;
		}
		if (!strcmp(a, "-N") && a + 3 < args + n) {
			snprintf(node, len, "%s", a + 3);
			return;
		}
	}
	qd_short_host(node, len);
}

/*
 * Whether slurmd forks into the background after loading its plugins,
 * which leaves a thread started here behind in the parent: 22.05 without
 * -D (slurmd.c calls xdaemon() after _slurmd_init(); from 24.05 before).
 */
static bool daemonizes_after_init(const char *args, size_t n)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
	(void)args;
	(void)n;
	return false;
#else
	for (const char *a = args; a < args + n; a += strlen(a) + 1)
		if (!strcmp(a, "-D"))
			return false;
	return true;
#endif
}

/* A fork's child has none of these threads, whatever the copied state
 * says. */
static void tickers_forked(void)
{
	beat.running = metrics.running = false;
}

static void heartbeat(void)
{
	static bool said;
	char err[QD_SPOOL_ERR_MAX];
	int k = qd_spool_beat(spool_dir, err, sizeof(err));

	/* Said once, not every beat. */
	if (k && !said)
		slurm_error("qosdeny: heartbeat: %s", err);
	said |= k != 0;
}

/* The node's metrics file; a failure said once, and the first success
 * after one. */
static void write_metrics(void)
{
	static struct qd_metrics_said said;
	char err[PATH_MAX + 256] = "";

	qd_node_metrics_write(spool_dir, adopt_dir, metrics_dir, node_name, err,
			      sizeof(err));
	switch (qd_metrics_say(&said, err)) {
	case QD_METRICS_SAY_FAILED:
		slurm_error("qosdeny: metrics: %s: %s", metrics_dir, err);
		break;
	case QD_METRICS_SAY_WRITTEN:
		slurm_info("qosdeny: metrics: written to %s again",
			   metrics_dir);
		break;
	case QD_METRICS_SAY_NOTHING:
		break;
	}
}

static void *tick_loop(void *arg)
{
	struct ticker *t = arg;

	pthread_mutex_lock(&t->lock);
	while (!t->stop) {
		int64_t until;
		struct timespec at;

		/* Not under the lock: a stop never waits on the disk. */
		pthread_mutex_unlock(&t->lock);
		t->tick();
		until = qd_now_ms() + t->every_ms;
		at = qd_wall_at(until);
		pthread_mutex_lock(&t->lock);
		while (!t->stop && until > qd_now_ms() &&
		       pthread_cond_timedwait(&t->wake, &t->lock, &at) !=
			   ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

static bool start_ticker(struct ticker *t, void (*tick)(void), int64_t every_ms)
{
	t->tick = tick;
	t->every_ms = every_ms;
	t->stop = false;
	t->running = !pthread_create(&t->thread, NULL, tick_loop, t);
	return t->running;
}

static void stop_ticker(struct ticker *t)
{
	if (!t->running)
		return;
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	t->running = false;
}

/* Starts the heartbeat in spool, and the metrics with o's metrics_dir,
 * unless slurmd would leave the threads behind. */
static void start_beat(const char *spool, const struct qd_spank_opts *o,
		       const char *node, const char *args, size_t n)
{
	if (daemonizes_after_init(args, n)) {
		slurm_info(
		    "qosdeny: no heartbeat: this slurmd forks into the "
		    "background after loading plugins (Slurm before "
		    "24.05 without -D); a job that ends with its node "
		    "down is charged until slurmctld's or slurmdbd's end "
		    "for it, else until the node's boot%s",
		    o->metrics_dir[0] ? "; and no metrics file is written"
				      : "");
		return;
	}
	snprintf(spool_dir, sizeof(spool_dir), "%s", spool);
	snprintf(metrics_dir, sizeof(metrics_dir), "%s", o->metrics_dir);
	snprintf(adopt_dir, sizeof(adopt_dir), "%s", o->adopt_dir);
	snprintf(node_name, sizeof(node_name), "%s", node);
	if (pthread_atfork(NULL, NULL, tickers_forked)) {
		slurm_error("qosdeny: heartbeat: no thread%s",
			    metrics_dir[0] ? ", and no metrics file" : "");
		return;
	}
	if (!start_ticker(&beat, heartbeat, QD_ALIVE_INTERVAL_S * 1000))
		slurm_error("qosdeny: heartbeat: no thread");
	if (metrics_dir[0] &&
	    !start_ticker(&metrics, write_metrics,
			  (int64_t)o->metrics_interval_s * 1000))
		slurm_error("qosdeny: metrics: no thread: no metrics file is "
			    "written");
}

static void sweep_usage(const struct qd_spank_opts *o)
{
	char node[256], err[QD_REPORT_ERR_MAX], args[4096];
	struct qd_job_end_asker asker;
	/* struct qd_reporter is large: not on slurmd's stack. */
	struct qd_reporter *rp = malloc(sizeof(*rp));
	size_t n = slurmd_args(args, sizeof(args));
	int64_t last_alive;

	slurmd_node(args, n, node, sizeof(node));
	if (!rp || qd_reporter_init(rp, o, node, qd_spank_log, NULL, err,
				    sizeof(err))) {
		slurm_error("qosdeny: usage records of jobs ended without "
			    "their epilog not looked for: %s",
			    rp ? err : "out of memory");
		free(rp);
		return;
	}
	/* The slurmd before this one beat last then; this one from now. */
	last_alive = qd_spool_last_beat(rp->spool);
	start_beat(rp->spool, o, node, args, n);
	qd_job_end_asker(&asker, SWEEP_BUDGET_MS);
	qd_report_sweep(rp, last_alive, qd_job_end_ask, &asker);
	free(rp);
}

/*
 * TLS's libraries are loaded by the processes that talk to Redis, when they
 * do (hiredis_lib.h), so their absence would show only in job epilogs:
 * slurmd's start loads them once and refuses to start without them
 * (docs/high-availability.md, "TLS").
 */
static int tls_ready(const struct qd_spank_opts *o)
{
#ifdef QD_HAVE_TLS
	char err[512];

	if (!o->redis_tls_ca[0] && !o->redis_tls_cert[0] &&
	    !o->redis_tls_key[0])
		return 0;
	if (!qd_tls_load(err, sizeof(err)))
		return 0;
	slurm_error("qosdeny: redis_tls_*: %s", err);
	return -1;
#else
	(void)o; /* the options refuse redis_tls_* (spank_opts.c) */
	return 0;
#endif
}

/* Once, at slurmd's start: a usage store that any job can write (a
 * warning at info level: test set-ups run one, and the contract has no
 * option to allow it). */
static void say_open_store(const struct qd_spank_opts *o)
{
	struct qd_redis_config cfg;
	char label[PATH_MAX + 8];

	qd_spank_opts_redis_config(o, &cfg);
	if (!qd_redis_open_to_anyone(&cfg))
		return;
	snprintf(label, sizeof(label), "redis %s",
		 cfg.addr ? cfg.addr : QD_REDIS_DEFAULT_ADDR);
	slurm_info("qosdeny: warning: " QD_REDIS_OPEN_TEXT, label);
}

int qd_slurmd_init(const struct qd_spank_opts *o)
{
	if (tls_ready(o))
		return -1;
	sweep_cgroups(o);
	say_accounting();
	sweep_usage(o);
	say_open_store(o);
	return 0;
}

void qd_slurmd_exit(void)
{
	stop_ticker(&metrics);
	stop_ticker(&beat);
}
