/* SPDX-License-Identifier: GPL-2.0-or-later
 * slurmctld 22.05 keeps what it knows of slurmdbd in two globals of its own,
 * exported by the slurmctld binary:
 *
 *   dbd_failure (trigger_mgr.c): set to 1 by the accounting_storage/slurmdbd
 *     plugin's dbd_fail callback when a write to slurmdbd finds the
 *     connection closed or broken (slurm_persist_conn.c), back to 0 by its
 *     dbd_resumed callback once a connection is opened again (dbd_conn.c).
 *     It is what `strigger --primary_slurmdbd_failure` fires on.
 *   running_cache (controller.c): not RUNNING_CACHE_STATE_NOTRUNNING while
 *     slurmctld, started with slurmdbd down, runs on the associations it
 *     saved in its state files; that start path never sets dbd_failure.
 *
 * slurmctld notices a lost slurmdbd at its next message to it (jobs starting
 * and ending, node changes: within seconds on a busy cluster), not sooner.
 * Both are read without trigger_mgr's mutex (static there): a one-byte and
 * a two-byte flag, read atomically. They are weak references so the plugin
 * still loads where slurmctld lacks them (then: never reported).
 */
#include <stdint.h>

#include "src/common/slurm_xlator.h" /* calls by exported names */
#include "src/common/assoc_mgr.h"

#include "dbd_state.h"

extern uint8_t dbd_failure __attribute__((weak));
extern uint16_t running_cache __attribute__((weak));

bool qd_dbd_unreachable(void)
{
	if (&dbd_failure && __atomic_load_n(&dbd_failure, __ATOMIC_RELAXED))
		return true;
	return &running_cache &&
	       __atomic_load_n(&running_cache, __ATOMIC_RELAXED) !=
		   RUNNING_CACHE_STATE_NOTRUNNING;
}
