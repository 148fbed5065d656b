/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "decide.h"
#include "in_force.h"
#include "partition_gpus.h"
#include "slurm_fields.h"
#include "untyped_gpus.h"

#include "src/common/xstring.h"

/*
 * The job's request as asked, and as checked against typed caps: with its
 * untyped GPUs counted toward the types its partitions have. That needs a
 * walk over the partitions' nodes, so it is done once per decision, and
 * only for a job with untyped GPUs in a QoS with a typed cap.
 */
struct request {
	const struct qd_tres *asked;
	bool widened;
	bool reach_complete; /* qd_partition_gpus kept every type */
	struct qd_tres reach;
	struct qd_tres any_type;
};

static bool has_typed_cap(const struct qd_limits *lim)
{
	return lim->max_per_job.ntyped || lim->max_per_user.ntyped ||
	       lim->grp.ntyped;
}

/* The request as counted so far: what the job adds to the per-user and
 * group sums of its later het components. */
static const struct qd_tres *request_counted(const struct request *r)
{
	return r->widened ? &r->any_type : r->asked;
}

static const struct qd_tres *request_against(struct request *r,
					     const struct qd_limits *lim,
					     const struct qd_job_view *job)
{
	if (!has_typed_cap(lim) || !qd_untyped_gpus(r->asked))
		return request_counted(r);
	if (!r->widened) {
		r->reach_complete =
		    qd_partition_gpus(job->partition, &r->reach);
		r->any_type = *r->asked;
		qd_count_untyped_gpus(&r->any_type, &r->reach);
		r->widened = true;
	}
	if (!r->reach_complete) {
		qd_count_untyped_gpus_unbounded(&r->any_type, r->asked,
						&r->reach, &lim->max_per_job);
		qd_count_untyped_gpus_unbounded(&r->any_type, r->asked,
						&r->reach, &lim->max_per_user);
		qd_count_untyped_gpus_unbounded(&r->any_type, r->asked,
						&r->reach, &lim->grp);
	}
	return &r->any_type;
}

/* One QoS as the core sees it (in_force.h) for a job that may be given
 * nodes: its record, its database limits with the record's laid on top,
 * its usage with the het job's earlier components, its OverPartQOS flag. */
static void side_of(const struct qd_policy *pol, slurmdb_qos_rec_t *qos,
		    bitstr_t *nodes, const struct qd_job_view *job,
		    struct qd_qos_side *s)
{
	struct qd_limits db;

	s->name = qos->name;
	s->rule = qd_policy_rule(pol, qos->name);
	qd_qos_db_limits(qos, &db);
	qd_limits_merge(&s->lim, &db, s->rule);
	qd_qos_usage(qos, job->uid, nodes, &s->used);
	if (job->het)
		qd_het_sum_apply(job->het, qos->name, &s->used);
	s->over_part_qos = qos->flags & QOS_FLAG_OVER_PART_QOS;
}

static bool given(const char *list)
{
	return list && *list;
}

/*
 * The nodes the job could be given in part: its nodes, less those its
 * --exclude names, only those its --nodelist names. NULL where qosdeny
 * cannot see the partition's nodes (xfree'd by the caller). Each list is
 * parsed once, not once per node: this runs under slurmctld's locks.
 */
static bitstr_t *job_nodes(const part_record_t *part,
			   const struct qd_job_view *job)
{
	/* hostlist_t was a pointer type before 23.11 */
	struct hostlist *req = NULL, *exc = NULL;
	bitstr_t *b;
	int first, last;

	if (!part || !part->node_bitmap)
		return NULL;
	b = bit_copy(part->node_bitmap);
	if ((!given(job->req_nodes) && !given(job->exc_nodes)) ||
	    (first = bit_ffs(b)) < 0)
		return b;
	if (given(job->req_nodes))
		req = hostlist_create(job->req_nodes);
	if (given(job->exc_nodes))
		exc = hostlist_create(job->exc_nodes);
	last = bit_fls(b);
	for (int i = first; i <= last && i < node_record_count; i++) {
		const node_record_t *node = node_record_table_ptr[i];

		if (!bit_test(b, i) || !node)
			continue;
		if ((given(job->req_nodes) &&
		     (!req || !node->name ||
		      hostlist_find(req, node->name) < 0)) ||
		    (exc && node->name && hostlist_find(exc, node->name) >= 0))
			bit_clear(b, i);
	}
	FREE_NULL_HOSTLIST(req);
	FREE_NULL_HOSTLIST(exc);
	return b;
}

