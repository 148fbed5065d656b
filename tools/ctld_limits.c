/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>

#include "ctld_limits.h"
#include "errmsg.h"
#include "libslurm_compat.h"

/* slurmctld's TRES arrays are in the order of the reply's tres_names. */
static void from_array(const assoc_mgr_info_msg_t *m, const uint64_t *arr,
		       bool is_limit, struct qd_tres *out)
{
	qd_tres_init(out);
	for (uint32_t i = 0; arr && i < m->tres_cnt; i++) {
		if (is_limit && (arr[i] == INFINITE64 || arr[i] == NO_VAL64))
			continue;
		if (m->tres_names[i])
			qd_tres_set_named(out, m->tres_names[i], arr[i]);
	}
}

static const slurmdb_used_limits_t *user_used(const slurmdb_qos_rec_t *q,
					      uint32_t uid)
{
	const slurmdb_used_limits_t *u;
	qd_list_itr_t it;

	if (!q->usage || !q->usage->user_limit_list)
		return NULL;
	it = slurm_list_iterator_create(q->usage->user_limit_list);
	while ((u = slurm_list_next(it)) && u->uid != uid)
		;
	slurm_list_iterator_destroy(it);
	return u;
}

static void take_qos(const assoc_mgr_info_msg_t *m, const slurmdb_qos_rec_t *q,
		     uint32_t uid, struct qd_ctld_qos *out)
{
	const slurmdb_used_limits_t *mine = user_used(q, uid);

	snprintf(out->name, sizeof(out->name), "%s", q->name);
	from_array(m, q->max_tres_pj_ctld, true, &out->db.max_per_job);
	from_array(m, q->max_tres_pu_ctld, true, &out->db.max_per_user);
	from_array(m, q->grp_tres_ctld, true, &out->db.grp);
	from_array(m, q->usage ? q->usage->grp_used_tres : NULL, false,
		   &out->used.all);
	from_array(m, mine ? mine->tres : NULL, false, &out->used.user);
	out->over_part_qos = q->flags & QOS_FLAG_OVER_PART_QOS;
}

/* An association's QoS list holds QoS ids ("12"; "+12" as an addition). */
static void allow_assoc_qos(struct qd_ctld_view *v, uint32_t *ids,
			    const slurmdb_assoc_rec_t *a)
{
	qd_list_itr_t it;
	const char *s;

	if (!a->qos_list)
		return;
	it = slurm_list_iterator_create(a->qos_list);
	while ((s = slurm_list_next(it))) {
		unsigned long id = strtoul(s + (*s == '+'), NULL, 10);

		for (size_t i = 0; *s != '-' && i < v->n_qos; i++)
			if (ids[i] == id)
				v->qos[i].allowed = true;
	}
	slurm_list_iterator_destroy(it);
}

static void take_assocs(const assoc_mgr_info_msg_t *m, const char *user,
			uint32_t *ids, struct qd_ctld_view *v)
{
	const slurmdb_assoc_rec_t *a;
	qd_list_itr_t it;

	if (!m->assoc_list)
		return;
	it = slurm_list_iterator_create(m->assoc_list);
	while ((a = slurm_list_next(it))) {
		if (!a->user || strcasecmp(a->user, user))
			continue;
		v->has_assoc = true;
		allow_assoc_qos(v, ids, a);
	}
	slurm_list_iterator_destroy(it);
}

static void take_caller(const assoc_mgr_info_msg_t *m, const char *caller,
			struct qd_ctld_view *v)
{
	const slurmdb_user_rec_t *u;
	qd_list_itr_t it;

	if (!m->user_list)
		return;
	it = slurm_list_iterator_create(m->user_list);
	while ((u = slurm_list_next(it)))
		if (u->name && !strcasecmp(u->name, caller))
			v->caller_operator =
			    u->admin_level >= SLURMDB_ADMIN_OPERATOR;
	slurm_list_iterator_destroy(it);
}

