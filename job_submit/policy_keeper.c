/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "slurm_compat.h" /* first: Slurm's calls by their exported names */

#include "policy_keep.h"
#include "policy_keeper.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_t thread;
static bool started, stopping;
static char dir[PATH_MAX];

/* The offer not yet written, under lock. */
static char *pending, pending_source[PATH_MAX];
static time_t pending_at;

static void write_copy(const char *source, char *text, time_t at)
{
	char err[QD_ERR_MAX + PATH_MAX];

	if (qd_policy_keep(dir, source, text, at, err, sizeof(err)))
		error("qosdeny: cannot keep the policy just accepted: %s; a "
		      "start that finds %s broken runs on the one kept before",
		      err, source);
	else
		debug("qosdeny: policy from %s kept in %s/%s", source, dir,
		      QD_KEPT_NAME);
	free(text);
}

static void *run(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		char source[PATH_MAX], *text;
		time_t at;

		while (!pending && !stopping)
			pthread_cond_wait(&cond, &lock);
		if (!pending)
			break;
		text = pending;
		at = pending_at;
		memcpy(source, pending_source, sizeof(source));
		pending = NULL;
		pthread_mutex_unlock(&lock);
		write_copy(source, text, at);
		pthread_mutex_lock(&lock);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

void qd_keeper_start(const char *state_dir)
{
	snprintf(dir, sizeof(dir), "%s", state_dir);
	stopping = false;
	if (pthread_create(&thread, NULL, run, NULL)) {
		error("qosdeny: cannot start the thread that keeps accepted "
		      "policies in %s: none will be kept",
		      dir);
		return;
	}
	started = true;
}

void qd_keeper_offer(const char *source, const char *text)
{
	char *copy = strdup(text);

	if (!copy) {
		error("qosdeny: out of memory: the policy from %s is not kept",
		      source);
		return;
	}
	pthread_mutex_lock(&lock);
	if (!started) {
		pthread_mutex_unlock(&lock);
		free(copy);
		return;
	}
	free(pending);
	pending = copy;
	pending_at = time(NULL);
	snprintf(pending_source, sizeof(pending_source), "%s", source);
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
}

void qd_keeper_stop(void)
{
	if (!started)
		return;
	pthread_mutex_lock(&lock);
	stopping = true;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	started = false;
}
