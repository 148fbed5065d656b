/* SPDX-License-Identifier: GPL-2.0-or-later
 * Whether slurmctld is deciding without slurmdbd: it then works from the
 * associations, QoS and limits it cached, as Slurm itself does.
 */
#ifndef QD_DBD_STATE_H
#define QD_DBD_STATE_H

#include <stdbool.h>

/* True when slurmctld knows slurmdbd is unreachable: it started without it
 * (from its state files), or lost the connection and has not reconnected.
 * A read of two flags: no I/O, no lock, callable under any lock. */
bool qd_dbd_unreachable(void);

#endif
