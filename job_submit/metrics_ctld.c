/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "slurm_compat.h" /* first: Slurm's calls by their exported names */

#include "assoc_view.h"
#include "headroom.h"
#include "metrics_ctld.h"
#include "metrics_file.h"
#include "now_ms.h"
#include "peer_plugin.h"

struct qd_ctld_counts qd_ctld_counts;

/* Every cap one record can have: three flags, each TRES and GPU type. */
#define CAPS_MAX (3 * (QD_TRES_FIXED + QD_TYPES_MAX))
/* The most users listed per QoS with metrics_per_user=yes. */
#define USERS_MAX 4096

/* The last write (CLOCK_MONOTONIC, ms) and what was said of the writes
 * (metrics_file.h). The watcher thread's alone. */
static int64_t last_write_ms = -1;
static struct qd_metrics_said said;

/* The rows being collected. */
struct rows {
	struct qd_cap_use *u;
	size_t n, cap;
};

static struct qd_cap_use *row(struct rows *r)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 32;
		struct qd_cap_use *u = realloc(r->u, cap * sizeof(*u));

		if (!u)
			return NULL;
		r->u = u;
		r->cap = cap;
	}
	return memset(&r->u[r->n++], 0, sizeof(*r->u));
}

/* The rule's caps for use; uid NULL: the limits and the group's use,
 * else that user's use of each per-user cap (named after the locks). */
static void add_caps(struct rows *r, const struct qd_qos_rule *rule,
		     const struct qd_limits *lim, const struct qd_usage *use,
		     const uint32_t *uid)
{
	struct qd_cap caps[CAPS_MAX];
	size_t k = qd_caps(rule, lim, use, caps, CAPS_MAX);

	for (size_t i = 0; i < k && i < CAPS_MAX; i++) {
		const struct qd_cap *c = &caps[i];
		struct qd_cap_use *u;

		if (c->flag == QD_DENY_ON_MAX_PER_JOB ||
		    (uid && c->flag != QD_DENY_ON_MAX_PER_USER))
			continue;
		if (!(u = row(r)))
			return;
		snprintf(u->qos, sizeof(u->qos), "%s", rule->name);
		qd_cap_tres(c, u->tres, sizeof(u->tres));
		u->flag = c->flag;
		u->has_uid = uid != NULL;
		u->uid = uid ? *uid : 0;
		u->is_mem = c->id == QD_TRES_MEM && !c->type[0];
		u->limit = c->limit;
		u->in_use = c->in_use;
	}
}

/* Each user's use of the rule's per-user caps; said once when there are
 * more users than are written. */
static void add_users(struct rows *r, const struct qd_qos_rule *rule,
		      const struct qd_limits *lim, const slurmdb_qos_rec_t *qos)
{
	static bool said;
	size_t n = qd_qos_user_usages(qos, NULL, NULL, 0), k;
	uint32_t *uid;
	struct qd_tres *use;

	k = n < USERS_MAX ? n : USERS_MAX;
	if (n > USERS_MAX && !said) {
		error("qosdeny: metrics: QOS %s: %zu users, the first %d "
		      "written",
		      rule->name, n, USERS_MAX);
		said = true;
	}
	uid = malloc((k ? k : 1) * sizeof(*uid));
	use = malloc((k ? k : 1) * sizeof(*use));
	if (uid && use) {
		k = qd_qos_user_usages(qos, uid, use, k) < k ? 0 : k;
		for (size_t i = 0; i < k; i++) {
			struct qd_usage u = {.user = use[i]};

			add_caps(r, rule, lim, &u, &uid[i]);
		}
	}
	free(uid);
	free(use);
}

/* The users' names, after the locks: a name lookup may wait on the
 * network (NSS). */
static void name_users(struct rows *r)
{
	char buf[4096];

	for (size_t i = 0; i < r->n; i++) {
		struct passwd pw, *found = NULL;
		struct qd_cap_use *u = &r->u[i];

		if (!u->has_uid)
			continue;
		if (!getpwuid_r(u->uid, &pw, buf, sizeof(buf), &found) && found)
			snprintf(u->user, sizeof(u->user), "%s",
				 found->pw_name);
		else
			snprintf(u->user, sizeof(u->user), "%u", u->uid);
	}
}

