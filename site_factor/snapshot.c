/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "slurm_compat.h" /* first: Slurm's calls by their exported names */
#include "src/common/assoc_mgr.h"

#include "gpu_weights.h"
#include "gres_held.h"
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

/* A partition's GPU type weights (gpu_weights.h) as TRES positions in a
 * job's allocation counts, read once per snapshot: slurmctld's job list
 * holds far more jobs than partitions, and the walk holds its locks. */
struct part_weights {
	const part_record_t *part;
	size_t n;
	struct {
		int pos;
		uint32_t milli;
	} w[QD_GPU_WEIGHTS_MAX];
};

/* A node's Gres= (gres_held.h), read at the first job sharing its GPUs. */
struct node_gres {
	bool read;
	struct qd_node_gres conf;
};

struct job_walk {
	struct grow g;
	int pos;
	time_t now;
	struct qd_gpu_weights *parsed; /* room for one partition's string */
	struct part_weights *parts;
	size_t n_parts, cap_parts;
	struct node_gres *nodes; /* node_record_count, once a share is seen */
	bool oom;
};

/* Seconds a job has run, suspensions left out (Slurm's own run time). */
static time_t run_time(const job_record_t *j, time_t now)
{
	time_t from = j->suspend_time ? j->suspend_time : j->start_time;

	if (IS_JOB_SUSPENDED(j))
		return j->pre_sus_time;
	return j->pre_sus_time + (now > from ? now - from : 0);
}

/* Whether the job's GRES detail names a GPU share on some node. */
static bool holds_shares(const job_record_t *j)
{
	for (uint32_t i = 0; i < j->gres_detail_cnt; i++)
		if (j->gres_detail_str[i] &&
		    (strstr(j->gres_detail_str[i], "shard") ||
		     strstr(j->gres_detail_str[i], "mps")))
			return true;
	return false;
}

/*
 * Thousandths of GPUs a job with shares holds, as its records will charge
 * them (docs/gpu-and-usage.md "Usage of shared GPUs"): each node's GRES
 * detail (one per node of its node_bitmap, in order), whose shares lack
 * their N before 23.11.2, then taken from the node's Gres=. -1 where a
 * detail does not read: the job's gres/gpu stands.
 */
static int64_t shares_held(const job_record_t *j, struct job_walk *w)
{
	uint64_t sum = 0, m;
	uint32_t k = 0;
	char err[256];
	int shared, last;

	if (!j->node_bitmap)
		return -1;
	if (!w->nodes && node_record_count > 0) {
		w->nodes = calloc(node_record_count, sizeof(*w->nodes));
		if (!w->nodes) {
			w->oom = true;
			return -1;
		}
	}
	last = bit_fls(j->node_bitmap);
	for (int n = bit_ffs(j->node_bitmap);
	     n >= 0 && n <= last && n < node_record_count &&
	     k < j->gres_detail_cnt;
	     n++) {
		struct node_gres *c = &w->nodes[n];
		node_record_t *node;

		if (!bit_test(j->node_bitmap, n))
			continue;
		if (!c->read) {
			node = node_record_table_ptr[n];
			if (node && node->gres &&
			    qd_node_gres_parse(node->gres, &c->conf, err,
					       sizeof(err)))
				memset(&c->conf, 0, sizeof(c->conf));
			c->read = true;
		}
		if (qd_gres_held(j->gres_detail_str[k++], &c->conf, &m, &shared,
				 err, sizeof(err)))
			return -1;
		sum += m;
	}
	return (int64_t)sum;
}

/*
 * The partition's weights, from the snapshot's own list, read there at
 * its first job. slurmctld refuses a weight for a TRES it does not track,
 * so each weighed type has a position; one that has none is left out.
 * NULL where the partition weighs no type, or its string does not read.
 */
static const struct part_weights *part_weights(const part_record_t *part,
					       struct job_walk *w)
{
	struct part_weights *p;
	char err[256];

	for (size_t i = 0; i < w->n_parts; i++)
		if (w->parts[i].part == part)
			return w->parts[i].n ? &w->parts[i] : NULL;
	if (w->n_parts == w->cap_parts) {
		size_t cap = w->cap_parts ? 2 * w->cap_parts : 8;
		struct part_weights *parts =
		    reallocarray(w->parts, cap, sizeof(*parts));

		if (!parts) {
			w->oom = true;
			return NULL;
		}
		w->parts = parts;
		w->cap_parts = cap;
	}
	p = &w->parts[w->n_parts++];
	p->part = part;
	p->n = 0;
	if (!part->billing_weights_str ||
	    qd_gpu_weights_parse(part->billing_weights_str, w->parsed, err,
				 sizeof(err)))
		return NULL;
	for (size_t i = 0; i < w->parsed->n; i++) {
		char name[sizeof("gpu:") + QD_GPU_TYPE_MAX];
		slurmdb_tres_rec_t t = {.type = "gres", .name = name};
		int pos;

		snprintf(name, sizeof(name), "gpu:%s", w->parsed->w[i].type);
		pos = assoc_mgr_find_tres_pos(&t, true);
		if (pos < 0)
			continue;
		p->w[p->n].pos = pos;
		p->w[p->n++].milli = w->parsed->w[i].milli;
	}
	return p->n ? p : NULL;
}

