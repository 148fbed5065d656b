/* SPDX-License-Identifier: GPL-2.0-or-later
 * The background refresh (refresh.h). Locking: table_lock guards the table
 * pointer alone and is held by slurmctld's threads for lookups; ctl_lock
 * guards the thread's parameters and wake-ups. Neither is ever held while
 * waiting for slurmctld's locks or for Redis.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slurm_compat.h" /* first: Slurm's calls by their exported names */

#include "errmsg.h"
#include "fairshare_usage.h"
#include "metrics_sf.h"
#include "now_ms.h"
#include "policy_keep.h"
#include "refresh.h"
#include "site.h"
#include "site_opts.h"
#include "site_policy.h"
#include "snapshot.h"

#define ERR_MAX (QD_SITE_ERR_MAX + QD_ERR_MAX)

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct qd_factor_table *table;
static uint32_t table_weight; /* before the first table */

static pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ctl_cond = PTHREAD_COND_INITIALIZER;
static struct qd_factor_params params;
static bool wake, started;
static pthread_t thread;
/* When qd_sf_stop began (CLOCK_MONOTONIC ms), 0 until then: the thread's
 * stop flag, and for its Redis handle the time after which no call starts
 * (qd_redis_config's stop_ms), so a stop waits for the call in progress
 * alone, within timeout_ms, and every 23.11+ scontrol reconfigure with it. */
static int64_t stop_ms;

static bool stopping(void)
{
	return __atomic_load_n(&stop_ms, __ATOMIC_ACQUIRE) != 0;
}

/* The thread's own, after qd_sf_start. */
static char conf_path[PATH_MAX];
static char ctld_cluster[QD_NAME_MAX]; /* ClusterName */
static struct qd_policy_file policy_file;
static char keep_dir[PATH_MAX]; /* StateSaveLocation */
static bool keep_pending;	/* policy_file's policy is to be kept */
static struct qd_redis *redis;
static char redis_conf[6 * PATH_MAX]; /* what redis was made from */
static bool outage;
static bool warned_no_gpu_tres;
static size_t skipped_before; /* entries the last refresh skipped */

/* slurm.conf and the spank_qosdeny.so line, read as the plugin reads it
 * (qosdeny(1), PLUGSTACK.CONF OPTIONS): o has the defaults where it was not
 * read. */
static int load_site(struct qd_site *site, struct qd_spank_opts *o, char *err,
		     size_t errlen)
{
	qd_spank_opts_init(o);
	return qd_site_load_from(site, conf_path, err, errlen) ||
		       qd_site_spank_opts(site, o, err, errlen)
		   ? -1
		   : 0;
}

/* This cluster, as usage records name it: plugstack's cluster=, else
 * ClusterName. */
static const char *this_cluster(const struct qd_site *site,
				const struct qd_spank_opts *o)
{
	const char *c = qd_site_cluster(site, o);

	return c ? c : ctld_cluster;
}

/* FairShareClusters, else this cluster. */
static size_t fs_clusters(const struct qd_policy *p, const struct qd_site *site,
			  const struct qd_spank_opts *o, const char **out)
{
	size_t n = 0;

	for (; p && n < p->n_fs_clusters && n < QD_FS_CLUSTERS_MAX; n++)
		out[n] = p->fs_clusters[n];
	if (!n)
		out[n++] = this_cluster(site, o);
	return n;
}

/* The sentinels are down and the primary found before is used: said when
 * the handle connects again, not at every refresh. */
static void warn(const char *msg, void *arg)
{
	(void)arg;
	info("qosdeny: site factor: %s", msg);
}

/* The Redis handle for the line's settings, made anew when they change. */
static struct qd_redis *redis_for(const struct qd_spank_opts *o, char *err,
				  size_t errlen)
{
	struct qd_redis_config cfg;
	char conf[sizeof(redis_conf)];

	qd_spank_opts_redis_config(o, &cfg);
	cfg.warn = warn;
	cfg.stop_ms = &stop_ms;
	snprintf(conf, sizeof(conf), "%s|%s|%u|%s|%d|%s|%s|%s", o->redis,
		 o->redis_password_file, o->timeout_ms, o->redis_user,
		 o->redis_replicas, o->redis_tls_ca, o->redis_tls_cert,
		 o->redis_tls_key);
	if (redis && !strcmp(conf, redis_conf))
		return redis;
	qd_redis_free(redis);
	redis = qd_redis_new(&cfg, err, errlen);
	snprintf(redis_conf, sizeof(redis_conf), "%s", redis ? conf : "");
	/* Once per setting: a usage store that any job can write. */
	if (redis && qd_redis_open_to_anyone(&cfg))
		info("qosdeny: site factor: warning: " QD_REDIS_OPEN_TEXT,
		     qd_redis_label(redis));
	return redis;
}

