/* SPDX-License-Identifier: GPL-2.0-or-later
 * Open records whose job ended on this node without its epilog running
 * here: the node crashed or rebooted, or slurmd died with the job's
 * processes, and slurmctld ended the job (NODE_FAIL, or cancelled while the
 * node was unreachable); slurmctld sends a down node no job end. Such a
 * record is closed at the job's end as well as it can be known, never at
 * the time the node came back (docs/gpu-and-usage.md,
 * "When a node goes down with a job"):
 *
 *   1. slurmctld's end time of that run, while slurmctld still has the job;
 *   2. else slurmdbd's, where accounting is on;
 *   3. else a bound that does not grow with the downtime: the last
 *      heartbeat of the slurmd that ran the job (spool_alive.h) plus its
 *      interval, or this node's boot when the job started before it.
 *
 * slurmd's start (the SPANK plugin, before slurmd takes jobs) and `qosdeny
 * flush` do this; a job's prolog or epilog never asks about another job.
 * The end is clamped to [the record's start, now] against clock skew. Each
 * record closed is noted once, with the source of its end and the seconds
 * it charged.
 */
#ifndef QD_SPOOL_ORPHAN_H
#define QD_SPOOL_ORPHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spool.h"
#include "usage_record.h"

#define QD_RUN_SOURCE_MAX 96

/* What slurmctld and slurmdbd say of the run an open record belongs to. */
enum qd_run_state {
	QD_RUN_LIVE,	/* may still hold the node (running, suspended,
			   completing): the record stays open */
	QD_RUN_ENDED,	/* ended at end, as source knows it */
	QD_RUN_GONE,	/* over, and nobody has its end: slurmctld no
			   longer has the job and accounting has no end */
	QD_RUN_UNKNOWN, /* nobody could say (slurmctld unreachable) */
};

struct qd_run_end {
	enum qd_run_state state;
	int64_t end;			/* QD_RUN_ENDED */
	char source[QD_RUN_SOURCE_MAX]; /* QD_RUN_ENDED: "slurmctld (NODE_FAIL)"
					 */
};

/* Asks about the run of the open record r. */
typedef void (*qd_run_lookup_fn)(const struct qd_usage_record *r,
				 struct qd_run_end *e, void *arg);

/* The fallback bounds (3. above). */
struct qd_orphan_bounds {
	int64_t now;
	int64_t boot_time;  /* this boot's start; 0: unknown */
	int64_t last_alive; /* the last heartbeat of a slurmd that no longer
			       beats; 0: none known, or slurmd still runs */
};

/* One line, no newline: a record closed (failed false, the record's text
 * in it), or what went wrong (failed true). */
typedef void (*qd_orphan_note_fn)(bool failed, const char *msg, void *arg);

/*
 * Looks up, and closes and writes back when its job's run is over, every
 * open record of l (dir's listing). A run that nobody could ask about is
 * closed only when it started before this boot, which certainly ended it.
 * A run over with no known end and no bound stays open. Records that
 * cannot be read are left to qd_spool_replay, which reports them. Returns
 * how many were closed.
 */
size_t qd_spool_close_orphans(const char *dir, const struct qd_spool_list *l,
			      const struct qd_orphan_bounds *b,
			      qd_run_lookup_fn lookup, void *lookup_arg,
			      qd_orphan_note_fn note, void *arg);

/* The end the fallback bounds give an open record r whose run is over
 * (e->state QD_RUN_GONE) or unknown, into e (QD_RUN_ENDED, with its
 * source); e is left as it was when no bound applies. */
void qd_orphan_bound(const struct qd_usage_record *r,
		     const struct qd_orphan_bounds *b, struct qd_run_end *e);

/* This boot's start: the kernel's btime in /proc/stat; 0 when unknown. */
int64_t qd_boot_time(void);

#endif
