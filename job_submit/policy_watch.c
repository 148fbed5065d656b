/* SPDX-License-Identifier: GPL-2.0-or-later
 * The policy watcher (policy_watch.h). Its thread sleeps on a monotonic
 * clock, so a change of the wall clock neither stops nor hurries it.
 */
#include <limits.h>
#include <stdlib.h>
#include <time.h>

#include "slurm_compat.h" /* first: Slurm's calls by their exported names */

#include "errmsg.h"
#include "metrics_ctld.h"
#include "policy_keep.h"
#include "policy_watch.h"

static pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ctl_cond;
static bool started, stopping, keep_first;
static pthread_t thread;
static struct qd_policy_file *file;
static pthread_mutex_t *policy_lock;
static char keep_dir[PATH_MAX];

/* Keeps text, read from file->path and accepted now, as the last good
 * policy: a start that finds the file broken runs on it. */
static void keep(const char *text)
{
	char err[QD_ERR_MAX + PATH_MAX];

	if (qd_policy_keep(keep_dir, file->path, text, time(NULL), err,
			   sizeof(err)))
		error("qosdeny: cannot keep the policy just accepted: %s; a "
		      "start that finds %s broken runs on the one kept before",
		      err, file->path);
	else
		debug("qosdeny: policy from %s kept in %s/%s", file->path,
		      keep_dir, QD_KEPT_NAME);
}

/* One look at the file; a new policy is swapped in under policy_lock, the
 * old one freed after. */
static void look(void)
{
	char err[QD_ERR_MAX];
	struct qd_policy *p, *old;
	char *text, *old_text;

	switch (qd_policy_file_changed(file, &p, &text, err, sizeof(err))) {
	case QD_REFRESH_RELOADED:
		slurm_mutex_lock(policy_lock);
		old = file->current;
		old_text = file->text;
		file->current = p;
		file->text = text;
		qd_ctld_count_load(&qd_ctld_counts, time(NULL), p->n_rules);
		slurm_mutex_unlock(policy_lock);
		qd_policy_free(old);
		free(old_text);
		info("qosdeny: policy reloaded from %s (%zu QOS records)",
		     file->path, p->n_rules);
		/* Only this thread frees a text once init is done. */
		keep(text);
		break;
	case QD_REFRESH_FAILED:
		slurm_mutex_lock(policy_lock);
		qd_ctld_count_reload_error(&qd_ctld_counts);
		slurm_mutex_unlock(policy_lock);
		error("qosdeny: %s; the previous policy stays in force", err);
		break;
	case QD_REFRESH_SAME:
		break;
	}
}

static void *run(void *arg)
{
	struct timespec until;

	(void)arg;
	if (keep_first)
		keep(file->text);
	slurm_mutex_lock(&ctl_lock);
	while (!stopping) {
		slurm_mutex_unlock(&ctl_lock);
		look();
		qd_ctld_metrics_tick(file, policy_lock);
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += QD_WATCH_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		slurm_mutex_lock(&ctl_lock);
		while (!stopping &&
		       !pthread_cond_timedwait(&ctl_cond, &ctl_lock, &until))
			;
	}
	slurm_mutex_unlock(&ctl_lock);
	return NULL;
}

void qd_watch_start(struct qd_policy_file *f, pthread_mutex_t *lock,
		    const char *state_dir, bool keep_now)
{
	pthread_condattr_t attr;

	file = f;
	policy_lock = lock;
	keep_first = keep_now;
	snprintf(keep_dir, sizeof(keep_dir), "%s", state_dir);
	stopping = false;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ctl_cond, &attr);
	pthread_condattr_destroy(&attr);
	if (pthread_create(&thread, NULL, run, NULL)) {
		error("qosdeny: cannot start the thread that re-reads %s: "
		      "edits take effect at the next restart or reconfigure, "
		      "and no accepted policy is kept in %s",
		      f->path, state_dir);
		pthread_cond_destroy(&ctl_cond);
		return;
	}
	started = true;
}

void qd_watch_stop(void)
{
	if (!started)
		return;
	slurm_mutex_lock(&ctl_lock);
	stopping = true;
	pthread_cond_signal(&ctl_cond);
	slurm_mutex_unlock(&ctl_lock);
	pthread_join(thread, NULL);
	pthread_cond_destroy(&ctl_cond);
	started = false;
}
