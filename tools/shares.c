/* SPDX-License-Identifier: GPL-2.0-or-later
 * Fair-share shares: from the Slurm association tree when slurmdbd answers,
 * else from qosdeny.conf, through libslurm's public slurmdb API.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>

#include "libslurm_compat.h"
#include "shares.h"

/* An association's name as usage keys hold it (names.h: escaped where it
 * must be, hashed where it is long), so that its row meets its usage;
 * NULL for none. */
static const char *stored(const char *name, char out[QD_NAME_MAX])
{
	return name && !qd_name_store(name, out) ? out : NULL;
}

static int add_assoc(struct qd_fs_table *t, const slurmdb_assoc_rec_t *a)
{
	char acct[QD_NAME_MAX], user[QD_NAME_MAX], parent[QD_NAME_MAX];
	const char *ap = stored(a->acct, acct);

	if (!ap)
		return 0;
	/* A name stored hashed is printed whole, escaped (names.h). */
	if (qd_fs_show_name(t, a->acct) ||
	    (a->user && qd_fs_show_name(t, a->user)))
		return -1;
	return qd_fs_add_assoc(
	    t, ap, stored(a->user, user), stored(a->parent_acct, parent),
	    a->shares_raw == SLURMDB_FS_USE_PARENT ? QD_FS_USE_PARENT
						   : a->shares_raw);
}

int qd_shares_from_slurmdb(const struct qd_site *s, const char *cluster,
			   struct qd_fs_table *t)
{
	slurmdb_assoc_cond_t cond;
	slurmdb_assoc_rec_t *a;
	qd_list_t clusters = NULL, assocs = NULL;
	qd_list_itr_t it = NULL;
	void *db = NULL;
	char *name = NULL;
	int rv = -1;

	/* Without slurm.conf libslurm would exit the process (fatal). */
	if (!s->have_slurm_conf)
		return -1;
	slurm_init(s->slurm_conf);
	errno = 0;
	db = slurmdb_connection_get(NULL);
	if (!db || errno == ESLURM_DB_CONNECTION)
		goto fail;
	name = strdup(cluster);
	if (!name)
		goto fail;
	clusters = slurm_list_create(free);
	slurm_list_append(clusters, name);
	memset(&cond, 0, sizeof(cond));
	cond.cluster_list = clusters;
	assocs = slurmdb_associations_get(db, &cond);
	if (!assocs)
		goto fail;
	it = slurm_list_iterator_create(assocs);
	/* Account rows first, so that a user row never creates its account's
	 * row without the account's parent. */
	while ((a = slurm_list_next(it)))
		if (!a->user && add_assoc(t, a))
			goto fail;
	slurm_list_iterator_reset(it);
	while ((a = slurm_list_next(it)))
		if (a->user && add_assoc(t, a))
			goto fail;
	rv = 0;
fail:
	if (it)
		slurm_list_iterator_destroy(it);
	if (assocs)
		slurm_list_destroy(assocs);
	if (clusters)
		slurm_list_destroy(clusters);
	else
		free(name);
	if (db)
		slurmdb_connection_close(&db);
	slurm_fini();
	return rv;
}

int qd_shares_from_policy(const struct qd_policy *p, struct qd_fs_table *t)
{
	for (size_t i = 0; p && i < p->n_shares; i++) {
		const struct qd_share_rule *sr = &p->shares[i];
		struct qd_fs_row *r = qd_fs_add(t, sr->account, sr->user, NULL);

		if (!r)
			return -1;
		r->raw_shares = sr->shares;
	}
	return 0;
}
