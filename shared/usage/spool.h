/* SPDX-License-Identifier: GPL-2.0-or-later
 * The node's spool of GPU usage records (docs/gpu-and-usage.md, "Usage
 * reporting"): a record is kept here from the job's start on the node until
 * Redis has confirmed it, so that nothing is lost across Redis outages, slurmd
 * restarts and reboots.
 *
 * One file per record, named after its id ("CLUSTER:JOB:NODE:START.rec"),
 * written whole or not at all: a temp file (".tmp.*") is written, fsync'd
 * and renamed over the record's name, then the directory is fsync'd. An open
 * record is later replaced by its closed form under the same name. Files
 * are removed only after Redis has confirmed the record, so a record whose
 * confirmation was lost is sent again, and the Redis script counts it once.
 * For the same reason a removal is not fsync'd: one that a crash undoes
 * brings back a record that is sent again and found counted.
 *
 * The directory and its files must belong to the user running this code and
 * the directory must not be writable by group or others: anyone who can
 * write there could charge GPU time to others.
 */
#ifndef QD_SPOOL_H
#define QD_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "usage_record.h"

#define QD_SPOOL_ERR_MAX 512

/*
 * Redis keeps each record's id for QD_SPOOL_ID_DAYS after it counted it
 * (redis_usage.h QD_RECORD_ID_TTL_S), and no longer: a closed record that
 * ended more than QD_SPOOL_REPLAY_MAX_S ago (a day inside that, for clock
 * skew) may have been counted already and forgotten, so it is never sent
 * again; the replay sets it aside as NAME.expired (qd_spool_replay).
 */
#define QD_SPOOL_ID_DAYS      90
#define QD_SPOOL_REPLAY_MAX_S ((int64_t)(QD_SPOOL_ID_DAYS - 1) * 86400)

/*
 * Writes a record durably, creating the directory (mode 0700, not its
 * parents) when missing. Returns 0, or -1 with err naming the directory, the
 * step that failed and the cause, e.g. "spool /x: write
 * .tmp.qd:42:n1:1700000000.rec.123: No space left on device". Nothing is
 * left behind on failure.
 */
int qd_spool_write(const char *dir, const struct qd_usage_record *r, char *err,
		   size_t errlen);

/*
 * As qd_spool_write, but the directory is not fsync'd: after a crash the
 * record's name may hold its earlier text again, never an empty or partial
 * one. For a closed record about to be sent whose open form is durable
 * already (a crash brings that back, and the boot closes it); if it has to
 * wait in the spool, qd_spool_sync() makes it durable.
 */
int qd_spool_stage(const char *dir, const struct qd_usage_record *r, char *err,
		   size_t errlen);

/*
 * Writes r over the file of the same record already in the spool (its open
 * form), in place: no file is created, so a full file system still takes
 * it within the block the open record holds. The last resort of an epilog
 * that could neither stage nor send its closed record. Not atomic: a crash
 * during the write can leave a record that the next replay quarantines.
 * Returns 0, or -1 with err (no such file, the write's cause).
 */
int qd_spool_overwrite(const char *dir, const struct qd_usage_record *r,
		       char *err, size_t errlen);

/* fsyncs the spool directory. Returns 0, or -1 with err. */
int qd_spool_sync(const char *dir, char *err, size_t errlen);

/* Removes a record's file (gone already is success); not durable (above).
 * Returns 0, or -1 with err. */
int qd_spool_remove(const char *dir, const struct qd_usage_record *r, char *err,
		    size_t errlen);

/*
 * Reads one record back: the spool file name (not a path) from
 * qd_spool_list. Returns 0, or -1 with err; a file that exists but does not
 * decode says "spool DIR: NAME: usage record: ...".
 */
int qd_spool_read(const char *dir, const char *name, struct qd_usage_record *r,
		  char *err, size_t errlen);

struct qd_spool_list {
	char **names; /* "*.rec" file names, sorted */
	size_t n;
	size_t n_aside; /* "*.rec.expired" files seen beside them */
};

/* The record files in dir; a missing directory is an empty list. Returns 0,
 * or -1 with err (unreadable, or unsafe ownership or mode). */
int qd_spool_list(const char *dir, struct qd_spool_list *l, char *err,
		  size_t errlen);

/* The same for the records set aside as too old to send
 * ("NAME.rec.expired", QD_SPOOL_REPLAY_MAX_S). */
int qd_spool_list_aside(const char *dir, struct qd_spool_list *l, char *err,
			size_t errlen);

void qd_spool_list_free(struct qd_spool_list *l);

/* Whether a file name from qd_spool_list is one of job's records (same
 * cluster, job id and node), told without reading the file. */
bool qd_spool_name_is_jobs(const char *name, const struct qd_usage_record *job);

/* The start time in a file name from qd_spool_list, so that a large backlog
 * need not be read to find records by age; 0 when it holds none. */
int64_t qd_spool_name_start(const char *name);

/* What qd_spool_replay did. */
struct qd_spool_stats {
	size_t sent;	/* applied by Redis now, removed */
	size_t already; /* Redis had counted them already, removed */
	size_t open;	/* jobs still running here: kept */
	size_t left;	/* not sent (Redis failed), or unreadable: kept */
	size_t bad;	/* did not decode: renamed to NAME.bad, kept */
	size_t aside;	/* too old to send: NAME.expired, now or before */
};

/*
 * The sender: applies one closed record, returns 1 when it was counted now,
 * 0 when it was counted before, -1 with err when it could not be sent, or
 * QD_SPOOL_REFUSED with err when the store refused this record alone (a
 * damaged usage hash: redis_usage.h QD_REDIS_DAMAGED) and may take the
 * next one.
 */
#define QD_SPOOL_REFUSED -2
typedef int (*qd_spool_send_fn)(const struct qd_usage_record *r, void *arg,
				char *err, size_t errlen);

/* Called with each problem met on the way (one line, no newline). */
typedef void (*qd_spool_report_fn)(const char *msg, void *arg);

/*
 * Sends every closed record in dir, in name order, removing each that
 * Redis confirmed. Stops sending at the first failure, counting the rest as
 * left, so a Redis that is down costs one timeout and not one per record;
 * a record refused alone (QD_SPOOL_REFUSED) is kept and the others sent.
 * Records that do not decode are renamed to NAME.bad and reported; temp
 * files older than an hour (a writer died between write and rename) are
 * removed; a record another replay sent and removed after this one listed
 * it (two job starts or ends on the node at once) is passed over. A closed
 * record that ended more than QD_SPOOL_REPLAY_MAX_S ago is renamed to
 * NAME.expired and reported, not sent. Returns 0 when every closed record
 * was sent, -1 otherwise (the failures were reported).
 */
int qd_spool_replay(const char *dir, int64_t now, qd_spool_send_fn send,
		    void *send_arg, qd_spool_report_fn report, void *report_arg,
		    struct qd_spool_stats *st);

#endif
