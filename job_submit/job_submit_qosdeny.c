/* SPDX-License-Identifier: GPL-2.0-or-later
 * job_submit/qosdeny: rejects at submission a job that would break its QoS's
 * per-job, per-user or group caps, where qosdeny.conf asks for it.
 *
 * slurmctld calls job_submit() and job_modify() with its own read (submit)
 * or write (update) locks held, from many RPC threads at once. The policy is
 * shared between them under one mutex: a decision is a few microseconds of
 * arithmetic on assoc_mgr's counters, so serialising them costs nothing next
 * to the RPC around it. qosdeny.conf is never read here: a thread of the
 * plugin re-reads it when it changes and swaps the new policy in under the
 * same mutex (policy_watch.h).
 */
#include <libgen.h>
#include <pthread.h>
#include <string.h>

#include "slurm_compat.h" /* first: Slurm's calls by their exported names */
#include "src/common/xstring.h"

#include "dbd_state.h"
#include "decide.h"
#include "metrics_ctld.h"
#include "policy_keep.h"
#include "policy_watch.h"
#include "slurm_fields.h"
#include "usage_qos_env.h"

const char plugin_name[] = "qosdeny: reject jobs over their QoS caps at submit";
const char plugin_type[] = "job_submit/qosdeny";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static pthread_mutex_t policy_lock = PTHREAD_MUTEX_INITIALIZER;
static struct qd_policy_file policy_file;

/* Components of a het job are validated in a row by one RPC thread. */
static __thread struct qd_het_sum het_sum;

