/* SPDX-License-Identifier: GPL-2.0-or-later
 * Keeps each policy job_submit/qosdeny accepts as the last good one in
 * StateSaveLocation (policy_keep.h), written by a thread of its own: a
 * policy re-read at a submission is accepted with slurmctld's job locks
 * held, where a write and fsync to StateSaveLocation (shared storage where
 * a backup controller runs) must not be waited for.
 */
#ifndef QD_POLICY_KEEPER_H
#define QD_POLICY_KEEPER_H

/* Starts the writer for dir; a failure is logged, and no copy is kept. */
void qd_keeper_start(const char *dir);

/* Keeps text, read from source and accepted now: copies it and returns at
 * once; a later offer replaces one not yet written. */
void qd_keeper_offer(const char *source, const char *text);

/* Writes what is pending and stops the writer. */
void qd_keeper_stop(void);

#endif
