/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny.conf re-read off slurmctld's locks (docs/how-it-decides.md,
 * "Reload"): a thread of the plugin looks at the file's signature every
 * QD_WATCH_MS and, when it changed, reads and parses it with no lock held.
 * Submissions only find the policy it put in force: the thread takes the
 * plugin's policy lock just to swap two pointers, so none waits on a read
 * or a parse, and an edit is in force within a second. The same thread
 * keeps each policy it accepts as the last good one in StateSaveLocation
 * (policy_keep.h): a write and fsync there (shared storage where a backup
 * controller runs) holds no lock either.
 */
#ifndef QD_POLICY_WATCH_H
#define QD_POLICY_WATCH_H

#include <pthread.h>

#include "policy.h"

#define QD_WATCH_MS 250

/* Watches f (started, as init leaves it): f->current and f->text change
 * under lock alone, and the thread alone writes f's other fields. Keeps
 * each policy it reloads in state_dir, and with keep_now the one f starts
 * with first (read from the file, not from a kept copy). */
void qd_watch_start(struct qd_policy_file *f, pthread_mutex_t *lock,
		    const char *state_dir, bool keep_now);

/* Stops the thread, before f is released (fini). */
void qd_watch_stop(void);

#endif
