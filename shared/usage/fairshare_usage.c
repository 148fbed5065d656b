/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>

#include "fairshare_usage.h"
#include "redis_names.h"
#include "running_usage.h"

/* Completed usage: SCAN may return a key twice, so it is set, not added. */
static int set_completed(enum qd_usage_kind kind, const char *account,
			 const char *user, double usage, void *arg)
{
	struct qd_fs_row *r =
	    qd_fs_add(arg, account, kind == QD_USAGE_ASSOC ? user : NULL, NULL);

	if (!r)
		return -1;
	r->usage = usage;
	return 0;
}

/* A running job counts toward its user in its account and its account. */
static int add_running(enum qd_usage_kind kind, const char *account,
		       const char *user, double usage, void *arg)
{
	struct qd_fs_row *r;

	(void)kind;
	r = qd_fs_add(arg, account, user, NULL);
	if (!r)
		return -1;
	r->usage += usage;
	r = qd_fs_find(arg, account, NULL);
	r->usage += usage;
	return 0;
}

/* One cluster's usage, per association, into its own table first. */
static int read_cluster(struct qd_fs_table *one, struct qd_redis *r,
			const char *cluster, uint64_t half_life_s,
			struct qd_usage_skipped *skipped, char *err,
			size_t errlen)
{
	if (qd_redis_read_usage(r, cluster, half_life_s, set_completed, one,
				skipped, err, errlen) ||
	    qd_redis_read_running(r, cluster, add_running, one, skipped, err,
				  errlen))
		return -1;
	return 0;
}

/* What a hashed name of a row that only the usage gave stands for, where
 * cluster's store keeps it (redis_names.h): to print it whole. */
static int find_name(struct qd_fs_table *t, struct qd_redis *r,
		     const char *cluster, const char *stored, char *err,
		     size_t errlen)
{
	char *name;
	int rv;

	if (stored[0] != '~' || qd_fs_shown(t, stored) != stored)
		return 0;
	if (qd_redis_find_name(r, cluster, stored, &name, err, errlen))
		return -1;
	rv = name ? qd_fs_show_name(t, name) : 0;
	free(name);
	if (rv)
		snprintf(err, errlen, "out of memory");
	return rv;
}

int qd_fs_read_usage(struct qd_fs_table *t, struct qd_redis *r,
		     const char *const *clusters, size_t n,
		     uint64_t half_life_s, bool add,
		     struct qd_usage_skipped *skipped, char *err, size_t errlen)
{
	for (size_t c = 0; c < n; c++) {
		struct qd_fs_table one = {0};

		if (read_cluster(&one, r, clusters[c], half_life_s, skipped,
				 err, errlen)) {
			qd_fs_free(&one);
			return -1;
		}
		for (size_t i = 0; i < one.n; i++) {
			const struct qd_fs_row *u = &one.rows[i];
			struct qd_fs_row *row =
			    add ? qd_fs_add(t, u->account, u->user, NULL)
				: qd_fs_find(t, u->account, u->user);

			if (add && !row) {
				qd_fs_free(&one);
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			if (add && (find_name(t, r, clusters[c], u->account,
					      err, errlen) ||
				    find_name(t, r, clusters[c], u->user, err,
					      errlen))) {
				qd_fs_free(&one);
				return -1;
			}
			if (row)
				row->usage += u->usage;
		}
		qd_fs_free(&one);
	}
	return 0;
}
