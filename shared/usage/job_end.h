/* SPDX-License-Identifier: GPL-2.0-or-later
 * A run's end as slurmctld (`scontrol -o show job ID`) and slurmdbd (`sacct
 * -D -X -P -n -j ID -o JobIDRaw,State,Start,End`) print it, both with
 * SLURM_TIME_FORMAT=%s, so that times are Unix seconds: the sources of an
 * orphaned record's end (spool_orphan.h). The commands run elsewhere (the
 * node library's job_end_ask.c); this reads their output, so the tests
 * feed it text.
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
 * What `scontrol -o show job` (out, exit status) says of r's run: LIVE
 * while it holds the node (any state but PENDING and the ended ones),
 * ENDED at EndTime with source "slurmctld (STATE)", GONE when slurmctld
 * does not have that run (no such job: it forgets ended jobs after
 * MinJobAge; or another run, told by the restart count and start time),
 * UNKNOWN when the command failed otherwise.
 */
void qd_job_end_scontrol(const char *out, int status,
			 const struct qd_usage_record *r, struct qd_run_end *e);

/*
 * What sacct (out, exit status) says of r's run, the row whose Start is
 * r's job_start, else the latest that began by r's start (plus the
 * slack): ENDED at its End with source "slurmdbd (STATE)" when it has
 * one; otherwise e is left as it was.
 */
void qd_job_end_sacct(const char *out, int status,
		      const struct qd_usage_record *r, struct qd_run_end *e);

#endif