/*
 * Thousandths of whole GPUs weighed as the job's records weigh them
 * (gpu_weights.h): its partition's TRESBillingWeights for a GPU type
 * weighs the allocation's gres/gpu:<type>; the other GPUs, and all of a
 * partition that weighs no type, weigh 1.
 */
static uint64_t weighed(const job_record_t *j, struct job_walk *w,
			uint64_t gpus)
{
	const struct part_weights *p;
	uint64_t typed = 0, sum = 0;

	if (!j->part_ptr || !(p = part_weights(j->part_ptr, w)))
		return 1000 * gpus;
	for (size_t i = 0; i < p->n; i++) {
		uint64_t n = j->tres_alloc_cnt[p->w[i].pos];

		if (n == NO_VAL64)
			continue;
		typed += n;
		sum += n * p->w[i].milli;
	}
	if (typed > gpus)
		return 1000 * gpus;
	sum += 1000 * (gpus - typed);
	return sum ? sum : 1; /* a thousandth at least, as a record */
}

static int take_job(void *x, void *arg)
{
	job_record_t *j = x;
	struct job_walk *w = arg;
	struct qd_running_job *r;
	uint64_t gpus, mgpus;
	int64_t held;

	if (!(IS_JOB_RUNNING(j) || IS_JOB_SUSPENDED(j)) || !j->tres_alloc_cnt ||
	    !j->assoc_ptr || !j->assoc_ptr->acct || !*j->assoc_ptr->acct ||
	    !j->assoc_ptr->user || !*j->assoc_ptr->user)
		return 0;
	gpus = j->tres_alloc_cnt[w->pos];
	if (gpus == NO_VAL64)
		gpus = 0;
	mgpus = gpus ? weighed(j, w, gpus) : 0;
	/* A share of a GPU is in gres/shard or gres/mps, not gres/gpu; its
	 * GPU's type is not in the allocation's counts, so it weighs 1 here
	 * until the job's records, which know the type, replace it. */
	if (holds_shares(j) && (held = shares_held(j, w)) >= 0)
		mgpus = (uint64_t)held;
	if (w->oom)
		return -1;
	if (!mgpus)
		return 0;
	r = next_slot(&w->g);
	if (!r)
		return -1;
	r->job_id = j->job_id;
	r->start = j->start_time;
	copy_name(r->account, j->assoc_ptr->acct);
	copy_name(r->user, j->assoc_ptr->user);
	r->gpu_seconds = mgpus * (uint64_t)run_time(j, w->now) / 1000;
	r->nodes = j->node_cnt;
	return 0;
}

int qd_sf_snapshot_take(struct qd_sf_snapshot *s, time_t now)
{
	assoc_mgr_lock_t assoc_locks = {.assoc = READ_LOCK};
	assoc_mgr_lock_t tres_locks = {.assoc = READ_LOCK, .tres = READ_LOCK};
	/* Nodes too: a share's N may be in a node's Gres= (shares_held); and
	 * partitions, whose weights an update replaces (part_weights). */
	slurmctld_lock_t job_read = {
	    .job = READ_LOCK, .node = READ_LOCK, .part = READ_LOCK};
	slurmdb_tres_rec_t gpu = {.type = "gres", .name = "gpu"};
	struct grow ag;
	struct job_walk w;

	memset(s, 0, sizeof(*s));
	ag = (struct grow){(void **)&s->assocs, &s->n_assocs, 0,
			   sizeof(*s->assocs), false};
	w = (struct job_walk){
	    .g = {(void **)&s->jobs, &s->n_jobs, 0, sizeof(*s->jobs), false},
	    .pos = -1,
	    .now = now,
	    .parsed = malloc(sizeof(*w.parsed))};
	if (!w.parsed)
		return -1;
	assoc_mgr_lock(&assoc_locks);
	if (assoc_mgr_assoc_list)
		list_for_each(assoc_mgr_assoc_list, take_assoc, &ag);
	assoc_mgr_unlock(&assoc_locks);
	if (ag.oom) {
		free(w.parsed);
		return -1;
	}

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
	free(w.parsed);
	free(w.parts);
	free(w.nodes);
	return w.g.oom || w.oom ? -1 : 0;
}

void qd_sf_snapshot_free(struct qd_sf_snapshot *s)
{
	free(s->assocs);
	free(s->jobs);
	memset(s, 0, sizeof(*s));
}
