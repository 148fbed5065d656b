/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "slurm_compat.h" /* first: Slurm's calls by their exported names */

#include "metrics_file.h"
#include "metrics_sf.h"
#include "now_ms.h"
#include "peer_plugin.h"
#include "sf_counts.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct qd_sf_counts counts; /* jobs_set atomic, the rest locked */
/* The refresh thread's own. */
static int64_t last_write_ms = -1;
static struct qd_metrics_said said;

void qd_sf_metrics_refreshed(bool ok, int64_t ms)
{
	pthread_mutex_lock(&lock);
	counts.refreshes++;
	counts.last_ms = ms;
	if (ok)
		counts.last_success = time(NULL);
	else
		counts.failures++;
	pthread_mutex_unlock(&lock);
}

void qd_sf_metrics_jobs_set(uint64_t n)
{
	__atomic_add_fetch(&counts.jobs_set, n, __ATOMIC_RELAXED);
}

static void text(struct qd_prom *out)
{
	struct qd_sf_counts c;

	pthread_mutex_lock(&lock);
	c = counts;
	pthread_mutex_unlock(&lock);
	c.jobs_set = __atomic_load_n(&counts.jobs_set, __ATOMIC_RELAXED);
	qd_sf_metrics_text(&c, out);
}

char *qosdeny_site_factor_metrics(void)
{
	struct qd_prom out = {0};

	text(&out);
	if (out.oom) {
		qd_prom_free(&out);
		return NULL;
	}
	return out.text ? out.text : strdup("");
}

int64_t qd_sf_metrics_tick(const struct qd_policy *p)
{
	struct qd_prom out = {0};
	char err[256] = "";
	int64_t in;

	if (!p || !p->metrics_dir[0] || qd_peer_loaded(QD_PEER_JOB_SUBMIT))
		return -1;
	in = qd_metrics_due(&last_write_ms, qd_now_ms(), p->metrics_interval_s);
	if (in)
		return in;
	text(&out);
	qd_metrics_write(p->metrics_dir, QD_METRICS_CTLD_FILE, &out, err,
			 sizeof(err));
	qd_prom_free(&out);
	switch (qd_metrics_say(&said, err)) {
	case QD_METRICS_SAY_FAILED:
		error("qosdeny: site factor: metrics: cannot write %s/%s: %s",
		      p->metrics_dir, QD_METRICS_CTLD_FILE, err);
		break;
	case QD_METRICS_SAY_WRITTEN:
		info("qosdeny: site factor: metrics: %s/%s written again",
		     p->metrics_dir, QD_METRICS_CTLD_FILE);
		break;
	case QD_METRICS_SAY_NOTHING:
		break;
	}
	return (int64_t)p->metrics_interval_s * 1000;
}
