/* SPDX-License-Identifier: GPL-2.0-or-later
 * The usage column of fair share, from Redis: one cluster's or several
 * clusters' (FairShareClusters, `qosdeny share --cluster a,b`), completed
 * usage decayed to now plus the running jobs' (running_usage.h). What
 * `qosdeny share` prints and what site_factor/qosdeny ranks jobs by come
 * from this one function, so the two cannot disagree.
 */
#ifndef QD_FAIRSHARE_USAGE_H
#define QD_FAIRSHARE_USAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fairshare.h"
#include "redis_usage.h"

/*
 * Adds each cluster's usage to the rows of t (before qd_fs_compute). add:
 * usage of an association without a row gets one (no slurmdbd: the rows
 * come from the usage), and each of its names stored hashed is printed as
 * the cluster's store keeps it (redis_names.h); otherwise it is left out
 * (a deleted association). Entries that cannot be read are skipped into
 * skipped. Returns 0, or -1 with err; then t's usage is partly added.
 */
int qd_fs_read_usage(struct qd_fs_table *t, struct qd_redis *r,
		     const char *const *clusters, size_t n,
		     uint64_t half_life_s, bool add,
		     struct qd_usage_skipped *skipped, char *err,
		     size_t errlen);

#endif
