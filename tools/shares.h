/* SPDX-License-Identifier: GPL-2.0-or-later
 * Fair-share shares for `qosdeny share` (docs/fair-share.md, "qosdeny
 * share"): slurmdbd's association tree, else qosdeny.conf's records.
 */
#ifndef QD_SHARES_H
#define QD_SHARES_H

#include "fairshare.h"
#include "policy.h"
#include "site.h"

/*
 * Fills t with the associations of cluster below root, from slurmdbd
 * through libslurm's slurmdb API (the FairShare of each is its RawShares).
 * Returns 0, or -1 when slurmdbd cannot be asked (no slurm.conf, accounting
 * off, slurmdbd down): then the shares come from qosdeny.conf.
 */
int qd_shares_from_slurmdb(const struct qd_site *s, const char *cluster,
			   struct qd_fs_table *t);

/* Fills t with qosdeny.conf's Account= and User= records (p may be NULL).
 * Returns 0, or -1 when out of memory. */
int qd_shares_from_policy(const struct qd_policy *p, struct qd_fs_table *t);

#endif