/* The group and per-user caps of every record of p, under assoc_mgr's
 * read locks. */
static void cap_rows(const struct qd_policy *p, struct rows *r)
{
	assoc_mgr_lock_t locks = QD_ASSOC_READ_LOCKS;

	assoc_mgr_lock(&locks);
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct qd_qos_rule *rule = &p->rules[i];
		slurmdb_qos_rec_t *qos;
		struct qd_limits db, lim;
		struct qd_usage used = {0};

		if (!(rule->flags &
		      (QD_DENY_ON_GRP | QD_DENY_ON_MAX_PER_USER)) ||
		    !(qos = qd_find_job_qos(rule->name, NULL)))
			continue;
		qd_qos_db_limits(qos, &db);
		qd_limits_merge(&lim, &db, rule);
		qd_qos_usage(qos, 0, NULL, &used);
		add_caps(r, rule, &lim, &used, NULL);
		if (p->metrics_per_user &&
		    (rule->flags & QD_DENY_ON_MAX_PER_USER))
			add_users(r, rule, &lim, qos);
	}
	assoc_mgr_unlock(&locks);
}

static void write_file(const char *dir, const struct qd_prom *text)
{
	char err[256] = "";

	qd_metrics_write(dir, QD_METRICS_CTLD_FILE, text, err, sizeof(err));
	switch (qd_metrics_say(&said, err)) {
	case QD_METRICS_SAY_FAILED:
		error("qosdeny: metrics: cannot write %s/%s: %s", dir,
		      QD_METRICS_CTLD_FILE, err);
		break;
	case QD_METRICS_SAY_WRITTEN:
		info("qosdeny: metrics: %s/%s written again", dir,
		     QD_METRICS_CTLD_FILE);
		break;
	case QD_METRICS_SAY_NOTHING:
		break;
	}
}

/* The site factor's families, where slurmctld loaded it (peer_plugin.h). */
static void site_factor_text(struct qd_prom *text)
{
	char *sf = qd_peer_text(QD_PEER_SITE_FACTOR, QD_PEER_SITE_FACTOR_TEXT);

	/* Its text ends in a newline, which qd_prom_line puts back. */
	if (sf && *sf)
		qd_prom_line(text, sf, strlen(sf) - 1);
	free(sf);
}

/*
 * The watcher thread alone puts a new policy in force (policy_watch.c), and
 * this runs on it: f->current is read without the policy lock, which is
 * taken only to copy the counts, so that no submission waits on the caps'
 * walk or the names.
 */
void qd_ctld_metrics_tick(const struct qd_policy_file *f,
			  pthread_mutex_t *policy_lock)
{
	const struct qd_policy *p = f->current;
	struct qd_ctld_counts copy = {0};
	struct rows caps = {0};
	struct qd_prom text = {0};
	bool copied;

	if (!p || !p->metrics_dir[0] ||
	    qd_metrics_due(&last_write_ms, qd_now_ms(), p->metrics_interval_s))
		return;
	slurm_mutex_lock(policy_lock);
	copied = qd_ctld_counts_copy(&copy, &qd_ctld_counts);
	slurm_mutex_unlock(policy_lock);
	cap_rows(p, &caps);
	name_users(&caps);
	if (copied) {
		qd_ctld_metrics_text(&copy, caps.u, caps.n, &text);
		site_factor_text(&text);
	} else {
		text.oom = true;
	}
	write_file(p->metrics_dir, &text);
	qd_prom_free(&text);
	qd_ctld_counts_free(&copy);
	free(caps.u);
}

void qd_ctld_metrics_fini(void)
{
	qd_ctld_counts_free(&qd_ctld_counts);
	last_write_ms = -1;
	said = (struct qd_metrics_said){0};
}