static bool has_tres(const char *list, const char *tres)
{
	size_t n = strlen(tres);

	for (const char *p = list; p && (p = strstr(p, tres)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

static bool capped(const struct qd_tres *t, enum qd_tres_id id)
{
	return qd_tres_get(t, id, QD_UNLIMITED) != QD_UNLIMITED;
}

/* Says at start what slurm.conf lacks for the records to work. */
static void check_slurm_settings(const struct qd_policy *pol)
{
	const char *acct_tres = slurm_conf.accounting_storage_tres;

	for (size_t i = 0; i < pol->n_rules; i++) {
		const struct qd_qos_rule *r = &pol->rules[i];
		const struct qd_tres *lims[] = {&r->max_per_job,
						&r->max_per_user, &r->grp};

		if ((r->flags & (QD_DENY_ON_MAX_PER_USER | QD_DENY_ON_GRP)) &&
		    !(accounting_enforce & ACCOUNTING_ENFORCE_LIMITS))
			error("qosdeny: QOS %s: AccountingStorageEnforce lacks "
			      "'limits', so Slurm keeps no running usage and "
			      "DenyOnMaxPerUser/DenyOnGrp see none",
			      r->name);
		if (!has_tres(acct_tres, "gres/gpu"))
			error("qosdeny: QOS %s: AccountingStorageTRES lacks "
			      "'gres/gpu', so Slurm counts no GPUs for its "
			      "limits",
			      r->name);
		/* The GPU shares GresTypes has ("gres/shard": "shard"). */
		for (int id = QD_TRES_BEFORE_TYPES; id < QD_TRES_FIXED; id++)
			if ((capped(lims[0], id) || capped(lims[1], id) ||
			     capped(lims[2], id)) &&
			    has_tres(slurm_conf.gres_plugins,
				     qd_tres_name(id) + strlen("gres/")) &&
			    !has_tres(acct_tres, qd_tres_name(id)))
				error("qosdeny: QOS %s: AccountingStorageTRES "
				      "lacks '%s', so Slurm counts none for "
				      "its limits",
				      r->name, qd_tres_name(id));
		for (size_t l = 0; l < 3; l++)
			for (size_t t = 0; t < lims[l]->ntyped; t++) {
				char name[64];

				snprintf(name, sizeof(name), "gres/gpu:%s",
					 lims[l]->typed[t].type);
				if (!has_tres(acct_tres, name))
					error(
					    "qosdeny: QOS %s: "
					    "AccountingStorageTRES lacks '%s', "
					    "so Slurm counts no such GPUs",
					    r->name, name);
			}
	}
}

/*
 * A start (from 23.11 also every scontrol reconfigure, which starts a new
 * slurmctld) that finds qosdeny.conf broken or unreadable runs on the
 * policy kept in StateSaveLocation (docs/how-it-decides.md, "Reload"):
 * only one with nothing ever accepted refuses, as a broken slurm.conf does.
 */
extern int init(void)
{
	char err[QD_ERR_MAX], kept_err[QD_ERR_MAX], why[3 * PATH_MAX];
	char *conf = xstrdup(slurm_conf.slurm_conf);
	const char *state_dir = slurm_conf.state_save_location;
	struct qd_kept kept;
	enum qd_start how;

	snprintf(policy_file.path, sizeof(policy_file.path), "%s/qosdeny.conf",
		 dirname(conf));
	xfree(conf);
	how = qd_policy_file_start(&policy_file, state_dir, &kept, err,
				   sizeof(err), kept_err, sizeof(kept_err));
	if (how != QD_START_FILE) {
		qd_policy_start_explain(how, &policy_file, &kept, kept_err, why,
					sizeof(why));
		error("qosdeny: %s; %s", err, why);
		if (how == QD_START_NONE)
			return SLURM_ERROR;
	}
	check_slurm_settings(policy_file.current);
	qd_ctld_count_load(&qd_ctld_counts, time(NULL),
			   policy_file.current->n_rules);
	if (how == QD_START_FILE)
		info("qosdeny: policy loaded from %s (%zu QOS records, "
		     "Enforce=%s)",
		     policy_file.path, policy_file.current->n_rules,
		     policy_file.current->enforce ? "yes" : "no");
	/* The watcher keeps it, as every later one: a write and fsync to
	 * StateSaveLocation (shared storage) holds up no start. */
	qd_watch_start(&policy_file, &policy_lock, state_dir,
		       how == QD_START_FILE);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	qd_watch_stop();
	qd_ctld_metrics_fini();
	qd_policy_file_release(&policy_file);
	return SLURM_SUCCESS;
}

/* Whether the last decision was made without slurmdbd. Accepted jobs are
 * not logged one by one, so an outage gets one line when the first
 * decision without slurmdbd is taken, and one when it is back; denials
 * also say so on their own line. Under policy_lock. */
static bool dbd_was_down;

static void log_dbd_change(bool down)
{
	if (down)
		info("qosdeny: slurmdbd unreachable: deciding from slurmctld's "
		     "cached associations and limits until it is back");
	else
		info("qosdeny: slurmdbd reachable again");
}

/* What the job's QoS is, for its usage records (usage_qos_env.h). */
struct qos_label {
	char name[QD_QOS_LABEL_MAX]; /* "" when the job gets none */
	bool allowed;	  /* an update: Slurm lets the job have them */
	bool by_operator; /* an update: asked by an operator */
	const char *resv; /* an update: the job's reservation */
};

/*
 * The QoS the job may run under, comma-separated in the order it lists
 * them: one, or from 24.11 several, of which Slurm picks one when the job
 * starts (the epilog asks slurmctld which, spank_job.c). Names past
 * QD_QOS_LABEL_MAX are left out.
 */
static void label_names(struct qos_label *l, slurmdb_qos_rec_t **qos, size_t n)
{
	size_t len = 0;

	l->name[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int w;

		if (!qos[i]->name)
			continue;
		w = snprintf(l->name + len, sizeof(l->name) - len, "%s%s",
			     len ? "," : "", qos[i]->name);
		if (w < 0 || (size_t)w >= sizeof(l->name) - len) {
			l->name[len] = '\0';
			break;
		}
		len += w;
	}
}

/*
 * Finds the job's QoS and, when req is set (a request qosdeny can count),
 * decides, under the locks; logs and answers outside them.
 */
static int decide_and_report(const struct qd_tres *req,
			     const struct qd_job_view *job,
			     struct qos_label *label, char **err_msg)
{
	assoc_mgr_lock_t locks = QD_ASSOC_READ_LOCKS;
	const struct qd_policy *pol;
	slurmdb_assoc_rec_t *assoc;
	size_t room = qd_job_qos_room(job), n;
	slurmdb_qos_rec_t **qos = xcalloc(room, sizeof(*qos));
	struct qd_who who = {0};
	struct qd_verdict v;
	char msg[512];
	bool denied = false, enforce = true, dbd_down, dbd_changed;

	slurm_mutex_lock(&policy_lock);
	dbd_down = qd_dbd_unreachable();
	dbd_changed = dbd_down != dbd_was_down;
	dbd_was_down = dbd_down;
	pol = policy_file.current;
	assoc_mgr_lock(&locks);
	n = qd_job_qos(job, &who, &assoc, qos, room);
	label_names(label, qos, n);
	label->allowed = n > 0;
	for (size_t i = 0; i < n; i++)
		label->allowed &= qd_qos_allowed(
		    qos[i], assoc, label->by_operator, label->resv);
	if (pol && req && !qd_policy_is_exempt(pol, who.user)) {
		denied = qd_decide(pol, req, job, qos, n, &v);
		enforce = pol->enforce;
		qd_ctld_count_decision(&qd_ctld_counts, n ? qos[0]->name : NULL,
				       denied ? &v : NULL, enforce);
	}
	assoc_mgr_unlock(&locks);
	slurm_mutex_unlock(&policy_lock);
	xfree(qos);
	if (denied)
		qd_verdict_format(&v, msg, sizeof(msg));

	if (dbd_changed)
		log_dbd_change(dbd_down);
	if (!denied)
		return SLURM_SUCCESS;
	info("%s (user=%s account=%s%s%s)", msg, who.user, who.account,
	     dbd_down ? "; slurmdbd unreachable, decided from "
			"slurmctld's cached limits"
		      : "",
	     enforce ? "" : "; Enforce=no, accepted");
	if (!enforce)
		return SLURM_SUCCESS;
	if (err_msg) {
		xfree(*err_msg);
		*err_msg = xstrdup(msg);
	}
	return ESLURM_ACCOUNTING_POLICY;
}

/* A request qosdeny cannot count is malformed: Slurm rejects it itself. */
static bool count(const struct qd_job_request *r, struct qd_tres *req)
{
	char err[256];

	if (qd_request_count(r, req, err, sizeof(err)) == 0)
		return true;
	debug("qosdeny: not checked, left to Slurm's validation: %s", err);
	return false;
}

/* Never NULL: Slurm's xmalloc aborts the daemon first. */
static void *x_zalloc(size_t size)
{
	return xmalloc(size);
}

static void x_release(void *p)
{
	xfree(p);
}

/* slurmctld frees the job's SPANK environment with xfree. */
static const struct qd_env_alloc slurm_alloc = {x_zalloc, x_release};

/* Overwrites whatever the submitter put under qosdeny's name; cannot fail
 * with x_zalloc. */
static void set_qos_env(char ***env, uint32_t *n, const char *qos)
{
	(void)qd_qos_env_set(env, n, qos, &slurm_alloc);
}

/*
 * Every submission gets its QoS in its SPANK environment, checked or not
 * (Enforce=no, exempt users, requests left to Slurm): each component of a
 * het job has its own description and environment, and the tasks of an
 * array copy theirs from the array's (job_array_split).
 */
extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg)
{
	struct qd_job_request r;
	struct qd_tres req;
	struct qos_label label = {0};
	struct qd_job_view job = {
	    .uid = job_desc->user_id != NO_VAL ? job_desc->user_id : submit_uid,
	    .account = job_desc->account,
	    .qos = job_desc->qos,
	    .partition = job_desc->partition,
	    .req_nodes = job_desc->req_nodes,
	    .exc_nodes = job_desc->exc_nodes,
	};
	int rc;

	if (job_desc->het_job_offset != NO_VAL) {
		if (job_desc->het_job_offset == 0)
			qd_het_sum_reset(&het_sum);
		job.het = &het_sum;
	}
	qd_request_from_desc(job_desc, &r);
	qd_request_partition_defaults(&r, job_desc->partition);
	rc = decide_and_report(count(&r, &req) ? &req : NULL, &job, &label,
			       err_msg);
	set_qos_env(&job_desc->spank_job_env, &job_desc->spank_job_env_size,
		    label.name);
	return rc;
}

/*
 * An update naming a QoS relabels the job's SPANK environment (slurmctld
 * holds the job write lock here; the update's own spank_job_env is never
 * applied) when Slurm will let the job have it. Slurm checks more after
 * this (limits for non-operators, the partitions' AllowQos/DenyQos): an
 * update it refuses for those leaves the label naming the refused QoS.
 */
static int modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		  uint32_t submit_uid, char **err_msg)
{
	struct qd_job_request r;
	struct qd_tres req;
	struct qos_label label = {
	    .by_operator = validate_operator(submit_uid),
	    .resv = job_desc->reservation && *job_desc->reservation
			? job_desc->reservation
			: job_ptr->resv_name,
	};
	struct qd_job_view job = {
	    .uid = job_ptr->user_id,
	    .account = job_desc->account ? job_desc->account : job_ptr->account,
	    .qos = job_desc->qos,
	    .partition =
		job_desc->partition ? job_desc->partition : job_ptr->partition,
	    .req_nodes = job_desc->req_nodes ? job_desc->req_nodes
			 : job_ptr->details  ? job_ptr->details->req_nodes
					     : NULL,
	    .exc_nodes = job_desc->exc_nodes ? job_desc->exc_nodes
			 : job_ptr->details  ? job_ptr->details->exc_nodes
					     : NULL,
	};
	bool size_change;
	int rc;

	if (!IS_JOB_PENDING(job_ptr) || !job_ptr->details)
		return SLURM_SUCCESS;
	size_change = qd_request_from_update(job_desc, job_ptr, &r);
	qd_request_partition_defaults(&r, job.partition);
	if (!size_change && !job_desc->qos && !job_desc->partition &&
	    !job_desc->account)
		return SLURM_SUCCESS;
	job.n_cur_qos = qd_job_cur_qos(job_ptr, &job.cur_qos);
	rc = decide_and_report(count(&r, &req) ? &req : NULL, &job, &label,
			       err_msg);
	xfree(job.cur_qos);
	if (rc == SLURM_SUCCESS && job_desc->qos && label.allowed)
		set_qos_env(&job_ptr->spank_job_env,
			    &job_ptr->spank_job_env_size, label.name);
	return rc;
}

#if QD_JOB_MODIFY_ERR_MSG
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		      uint32_t submit_uid, char **err_msg)
{
	return modify(job_desc, job_ptr, submit_uid, err_msg);
}
#else
/* The user sees Slurm's ESLURM_ACCOUNTING_POLICY text alone; the reason
 * goes to the log. */
extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		      uint32_t submit_uid)
{
	return modify(job_desc, job_ptr, submit_uid, NULL);
}
#endif
