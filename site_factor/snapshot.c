/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "slurm_compat.h" /* first: Slurm's calls by their exported names */
#include "src/common/assoc_mgr.h"

#include "snapshot.h"

/* A name as usage keys hold it (names.h: escaped where it must be, hashed
 * where it is long); "" for none. */
static void copy_name(char *dst, const char *src)
{
	if (!src || qd_name_store(src, dst))
		dst[0] = '\0';
}

struct grow {
	void **items;
	size_t *n, cap, size;
	bool oom;
};

static void *next_slot(struct grow *g)
{
	if (*g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 256;
		void *items = reallocarray(*g->items, cap, g->size);

		if (!items) {
			g->oom = true;
			return NULL;
		}
		*g->items = items;
		g->cap = cap;
	}
	return (char *)*g->items + (*g->n)++ * g->size;
}

static int take_assoc(void *x, void *arg)
{
	slurmdb_assoc_rec_t *a = x;
	struct qd_sf_assoc one = {.ref.id = a->id}, *s;

	if (!a->acct || !*a->acct || !a->id)
		return 0;
	copy_name(one.ref.account, a->acct);
	copy_name(one.ref.user, a->user);
	copy_name(one.parent, a->parent_acct);
	one.shares = a->shares_raw == SLURMDB_FS_USE_PARENT ? QD_FS_USE_PARENT
							    : a->shares_raw;
	s = next_slot(arg);
	if (!s)
		return -1;
	*s = one;
	return 0;
}

struct job_walk {
	struct grow g;
	int pos;
	time_t now;
};

/* Seconds a job has run, suspensions left out (Slurm's own run time). */
static time_t run_time(const job_record_t *j, time_t now)
{
	time_t from = j->suspend_time ? j->suspend_time : j->start_time;

	if (IS_JOB_SUSPENDED(j))
		return j->pre_sus_time;
	return j->pre_sus_time + (now > from ? now - from : 0);
}

static int take_job(void *x, void *arg)
{
	job_record_t *j = x;
	struct job_walk *w = arg;
	struct qd_running_job *r;
	uint64_t gpus;

	if (!(IS_JOB_RUNNING(j) || IS_JOB_SUSPENDED(j)) || !j->tres_alloc_cnt ||
	    !j->assoc_ptr || !j->assoc_ptr->acct || !*j->assoc_ptr->acct ||
	    !j->assoc_ptr->user || !*j->assoc_ptr->user)
		return 0;
	gpus = j->tres_alloc_cnt[w->pos];
	if (!gpus || gpus == NO_VAL64)
		return 0;
	r = next_slot(&w->g);
	if (!r)
		return -1;
	r->job_id = j->job_id;
	r->start = j->start_time;
	copy_name(r->account, j->assoc_ptr->acct);
	copy_name(r->user, j->assoc_ptr->user);
	r->gpu_seconds = gpus * (uint64_t)run_time(j, w->now);
	r->nodes = j->node_cnt;
	return 0;
}

int qd_sf_snapshot_take(struct qd_sf_snapshot *s, time_t now)
{
	assoc_mgr_lock_t assoc_locks = {.assoc = READ_LOCK};
	assoc_mgr_lock_t tres_locks = {.assoc = READ_LOCK, .tres = READ_LOCK};
	slurmctld_lock_t job_read = {.job = READ_LOCK};
	slurmdb_tres_rec_t gpu = {.type = "gres", .name = "gpu"};
	struct grow ag;
	struct job_walk w;

	memset(s, 0, sizeof(*s));
	ag = (struct grow){(void **)&s->assocs, &s->n_assocs, 0,
			   sizeof(*s->assocs), false};
	w = (struct job_walk){
	    {(void **)&s->jobs, &s->n_jobs, 0, sizeof(*s->jobs), false},
	    -1,
	    now};
	assoc_mgr_lock(&assoc_locks);
	if (assoc_mgr_assoc_list)
		list_for_each(assoc_mgr_assoc_list, take_assoc, &ag);
	assoc_mgr_unlock(&assoc_locks);
	if (ag.oom)
		return -1;

	/* Slurm's lock order: slurmctld's locks before assoc_mgr's. A job's
	 * association pointer is only followed under assoc_mgr's. */
	lock_slurmctld(job_read);
	assoc_mgr_lock(&tres_locks);
	w.pos = assoc_mgr_find_tres_pos(&gpu, true);
	if (w.pos >= 0 && job_list)
		list_for_each(job_list, take_job, &w);
	assoc_mgr_unlock(&tres_locks);
	unlock_slurmctld(job_read);
	s->gpu_tres_pos = w.pos;
	return w.g.oom ? -1 : 0;
}

void qd_sf_snapshot_free(struct qd_sf_snapshot *s)
{
	free(s->assocs);
	free(s->jobs);
	memset(s, 0, sizeof(*s));
}