static int take_reply(const assoc_mgr_info_msg_t *m, const char *user,
		      uint32_t uid, const char *caller, struct qd_ctld_view *v)
{
	const slurmdb_qos_rec_t *q;
	qd_list_itr_t it;
	uint32_t *ids;
	size_t n = m->qos_list ? slurm_list_count(m->qos_list) : 0;

	v->qos = calloc(n ? n : 1, sizeof(*v->qos));
	ids = calloc(n ? n : 1, sizeof(*ids));
	if (!v->qos || !ids) {
		free(ids);
		return -1;
	}
	if (n) {
		it = slurm_list_iterator_create(m->qos_list);
		while ((q = slurm_list_next(it)) && v->n_qos < n) {
			if (!q->name)
				continue;
			ids[v->n_qos] = q->id;
			take_qos(m, q, uid, &v->qos[v->n_qos++]);
		}
		slurm_list_iterator_destroy(it);
	}
	take_assocs(m, user, ids, v);
	take_caller(m, caller, v);
	free(ids);
	return 0;
}

/* The default partition's QoS, where it has one. */
static int take_default_partition(struct qd_ctld_view *v, char *err,
				  size_t errlen)
{
	partition_info_msg_t *m = NULL;

	if (slurm_load_partitions((time_t)0, &m, SHOW_ALL) != SLURM_SUCCESS)
		return qd_errf(err, errlen,
			       "cannot ask slurmctld for its partitions: %s",
			       slurm_strerror(errno));
	for (uint32_t i = 0; i < m->record_count; i++) {
		const partition_info_t *p = &m->partition_array[i];

		if ((p->flags & PART_FLAG_DEFAULT) && p->qos_char)
			snprintf(v->default_part_qos,
				 sizeof(v->default_part_qos), "%s",
				 p->qos_char);
	}
	slurm_free_partition_info_msg(m);
	return 0;
}

static int add_name(qd_list_t l, const char *name)
{
	char *copy = strdup(name);

	if (!copy)
		return -1;
	slurm_list_append(l, copy);
	return 0;
}

int qd_ctld_view_load(const struct qd_site *s, const char *user, uint32_t uid,
		      const char *caller, struct qd_ctld_view *v, char *err,
		      size_t errlen)
{
	int rv;

	memset(v, 0, sizeof(*v));
	/* Without slurm.conf libslurm would exit the process (fatal). */
	if (!s->have_slurm_conf)
		return qd_errf(err, errlen, "%s: %s", s->slurm_conf,
			       strerror(ENOENT));
	slurm_init(s->slurm_conf);
	rv = qd_ctld_view_ask(s, user, uid, caller, v, err, errlen);
	slurm_fini();
	return rv;
}

int qd_ctld_view_ask(const struct qd_site *s, const char *user, uint32_t uid,
		     const char *caller, struct qd_ctld_view *v, char *err,
		     size_t errlen)
{
	assoc_mgr_info_request_msg_t req;
	assoc_mgr_info_msg_t *reply = NULL;
	int rv = -1;

	memset(v, 0, sizeof(*v));
	if (!s->have_slurm_conf)
		return qd_errf(err, errlen, "%s: %s", s->slurm_conf,
			       strerror(ENOENT));
	memset(&req, 0, sizeof(req));
	req.flags = ASSOC_MGR_INFO_FLAG_ASSOC | ASSOC_MGR_INFO_FLAG_QOS |
		    ASSOC_MGR_INFO_FLAG_USERS;
	req.user_list = slurm_list_create(free);
	if (add_name(req.user_list, user) || add_name(req.user_list, caller)) {
		qd_errf(err, errlen, "out of memory");
		goto fail;
	}
	if (slurm_load_assoc_mgr_info(&req, &reply) != SLURM_SUCCESS) {
		qd_errf(err, errlen, "cannot ask slurmctld: %s",
			slurm_strerror(errno));
		goto fail;
	}
	if (take_reply(reply, user, uid, caller, v)) {
		qd_errf(err, errlen, "out of memory");
		goto fail;
	}
	if (take_default_partition(v, err, errlen))
		goto fail;
	rv = 0;
fail:
	if (rv)
		qd_ctld_view_free(v);
	slurm_free_assoc_mgr_info_msg(reply);
	slurm_list_destroy(req.user_list);
	return rv;
}

void qd_ctld_view_free(struct qd_ctld_view *v)
{
	free(v->qos);
	memset(v, 0, sizeof(*v));
}

const struct qd_ctld_qos *qd_ctld_qos_find(const struct qd_ctld_view *v,
					   const char *name)
{
	for (size_t i = 0; i < v->n_qos; i++)
		if (!strcasecmp(v->qos[i].name, name))
			return &v->qos[i];
	return NULL;
}
