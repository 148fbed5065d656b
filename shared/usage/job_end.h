/* SPDX-License-Identifier: GPL-2.0-or-later
 * A run's end as slurmctld (`squeue -h -t all -j ID -O` QD_JOB_END_FIELDS)
 * and slurmdbd (`sacct -D -X -P -n -j ID -o JobIDRaw,State,Start,End`)
 * print it, both with SLURM_TIME_FORMAT=%s, so that times are Unix
 * seconds: the sources of an orphaned record's end (spool_orphan.h). Both
 * ask for Slurm's own fields only, never one that holds a string a user
 * sets (a job's name, comment, account: `scontrol show job` prints them
 * on the same line, where a name can read " JobState=COMPLETED").
 * The commands run elsewhere (the node library's job_end_ask.c); this
 * reads their output, so the tests feed it text.
 */
#ifndef QD_JOB_END_H
#define QD_JOB_END_H

#include "spool_orphan.h"
#include "usage_record.h"

/*
 * Seconds a record's start (the node's prolog time) may precede the job's
 * start by slurmctld's clock, when the record has no job_start (22.05):
 * the two hosts' clocks and the prolog's own delay.
 */
#define QD_JOB_START_SLACK_S 60

/*
 * job_id's row among squeue's output out: a line of exactly n fields, each
 * ended by '|' (squeue -O FIELD:|,...), the first its job id; split into
 * f[0..n-1], pointing into buf. False when out has no such line (one of
 * buflen bytes or more is none). Every field asked for is Slurm's own,
 * none a string a user sets.
 */
bool qd_squeue_row(const char *out, uint32_t job_id, char *buf, size_t buflen,
		   char **f, int n);

/* squeue's fields for qd_job_end_squeue, each ended by '|'. */
#define QD_JOB_END_FIELDS "JobID:|,State:|,StartTime:|,EndTime:|,RestartCnt:|"

/*
 * What squeue (out, exit status) says of r's run: LIVE while it holds the
 * node (any state but PENDING and the ended ones), ENDED at its end time
 * with source "slurmctld (STATE)", GONE when squeue answered without that
 * run (slurmctld forgets ended jobs after MinJobAge; or another run, told
 * by the restart count and start time), UNKNOWN when squeue failed:
 * slurmctld unreachable, or no such job (22.05 to 26.05 fail alike), which
 * only qd_job_listed tells apart.
 */
void qd_job_end_squeue(const char *out, int status,
		       const struct qd_usage_record *r, struct qd_run_end *e);

/*
 * Whether job_id is among the job ids of out, what `squeue -h -t all -u
 * USER -O JobID:|` printed into a buffer of len bytes: 1 listed, 0 not,
 * -1 when out filled the buffer (the listing may go on past it).
 */
int qd_job_listed(const char *out, size_t len, uint32_t job_id);

/*
 * What sacct (out, exit status) says of r's run, the row whose Start is
 * r's job_start, else the latest that began by r's start (plus the
 * slack): ENDED at its End with source "slurmdbd (STATE)" when it has
 * one; otherwise e is left as it was.
 */
void qd_job_end_sacct(const char *out, int status,
		      const struct qd_usage_record *r, struct qd_run_end *e);

#endif
