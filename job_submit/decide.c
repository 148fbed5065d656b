#include <string.h>

#include "decide.h"
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

/* Returns true and fills *v when the QoS has a rule and the job breaks it. */
static bool check_qos(const struct qd_policy *pol, slurmdb_qos_rec_t *qos,
		      struct request *req, const struct qd_job_view *job,
		      struct qd_verdict *v)
{
	const struct qd_qos_rule *rule;
	struct qd_limits db, lim;
	struct qd_usage used;

	if (!qos || !qos->name || !(rule = qd_policy_rule(pol, qos->name)))
		return false;
	qd_qos_db_limits(qos, &db);
	qd_limits_merge(&lim, &db, rule);
	qd_qos_usage(qos, job->uid, &used);
	if (job->het)
		qd_het_sum_apply(job->het, qos->name, &used);
	if (!qd_check(rule, &lim, &used, request_against(req, &lim, job), v))
		return false;
	qd_verdict_note_untyped(v, req->asked);
	return true;
}

/*
 * A job listing several partitions runs in one of them, so a partition QoS
 * denies only when every listed partition's QoS denies; the first such
 * failure is reported.
 */
struct partition_check {
	const struct qd_policy *pol;
	slurmdb_qos_rec_t *const *job_qos;
	size_t n_job_qos;
	struct request *req;
	const struct qd_job_view *job;
	struct qd_verdict *first;
	bool denied;
};

static bool is_job_qos(const struct partition_check *c,
		       const slurmdb_qos_rec_t *q)
{
	for (size_t i = 0; i < c->n_job_qos; i++)
		if (c->job_qos[i] == q)
			return true;
	return false;
}

/* A partition QoS that is the job's own QoS applies once, as that. */
static bool partition_denies(part_record_t *p, void *arg)
{
	struct partition_check *c = arg;
	struct qd_verdict v;

	if (!p || is_job_qos(c, p->qos_ptr) ||
	    !check_qos(c->pol, p->qos_ptr, c->req, c->job, &v)) {
		c->denied = false;
		return false;
	}
	if (!c->denied)
		*c->first = v;
	c->denied = true;
	return true;
}

static bool check_partitions(const struct qd_policy *pol,
			     slurmdb_qos_rec_t *const *job_qos, size_t n,
			     struct request *req, const struct qd_job_view *job,
			     struct qd_verdict *first)
{
	struct partition_check c = {pol, job_qos, n, req, job, first, false};

	qd_each_partition(job->partition, partition_denies, &c);
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

/* Denied under each of the job's QoS; *first is the first one's verdict. */
static bool every_qos_denies(const struct qd_policy *pol,
			     slurmdb_qos_rec_t *const *qos, size_t n,
			     struct request *req, const struct qd_job_view *job,
			     struct qd_verdict *first)
{
	struct qd_verdict v;

	for (size_t i = 0; i < n; i++)
		if (!check_qos(pol, qos[i], req, job, i ? &v : first))
			return false;
	return n > 0;
}

bool qd_decide(const struct qd_policy *pol, const struct qd_tres *req,
	       const struct qd_job_view *job, slurmdb_qos_rec_t *const *qos,
	       size_t n, const struct qd_who *who, char *msg, size_t len)
{
	struct request r = {.asked = req};
	struct qd_verdict v;
	bool denied;

	if (qd_policy_is_exempt(pol, who->user))
		return false;
	denied = every_qos_denies(pol, qos, n, &r, job, &v) ||
		 check_partitions(pol, qos, n, &r, job, &v);
	if (denied)
		qd_verdict_format(&v, msg, len);
	else if (job->het)
		count_het_component(job, n ? qos[0] : NULL,
				    request_counted(&r));
	return denied;
}
