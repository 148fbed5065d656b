/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <string.h>

#include "assoc_view.h"

static void copy_name(char *dst, const char *src)
{
	snprintf(dst, QD_NAME_MAX, "%s", src ? src : "");
}

slurmdb_assoc_rec_t *qd_find_assoc(uint32_t uid, const char *account,
				   const char *partition, struct qd_who *who)
{
	slurmdb_user_rec_t user = {.uid = uid};
	/* The names as given, not who's copies: those are cut for the log. */
	slurmdb_assoc_rec_t key = {.uid = uid,
				   .acct = (char *)account,
				   .partition = (char *)partition};
	slurmdb_assoc_rec_t *assoc = NULL;

	who->uid = uid;
	snprintf(who->user, sizeof(who->user), "%u", uid);
	copy_name(who->account, account);
	/* With enforce 0 an unknown user still "succeeds", names unset. */
	if (assoc_mgr_fill_in_user(acct_db_conn, &user, 0, NULL, true) ==
		SLURM_SUCCESS &&
	    user.name) {
		copy_name(who->user, user.name);
		if (!account) {
			key.acct = user.default_acct;
			copy_name(who->account, user.default_acct);
		}
	}

	if (assoc_mgr_fill_in_assoc(acct_db_conn, &key, 0, &assoc, true) !=
	    SLURM_SUCCESS)
		return NULL;
	return assoc;
}

slurmdb_qos_rec_t *qd_find_job_qos(const char *qos_name,
				   slurmdb_assoc_rec_t *assoc)
{
	slurmdb_qos_rec_t key = {.name = (char *)qos_name};
	slurmdb_qos_rec_t *qos = NULL;

	assoc_mgr_get_default_qos_info(assoc, &key);
	if (assoc_mgr_fill_in_qos(acct_db_conn, &key, 0, &qos, true) !=
	    SLURM_SUCCESS)
		return NULL;
	return qos;
}

/*
 * Positions in assoc_mgr's TRES arrays change as TRES are added, so each
 * array is walked by TRES record, keeping the ones qosdeny covers.
 */
static void from_tres_array(const uint64_t *arr, bool is_limit,
			    struct qd_tres *out)
{
	qd_tres_init(out);
	if (!arr)
		return;
	for (uint32_t i = 0; i < g_tres_count; i++) {
		const slurmdb_tres_rec_t *t = assoc_mgr_tres_array[i];
		uint64_t v = arr[i];
		char name[64];

		if (is_limit && (v == INFINITE64 || v == NO_VAL64))
			continue;
		if (!t || !t->type)
			continue;
		/* A GPU type as Slurm names it, whatever its characters (a
		 * MIG profile's "+me" too), though qosdeny.conf takes fewer. */
		if (!strcmp(t->type, "gres") && t->name &&
		    !strncmp(t->name, "gpu:", 4)) {
			if (qd_tres_set_typed(out, t->name + 4, v))
				debug("qosdeny: too many GPU types, ignoring "
				      "gres/%s",
				      t->name);
			continue;
		}
		/* assoc_mgr keeps "gres" and "shard" apart; qosdeny's names
		 * are sacctmgr's, "gres/shard". */
		snprintf(name, sizeof(name), "%s%s%s", t->type,
			 t->name ? "/" : "", t->name ? t->name : "");
		qd_tres_set_named(out, name, v);
	}
}

void qd_qos_db_limits(const slurmdb_qos_rec_t *qos, struct qd_limits *out)
{
	from_tres_array(qos->max_tres_pj_ctld, true, &out->max_per_job);
	from_tres_array(qos->max_tres_pu_ctld, true, &out->max_per_user);
	from_tres_array(qos->grp_tres_ctld, true, &out->grp);
}

static int match_uid(void *x, void *key)
{
	return ((slurmdb_used_limits_t *)x)->uid == *(uint32_t *)key;
}

/* The nodes of used (a QoS's or a user's in it) that are in nodes; all of
 * them without nodes. */
static uint64_t nodes_in(bitstr_t *used, bitstr_t *nodes)
{
	if (!used)
		return 0;
	return nodes ? bit_overlap(used, nodes) : bit_set_count(used);
}

void qd_qos_usage(const slurmdb_qos_rec_t *qos, uint32_t uid, bitstr_t *nodes,
		  struct qd_usage *out)
{
	slurmdb_used_limits_t *mine = NULL;

	/* Read-only lookup: acct_policy_get_user_used_limits() would create
	 * the entry, which needs the write lock we do not hold. */
	if (qos->usage && qos->usage->user_limit_list)
		mine = list_find_first(qos->usage->user_limit_list, match_uid,
				       &uid);
	from_tres_array(qos->usage ? qos->usage->grp_used_tres : NULL, false,
			&out->all);
	from_tres_array(mine ? mine->tres : NULL, false, &out->user);
	out->all_nodes_shared =
	    qos->usage ? nodes_in(qos->usage->grp_node_bitmap, nodes) : 0;
	out->user_nodes_shared = mine ? nodes_in(mine->node_bitmap, nodes) : 0;
}

struct user_walk {
	uint32_t *uid;
	struct qd_tres *use;
	size_t n, max;
};

static int add_user(void *x, void *arg)
{
	const slurmdb_used_limits_t *u = x;
	struct user_walk *w = arg;

	if (w->n < w->max) {
		w->uid[w->n] = u->uid;
		from_tres_array(u->tres, false, &w->use[w->n]);
	}
	w->n++;
	return 0;
}

size_t qd_qos_user_usages(const slurmdb_qos_rec_t *qos, uint32_t *uid,
			  struct qd_tres *use, size_t max)
{
	struct user_walk w = {.uid = uid, .use = use, .max = max};

	if (qos->usage && qos->usage->user_limit_list)
		list_for_each_ro(qos->usage->user_limit_list, add_user, &w);
	return w.n;
}
