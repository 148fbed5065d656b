/* SPDX-License-Identifier: GPL-2.0-or-later
 * The site factor of each association (docs/fair-share.md, "GPU fair
 * share in job priority"): round(weight x FairShare) of its user and account,
 * as `qosdeny share` prints them. The site_factor plugin builds a table in its
 * background thread and swaps it in whole; slurmctld's threads only look
 * factors up, so a table is never changed once built.
 */
#ifndef QD_FACTOR_TABLE_H
#define QD_FACTOR_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "fairshare.h"

/* An association as slurmctld knows it: the id a job carries. */
struct qd_assoc_ref {
	uint32_t id;
	char account[QD_NAME_MAX];
	char user[QD_NAME_MAX]; /* "" for an account's own association */
};

struct qd_factor_entry {
	uint32_t assoc_id;
	uint32_t factor;
};

/* No factor for this id in the direct index (factors are at most 10^6). */
#define QD_FACTOR_NONE UINT32_MAX

struct qd_factor_table {
	uint32_t weight;
	size_t n;
	uint32_t *direct; /* factor by assoc_id, QD_FACTOR_NONE: unknown;
			     NULL when the ids are too sparse for it */
	size_t ndirect;
	struct qd_factor_entry e[]; /* sorted by assoc_id */
};

/* round(weight x FairShare), FairShare in [0, 1] taken to the 6 decimals
 * `qosdeny share` prints, halves rounded up. */
uint32_t qd_factor_of(uint32_t weight, double fair_share);

/*
 * A table for the associations, each given the factor of its row in fs
 * (computed by qd_fs_compute); an association without a row has no usage,
 * so FairShare 1. NULL when out of memory. One block: free with free().
 */
struct qd_factor_table *qd_factor_table_build(struct qd_fs_table *fs,
					      const struct qd_assoc_ref *assocs,
					      size_t n, uint32_t weight);

/*
 * The factor of an association; one the table does not know (created since
 * it was built, so without usage) gets weight, FairShare 1.
 */
uint32_t qd_factor_lookup(const struct qd_factor_table *t, uint32_t assoc_id);

#endif
