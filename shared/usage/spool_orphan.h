/*
 * Open records of jobs that a reboot of their node ended. slurmctld sends a
 * node that went down no job end, so the epilog of a job running there at
 * the reboot never runs and its record stays open. The job held its GPUs
 * here until the reboot at the latest: its record is closed at the node's
 * boot time, so that it is counted rather than kept open forever. The job
 * prolog and epilog do this before sending the spool, `qosdeny flush` too.
 */
#ifndef QD_SPOOL_ORPHAN_H
#define QD_SPOOL_ORPHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spool.h"
#include "usage_record.h"

/* One line, no newline: a record closed (failed false, the record's text
 * in it), or what went wrong (failed true). */
typedef void (*qd_orphan_note_fn)(bool failed, const char *msg, void *arg);

/*
 * Closes at boot_time, and writes back, every open record of l (dir's
 * listing, which the caller also walks for its own ends) that started
 * before it, except keep's (NULL: none), the job whose epilog runs now:
 * slurmctld ended that one after the boot, so it held its GPUs until now.
 * Records that cannot be read are left to qd_spool_replay, which reports
 * them. boot_time 0 (unknown) closes nothing. Returns how many were closed.
 */
size_t qd_spool_close_orphans(const char *dir, const struct qd_spool_list *l,
			      int64_t boot_time,
			      const struct qd_usage_record *keep,
			      qd_orphan_note_fn note, void *arg);

/* This boot's start: the kernel's btime in /proc/stat; 0 when unknown. */
int64_t qd_boot_time(void);

#endif