static slurmdb_qos_rec_t *named(slurmdb_qos_rec_t *qos)
{
	return qos && qos->name ? qos : NULL;
}

/*
 * Returns true and fills *v when the job, under job_qos (or none) in the
 * partition part (NULL: one qosdeny cannot see), breaks a limit in force
 * as Slurm resolves job_qos and the partition's QoS (in_force.h), and the
 * QoS the limit belongs to has the flag for it.
 */
static bool check_pair(const struct qd_policy *pol, slurmdb_qos_rec_t *job_qos,
		       const part_record_t *part, struct request *req,
		       const struct qd_job_view *job, struct qd_verdict *v)
{
	slurmdb_qos_rec_t *part_qos = named(part ? part->qos_ptr : NULL);
	bitstr_t *nodes;
	struct qd_qos_side sj, sp;
	const struct qd_qos_side *order[2];
	struct qd_in_force in;
	size_t n;

	job_qos = named(job_qos);
	/* Neither has a record: nothing to deny. */
	if ((!job_qos || !qd_policy_rule(pol, job_qos->name)) &&
	    (!part_qos || !qd_policy_rule(pol, part_qos->name)))
		return false;
	nodes = job_nodes(part, job);
	if (job_qos)
		side_of(pol, job_qos, nodes, job, &sj);
	if (part_qos)
		side_of(pol, part_qos, nodes, job, &sp);
	FREE_NULL_BITMAP(nodes);
	n = qd_qos_order(job_qos ? &sj : NULL, part_qos ? &sp : NULL, order);
	qd_limits_in_force(order, n, &in);
	if (!qd_check_in_force(order, &in, request_against(req, &in.lim, job),
			       v))
		return false;
	qd_verdict_note_untyped(v, req->asked);
	return true;
}

/*
 * The job under one of its QoS, in each partition it lists: a job listing
 * several partitions runs in one of them, so it is denied only when it is
 * in every one; the first failure is reported.
 */
struct partition_check {
	const struct qd_policy *pol;
	slurmdb_qos_rec_t *job_qos;
	struct request *req;
	const struct qd_job_view *job;
	struct qd_verdict *first; /* NULL: not wanted */
	size_t seen;
	bool denied;
};

static bool partition_denies(part_record_t *p, void *arg)
{
	struct partition_check *c = arg;
	struct qd_verdict v;

	c->seen++;
	c->denied = check_pair(c->pol, c->job_qos, p, c->req, c->job, &v);
	if (c->denied && c->first && c->seen == 1)
		*c->first = v;
	return c->denied;
}

static bool denied_in_every_partition(const struct qd_policy *pol,
				      slurmdb_qos_rec_t *job_qos,
				      struct request *req,
				      const struct qd_job_view *job,
				      struct qd_verdict *first)
{
	struct partition_check c = {pol, job_qos, req, job, first, 0, false};

	qd_each_partition(job->partition, partition_denies, &c);
	/* An empty list names no partition: the job's QoS alone. */
	if (!c.seen)
		partition_denies(NULL, &c);
	return c.denied;
}

static void count_het_component(const struct qd_job_view *job,
				slurmdb_qos_rec_t *job_qos,
				const struct qd_tres *req)
{
	part_record_t *p = qd_first_partition(job->partition);

	if (job_qos && job_qos->name)
		qd_het_sum_add(job->het, job_qos->name, req);
	if (p && p->qos_ptr && p->qos_ptr != job_qos && p->qos_ptr->name)
		qd_het_sum_add(job->het, p->qos_ptr->name, req);
}

