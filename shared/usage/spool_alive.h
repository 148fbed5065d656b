/* SPDX-License-Identifier: GPL-2.0-or-later
 * slurmd's heartbeat in its spool: a file whose modification time the SPANK
 * plugin in slurmd sets every QD_ALIVE_INTERVAL_S. When slurmd dies or the
 * node goes down it stops, so at the next start the file's time bounds the
 * end of the jobs that ended meanwhile without their epilog, however long
 * the node then stayed down (spool_orphan.h).
 */
#ifndef QD_SPOOL_ALIVE_H
#define QD_SPOOL_ALIVE_H

#include <stddef.h>
#include <stdint.h>

#define QD_ALIVE_FILE	    ".slurmd-alive"
#define QD_ALIVE_INTERVAL_S 30

/* Sets the heartbeat's time to now, creating the spool directory (mode
 * 0700) and the file when missing. Returns 0, or -1 with err. */
int qd_spool_beat(const char *dir, char *err, size_t errlen);

/* The last heartbeat's time; 0 when there is none. */
int64_t qd_spool_last_beat(const char *dir);

#endif
