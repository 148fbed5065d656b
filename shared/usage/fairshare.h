/* SPDX-License-Identifier: GPL-2.0-or-later
 * GPU fair share as `qosdeny share` prints it (docs/fair-share.md, "qosdeny
 * share"): one row per account and per user association below root, Slurm's
 * classic formula FairShare = 2^(-EffectvUsage/NormShares), sshare's layout.
 *
 * The table knows nothing of Slurm or Redis: the caller adds the
 * associations (from slurmdbd or qosdeny.conf) with their shares, sets each
 * row's usage (decayed GPU-seconds from Redis), and calls qd_fs_compute.
 */
#ifndef QD_FAIRSHARE_H
#define QD_FAIRSHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "policy.h"

/* Slurm's SLURMDB_FS_USE_PARENT: sacctmgr's FairShare=parent. */
#define QD_FS_USE_PARENT 0x7fffffffu

struct qd_fs_row {
	char account[QD_NAME_MAX];
	char user[QD_NAME_MAX];	  /* "" on the account's own row */
	char parent[QD_NAME_MAX]; /* account rows: parent account, "" = root */
	uint32_t raw_shares;	  /* default 1; QD_FS_USE_PARENT */
	/*
	 * Input: decayed GPU-seconds charged to this association itself. For
	 * an account row that is every job run under the account (its users'
	 * jobs included); sub-accounts' usage is added by qd_fs_compute.
	 */
	double usage;

	/* Set by qd_fs_compute. */
	double raw_usage; /* usage, plus sub-accounts' for an account row */
	double norm_shares;
	double effectv_usage;
	double fair_share;
	int depth; /* 0 for an account directly below root */
};

/* A name the rows hold hashed (names.h), and what to print for it. */
struct qd_fs_name {
	char stored[QD_NAME_MAX];
	char *shown;
};

struct qd_fs_table {
	struct qd_fs_row *rows;
	size_t n, cap;
	struct qd_fs_name *names; /* qd_fs_show_name's, few */
	size_t n_names;
	/* Hash index of the rows by (account, user): row index + 1, 0 empty.
	 * Tables of 10,000 associations are built every refresh of the site
	 * factor, so finding a row must not walk them all. */
	size_t *slots;
	size_t nslots;
};

/*
 * The row of an account (user NULL or "") or of a user association, added
 * with shares 1 and no usage when absent, or NULL when out of memory.
 * Adding a user row adds its account's row too. parent is only used for
 * account rows (NULL or "" = root) and only when the row is new. The
 * pointer is valid until the next qd_fs_add.
 */
struct qd_fs_row *qd_fs_add(struct qd_fs_table *t, const char *account,
			    const char *user, const char *parent);

/*
 * One association of Slurm's tree (slurmdbd's, or slurmctld's assoc_mgr)
 * into the table: root's own rows are left out, a parent "root" is no
 * parent, and a user with several associations in one account (one per
 * partition) keeps the first one's shares. shares is Slurm's RawShares
 * (SLURMDB_FS_USE_PARENT is QD_FS_USE_PARENT). Add accounts before users,
 * so that a user row never creates its account's row without the parent.
 * Returns 0, or -1 when out of memory.
 */
int qd_fs_add_assoc(struct qd_fs_table *t, const char *account,
		    const char *user, const char *parent, uint32_t shares);

/*
 * What qd_fs_print prints for the stored name of name where that is hashed
 * (names.h: a name whose escaped form is over 63 characters): its escaped
 * form, whole, rather than "~" and a SHA-1. Nothing for other names.
 * Returns 0, or -1 when out of memory.
 */
int qd_fs_show_name(struct qd_fs_table *t, const char *name);

/* What to print for a stored name: stored itself, or qd_fs_show_name's. */
const char *qd_fs_shown(const struct qd_fs_table *t, const char *stored);

/* The row, or NULL. */
struct qd_fs_row *qd_fs_find(struct qd_fs_table *t, const char *account,
			     const char *user);

/*
 * Sorts the rows (account, then user, the account's own row first) and
 * fills the computed fields:
 *
 * - NormShares: an account's shares over the shares of all accounts with the
 *   same parent, times the parent's NormShares (1 for root); a user's over
 *   the shares of its siblings (the users and sub-accounts of its account),
 *   times the account's. A FairShare=parent row takes its parent's
 *   NormShares and FairShare and does not count among the siblings.
 * - EffectvUsage: the row's usage over the total of the accounts directly
 *   below root, 0 when that total is 0 (no usage anywhere), capped at 1.
 *   Computed from the unrounded usage, as Slurm does.
 * - FairShare: 2^(-EffectvUsage/NormShares); 0 when NormShares is 0
 *   (Slurm's priority_p_calc_fs_factor), so no usage at all gives 1.
 *
 * A parent account that has no row, or a cycle, places the account directly
 * below root. Returns 0, or -1 when out of memory.
 */
int qd_fs_compute(struct qd_fs_table *t);

/*
 * Prints the table. parsable: sshare -P's layout, '|'-separated, header
 * first, no trailing '|'. Otherwise sshare's aligned columns: a header, a
 * line of dashes, names indented by depth and cut to the column width with
 * a '+' at the end, as sshare cuts them. RawUsage is rounded to whole
 * seconds. Names stored hashed are printed as qd_fs_show_name gave them,
 * and their rows sorted by that. Returns 0, or -1 when the stream has an
 * error or memory runs out.
 */
int qd_fs_print(FILE *f, const struct qd_fs_table *t, bool parsable);

void qd_fs_free(struct qd_fs_table *t);

#endif