/* The association tree, accounts first (qd_fs_add_assoc). */
static int add_shares(struct qd_fs_table *t, const struct qd_sf_snapshot *s)
{
	for (int users = 0; users < 2; users++)
		for (size_t i = 0; i < s->n_assocs; i++) {
			const struct qd_sf_assoc *a = &s->assocs[i];

			if (!a->ref.user[0] == !users &&
			    qd_fs_add_assoc(t, a->ref.account,
					    users ? a->ref.user : NULL,
					    a->parent, a->shares))
				return -1;
		}
	return 0;
}

static struct qd_factor_table *build_table(struct qd_fs_table *t,
					   const struct qd_sf_snapshot *s,
					   uint32_t weight)
{
	struct qd_assoc_ref *refs = calloc(s->n_assocs + 1, sizeof(*refs));
	struct qd_factor_table *ft;

	if (!refs)
		return NULL;
	for (size_t i = 0; i < s->n_assocs; i++)
		refs[i] = s->assocs[i].ref;
	ft = qd_factor_table_build(t, refs, s->n_assocs, weight);
	free(refs);
	return ft;
}

static void swap_table(struct qd_factor_table *ft)
{
	struct qd_factor_table *old;

	pthread_mutex_lock(&table_lock);
	old = table;
	table = ft;
	pthread_mutex_unlock(&table_lock);
	free(old);
}

/* Writes the policy just accepted as the last good one (policy_keep.h):
 * here, off slurmctld's threads and locks. */
static void keep_policy(void)
{
	char err[QD_ERR_MAX + PATH_MAX];

	keep_pending = false;
	if (qd_policy_keep(keep_dir, policy_file.path, policy_file.text,
			   time(NULL), err, sizeof(err)))
		error("qosdeny: site factor: cannot keep the policy just "
		      "accepted: %s",
		      err);
}

/* The current policy: re-read when the file changed, the previous kept
 * when the new one does not parse (as job_submit/qosdeny does). A failure
 * is logged once, until the file changes again; with no qosdeny.conf at
 * all, the defaults apply (qosdeny.conf(5), FairShareClusters: this
 * cluster alone). */
static const struct qd_policy *current_policy(const struct qd_site *site)
{
	char err[QD_ERR_MAX];

	snprintf(policy_file.path, sizeof(policy_file.path), "%s",
		 site->qosdeny_conf);
	switch (qd_policy_file_refresh(&policy_file, err, sizeof(err))) {
	case QD_REFRESH_RELOADED:
		keep_pending = true;
		break;
	case QD_REFRESH_FAILED:
		error("qosdeny: site factor: %s; %s", err,
		      policy_file.current ? "the previous policy stays in force"
					  : "qosdeny.conf's defaults apply");
		break;
	case QD_REFRESH_SAME:
		break;
	}
	if (keep_pending && policy_file.text)
		keep_policy();
	return policy_file.current;
}

/* Usage entries in Redis that cannot be read (anything a job reached may
 * have written them) are left out of the factors: said when their number
 * changes, not at every refresh. */
static void report_skipped(const struct qd_usage_skipped *s)
{
	char text[sizeof(s->first) + 128];

	if (s->n && s->n != skipped_before)
		error("qosdeny: site factor: %s",
		      qd_usage_skipped_text(s, text, sizeof(text)));
	else if (!s->n && skipped_before)
		info("qosdeny: site factor: every usage entry in Redis can "
		     "be read again");
	skipped_before = s->n;
}