size_t qd_job_qos_room(const struct qd_job_view *job)
{
	size_t n = 1;

	if (job->qos)
		for (const char *c = job->qos; *c; c++)
			n += *c == ',';
	else if (job->n_cur_qos > n)
		n = job->n_cur_qos;
	return n;
}

/* Adds q to qos[] unless it is there or NULL; returns the new count. */
static size_t add_qos(slurmdb_qos_rec_t **qos, size_t n, size_t max,
		      slurmdb_qos_rec_t *q)
{
	for (size_t i = 0; i < n; i++)
		if (qos[i] == q)
			return n;
	if (q && n < max)
		qos[n++] = q;
	return n;
}

/*
 * Several QoS in Slurm's order: by Priority, highest first (job_mgr.c's
 * _get_qos_ptr_list sorts them so, 24.11 to 26.05, and the job runs under
 * the first that lets it); equal ones in the order listed. Insertion sort:
 * a job lists a few.
 */
static void by_priority(slurmdb_qos_rec_t **qos, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		slurmdb_qos_rec_t *q = qos[i];
		size_t j = i;

		for (; j > 0 && qos[j - 1]->priority < q->priority; j--)
			qos[j] = qos[j - 1];
		qos[j] = q;
	}
}

size_t qd_job_qos(const struct qd_job_view *job, struct qd_who *who,
		  slurmdb_assoc_rec_t **assoc, slurmdb_qos_rec_t **qos,
		  size_t max)
{
	part_record_t *part = qd_first_partition(job->partition);
	char *names, *save = NULL;
	size_t n = 0;

	*assoc = qd_find_assoc(job->uid, job->account, part ? part->name : NULL,
			       who);
	if (!job->qos && job->n_cur_qos) {
		for (size_t i = 0; i < job->n_cur_qos; i++)
			n = add_qos(qos, n, max, job->cur_qos[i]);
		return n;
	}
	if (!job->qos || !strchr(job->qos, ','))
		return add_qos(
		    qos, 0, max,
		    qd_find_job_qos(job->qos && *job->qos ? job->qos : NULL,
				    *assoc));
	names = xstrdup(job->qos);
	for (char *q = strtok_r(names, ",", &save); q;
	     q = strtok_r(NULL, ",", &save))
		n = add_qos(qos, n, max, qd_find_job_qos(q, *assoc));
	xfree(names);
	by_priority(qos, n);
	return n;
}

bool qd_qos_allowed(const slurmdb_qos_rec_t *qos,
		    const slurmdb_assoc_rec_t *assoc, bool by_operator,
		    const char *resv)
{
	if (!qos)
		return false;
	if ((accounting_enforce & ACCOUNTING_ENFORCE_QOS) && assoc &&
	    !by_operator &&
	    (!assoc->usage->valid_qos ||
	     !bit_test(assoc->usage->valid_qos, qos->id)))
		return false;
	return !(qos->flags & QOS_FLAG_REQ_RESV) || (resv && *resv);
}

/* Denied under each of the job's QoS (none: its partitions' alone), in
 * every partition; *first is the first one's verdict. */
static bool every_qos_denies(const struct qd_policy *pol,
			     slurmdb_qos_rec_t *const *qos, size_t n,
			     struct request *req, const struct qd_job_view *job,
			     struct qd_verdict *first)
{
	for (size_t i = 0; i < (n ? n : 1); i++)
		if (!denied_in_every_partition(pol, n ? qos[i] : NULL, req, job,
					       i ? NULL : first))
			return false;
	return true;
}

bool qd_decide(const struct qd_policy *pol, const struct qd_tres *req,
	       const struct qd_job_view *job, slurmdb_qos_rec_t *const *qos,
	       size_t n, struct qd_verdict *v)
{
	struct request r = {.asked = req};

	if (every_qos_denies(pol, qos, n, &r, job, v))
		return true;
	if (job->het)
		count_het_component(job, n ? qos[0] : NULL,
				    request_counted(&r));
	return false;
}