/* One refresh; returns 0, or -1 with err (the table is then kept). */
static int refresh(uint32_t weight, char *err, size_t errlen)
{
	const char *clusters[QD_FS_CLUSTERS_MAX];
	const struct qd_policy *policy;
	struct qd_fs_table t = {0};
	struct qd_sf_snapshot s;
	struct qd_factor_table *ft;
	struct qd_site site;
	struct qd_spank_opts opts;
	struct qd_redis *r;
	struct qd_usage_skipped skipped = {0};
	size_t n;
	int rv = -1;

	if (load_site(&site, &opts, err, errlen))
		return -1;
	policy = current_policy(&site);
	n = fs_clusters(policy, &site, &opts, clusters);
	if (qd_sf_snapshot_take(&s, time(NULL))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (s.gpu_tres_pos < 0 && !warned_no_gpu_tres) {
		error("qosdeny: site factor: AccountingStorageTRES lacks "
		      "gres/gpu, so running jobs' GPU time is not counted "
		      "until they end");
		warned_no_gpu_tres = true;
	}
	r = redis_for(&opts, err, errlen);
	/* Each refresh on the primary the sentinels name now, not on one a
	 * partition left behind (docs/high-availability.md). */
	if (r)
		qd_redis_follow(r);
	if (!r || qd_redis_publish_running(r, this_cluster(&site, &opts),
					   s.jobs, s.n_jobs, err, errlen) < 0)
		goto fail;
	if (add_shares(&t, &s)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (qd_fs_read_usage(&t, r, clusters, n, qd_site_half_life(policy),
			     false, &skipped, err, errlen))
		goto fail;
	report_skipped(&skipped);
	if (qd_fs_compute(&t) || !(ft = build_table(&t, &s, weight))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	swap_table(ft);
	rv = 0;
fail:
	qd_fs_free(&t);
	qd_sf_snapshot_free(&s);
	return rv;
}

/* One line when Redis (or anything else) starts failing, one when it
 * answers again: the factors are kept in between. */
static void report(int rv, const char *err)
{
	if (rv && !outage)
		error("qosdeny: site factor: %s; the factors keep their last "
		      "values",
		      err);
	else if (!rv && outage)
		info("qosdeny: site factor: %s answers again; factors "
		     "refreshed",
		     redis ? qd_redis_label(redis) : "redis");
	outage = rv != 0;
}

/* Waits on ctl_cond (held) until CLOCK_MONOTONIC's ms reaches until_ms,
 * a wake-up or a stop. */
static void wait_until(int64_t until_ms)
{
	struct timespec until = qd_wall_at(until_ms);

	if (until_ms > qd_now_ms())
		pthread_cond_timedwait(&ctl_cond, &ctl_lock, &until);
}

/* A refresh every interval; between them, the metrics file where this
 * thread writes it (metrics_sf.h), every metrics_interval. */
static void *run(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&ctl_lock);
	while (!stopping()) {
		uint32_t weight = params.weight, interval = params.interval_s;
		char err[ERR_MAX];
		int64_t t0, next;
		int rv;

		pthread_mutex_unlock(&ctl_lock);
		t0 = qd_now_ms();
		rv = refresh(weight, err, sizeof(err));
		/* A refresh the stop cut short is no outage. */
		if (!stopping()) {
			report(rv, err);
			qd_sf_metrics_refreshed(rv == 0, qd_now_ms() - t0);
		}
		next = qd_now_ms() + (int64_t)interval * 1000;
		pthread_mutex_lock(&ctl_lock);
		while (!stopping() && !wake && qd_now_ms() < next) {
			int64_t in;

			pthread_mutex_unlock(&ctl_lock);
			in = qd_sf_metrics_tick(policy_file.current);
			pthread_mutex_lock(&ctl_lock);
			if (!stopping() && !wake)
				wait_until(in >= 0 && qd_now_ms() + in < next
					       ? qd_now_ms() + in
					       : next);
		}
		wake = false;
	}
	pthread_mutex_unlock(&ctl_lock);
	return NULL;
}

/*
 * The policy at start, as job_submit/qosdeny's init: a broken or unreadable
 * file runs on the kept copy, and only a start with none ever kept fails.
 * With no qosdeny.conf and nothing kept the defaults apply.
 */
static int start_policy(const char *path, bool again, char *err, size_t errlen)
{
	char file_err[QD_ERR_MAX], kept_err[QD_ERR_MAX], why[3 * PATH_MAX];
	struct qd_kept kept;
	enum qd_start how;

	snprintf(policy_file.path, sizeof(policy_file.path), "%s", path);
	how =
	    qd_policy_file_start(&policy_file, keep_dir, &kept, file_err,
				 sizeof(file_err), kept_err, sizeof(kept_err));
	keep_pending = how == QD_START_FILE;
	if (how == QD_START_FILE)
		return 0;
	qd_policy_start_explain(how, &policy_file, &kept, kept_err, why,
				sizeof(why));
	if (how == QD_START_KEPT)
		error("qosdeny: site factor: %s; %s", file_err, why);
	else if (!kept.exists && access(path, F_OK) && errno == ENOENT)
		info("qosdeny: site factor: %s; qosdeny.conf's defaults apply",
		     file_err);
	else if (again)
		error("qosdeny: site factor: %s; slurmctld goes on after its "
		      "failed reconfigure, on qosdeny.conf's defaults until "
		      "the file is mended",
		      file_err);
	else
		return qd_errf(err, errlen, "%s; %s", file_err, why);
	return 0;
}

int qd_sf_start(const char *slurm_conf, const char *cluster_name,
		const char *state_dir, const struct qd_factor_params *p,
		bool again, char *err, size_t errlen)
{
	const char *clusters[QD_FS_CLUSTERS_MAX];
	char list[QD_FS_CLUSTERS_MAX * QD_NAME_MAX] = "";
	struct qd_site site;
	struct qd_spank_opts opts;
	size_t n, len = 0;

	snprintf(conf_path, sizeof(conf_path), "%s", slurm_conf);
	snprintf(ctld_cluster, sizeof(ctld_cluster), "%s",
		 cluster_name ? cluster_name : "");
	snprintf(keep_dir, sizeof(keep_dir), "%s", state_dir);
	if (load_site(&site, &opts, err, errlen)) {
		if (!again)
			return -1;
		error("qosdeny: site factor: %s; slurmctld goes on after its "
		      "failed reconfigure, and the factors are refreshed once "
		      "the file is mended",
		      err);
	} else if (start_policy(site.qosdeny_conf, again, err, errlen)) {
		return -1;
	}
	n = fs_clusters(policy_file.current, &site, &opts, clusters);
	for (size_t i = 0; i < n; i++)
		len += snprintf(list + len, sizeof(list) - len, "%s%s",
				i ? "," : "", clusters[i]);
	info("qosdeny: site factor: weight=%u interval=%u clusters=%s",
	     p->weight, p->interval_s, list);

	params = *p;
	table_weight = p->weight;
	wake = false;
	__atomic_store_n(&stop_ms, 0, __ATOMIC_RELEASE);
	outage = warned_no_gpu_tres = false;
	skipped_before = 0;
	if (pthread_create(&thread, NULL, run, NULL)) {
		snprintf(err, errlen, "cannot start its thread");
		return -1;
	}
	started = true;
	return 0;
}

void qd_sf_reconfigure(const struct qd_factor_params *p)
{
	pthread_mutex_lock(&ctl_lock);
	params = *p;
	wake = true;
	pthread_cond_signal(&ctl_cond);
	pthread_mutex_unlock(&ctl_lock);
	pthread_mutex_lock(&table_lock);
	table_weight = p->weight;
	pthread_mutex_unlock(&table_lock);
}

/* Said with the time it took: a slow Redis's share of a shutdown or a
 * 23.11+ reconfigure, within timeout_ms. */
void qd_sf_stop(void)
{
	int64_t t0;

	if (!started)
		return;
	t0 = qd_now_ms();
	__atomic_store_n(&stop_ms, t0, __ATOMIC_RELEASE);
	pthread_mutex_lock(&ctl_lock);
	pthread_cond_signal(&ctl_cond);
	pthread_mutex_unlock(&ctl_lock);
	pthread_join(thread, NULL);
	info("qosdeny: site factor: stopped in %" PRId64 " ms",
	     qd_now_ms() - t0);
	started = false;
	swap_table(NULL);
	qd_redis_free(redis);
	redis = NULL;
	redis_conf[0] = '\0';
	qd_policy_file_release(&policy_file);
}

void qd_sf_table_lock(void)
{
	pthread_mutex_lock(&table_lock);
}

uint32_t qd_sf_factor(uint32_t assoc_id)
{
	return table ? qd_factor_lookup(table, assoc_id) : table_weight;
}

bool qd_sf_have_table(void)
{
	return table;
}

void qd_sf_table_unlock(void)
{
	pthread_mutex_unlock(&table_lock);
}
