/* SPDX-License-Identifier: GPL-2.0-or-later
 * An orphaned record's run end from squeue's and sacct's own fields
 * (SLURM_TIME_FORMAT=%s): which run is the record's, whether it still
 * holds the node, and when it ended.
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "job_end.h"

/* Job 42's record on n1, opened at 1000 by its prolog. */
static struct qd_usage_record rec(uint32_t restart, int64_t job_start)
{
	struct qd_usage_record r = {.cluster = "qd",
				    .job_id = 42,
				    .node = "n1",
				    .user = "alice",
				    .start = 1000,
				    .mgpus = 2000,
				    .restart = restart,
				    .job_start = job_start};

	return r;
}

static struct qd_run_end ctld(const char *out, int status,
			      struct qd_usage_record r)
{
	struct qd_run_end e = {.state = QD_RUN_LIVE};

	qd_job_end_squeue(out, status, &r, &e);
	return e;
}

/* squeue -O JobID:|,State:|,StartTime:|,EndTime:|,RestartCnt:| */
#define LINE(state, restarts, start, end)                                      \
	"42|" state "|" start "|" end "|" restarts "|\n"

Test(job_end, slurmctlds_end_of_a_node_fail)
{
	struct qd_run_end e =
	    ctld(LINE("NODE_FAIL", "0", "995", "1006"), 0, rec(0, 0));

	cr_expect_eq(e.state, QD_RUN_ENDED);
	cr_expect_eq(e.end, 1006);
	cr_expect_str_eq(e.source, "slurmctld (NODE_FAIL)");
}

Test(job_end, running_suspended_completing_are_live)
{
	cr_expect_eq(
	    ctld(LINE("RUNNING", "0", "995", "4600"), 0, rec(0, 0)).state,
	    QD_RUN_LIVE);
	cr_expect_eq(
	    ctld(LINE("SUSPENDED", "0", "995", "4600"), 0, rec(0, 0)).state,
	    QD_RUN_LIVE);
	cr_expect_eq(
	    ctld(LINE("COMPLETING", "0", "995", "1200"), 0, rec(0, 0)).state,
	    QD_RUN_LIVE, "its epilog is to come");
}

Test(job_end, forgotten_job_is_gone)
{
	cr_expect_eq(ctld("", 0, rec(0, 0)).state, QD_RUN_GONE,
		     "squeue answered without the job");
	cr_expect_eq(ctld("41|RUNNING|995|9000|0|\n", 0, rec(0, 0)).state,
		     QD_RUN_GONE, "another job's row only");
}

/* squeue fails alike for a job slurmctld forgot and a slurmctld it could
 * not reach (22.05 to 26.05): qd_job_listed tells them apart. */
Test(job_end, a_failed_squeue_is_unknown)
{
	cr_expect_eq(ctld("", 1, rec(0, 0)).state, QD_RUN_UNKNOWN);
	cr_expect_eq(
	    ctld(LINE("COMPLETED", "0", "995", "1006"), 1, rec(0, 0)).state,
	    QD_RUN_UNKNOWN, "whatever it printed");
}

/* squeue -h -t all -u USER -O JobID:| */
Test(job_end, listed)
{
	char out[64] = "41|\n420|\n42|\n";

	cr_expect_eq(qd_job_listed(out, sizeof(out), 42), 1);
	cr_expect_eq(qd_job_listed(out, sizeof(out), 4), 0);
	cr_expect_eq(qd_job_listed("", sizeof(out), 42), 0, "no jobs");
	cr_expect_eq(qd_job_listed("41|x|\n", sizeof(out), 41), 0,
		     "not a row of one field");
	/* A listing that filled the buffer may go on past it. */
	cr_expect_eq(qd_job_listed("41|\n43|", 8, 42), -1);
	cr_expect_eq(qd_job_listed("41|\n42|", 8, 42), 1);
}

/*
 * What `scontrol -o show job` printed of a running job its owner renamed
 * (`scontrol update name=`) to pose as ended with no time: its fields
 * were taken from the name. squeue's rows hold no name: such a line is
 * no row, and the job's own row says it runs.
 */
Test(job_end, a_job_name_is_no_field)
{
	cr_expect_eq(
	    ctld("JobId=42 JobName=x JobState=COMPLETED StartTime=995 "
		 "EndTime=995 Restarts=0 UserId=alice(1001) JobState=RUNNING\n",
		 0, rec(0, 0))
		.state,
	    QD_RUN_GONE, "no row: not ended at 995");
	cr_expect_eq(
	    ctld("42|x JobState=COMPLETED|995|995|0|\n", 0, rec(0, 0)).state,
	    QD_RUN_LIVE, "an unknown state is not an ended one");
}

/* The job was requeued since: slurmctld's run is another one. */
Test(job_end, another_run_is_gone_for_slurmctld)
{
	cr_expect_eq(
	    ctld(LINE("RUNNING", "1", "2000", "9000"), 0, rec(0, 0)).state,
	    QD_RUN_GONE, "by the restart count");
	cr_expect_eq(
	    ctld(LINE("PENDING", "1", "Unknown", "Unknown"), 0, rec(0, 0))
		.state,
	    QD_RUN_GONE, "pending again");
	cr_expect_eq(
	    ctld(LINE("COMPLETED", "0", "990", "1100"), 0, rec(0, 995)).state,
	    QD_RUN_GONE, "by the start time (24.11 on)");
	cr_expect_eq(ctld(LINE("COMPLETED", "0", "5000", "6000"), 0,
			  rec(QD_RESTART_UNKNOWN, 0))
			 .state,
		     QD_RUN_GONE, "a run that started after the record");
	cr_expect_eq(ctld(LINE("COMPLETED", "0", "1050", "1100"), 0,
			  rec(QD_RESTART_UNKNOWN, 0))
			 .state,
		     QD_RUN_ENDED, "within the slack of the prolog's clock");
}

/* A het job or array prints several rows: only job 42's counts. */
Test(job_end, only_the_jobs_own_row)
{
	struct qd_run_end e =
	    ctld("41|RUNNING|995|9000|0|\n" LINE("TIMEOUT", "0", "995", "1600"),
		 0, rec(0, 0));

	cr_expect_eq(e.state, QD_RUN_ENDED);
	cr_expect_eq(e.end, 1600);
}

static struct qd_run_end dbd(const char *out, struct qd_usage_record r)
{
	struct qd_run_end e = {.state = QD_RUN_GONE};

	qd_job_end_sacct(out, 0, &r, &e);
	return e;
}

/* sacct -D lists every run: the record's is the latest that began by
 * its start, or the one with its job_start. */
Test(job_end, slurmdbds_run_of_a_requeued_job)
{
	static const char runs[] = "42|NODE_FAIL|995|1006\n"
				   "42|REQUEUED|1500|1700\n"
				   "42|RUNNING|2000|Unknown\n";
	struct qd_run_end e = dbd(runs, rec(0, 0));

	cr_expect_eq(e.state, QD_RUN_ENDED);
	cr_expect_eq(e.end, 1006);
	cr_expect_str_eq(e.source, "slurmdbd (NODE_FAIL)");
	e = dbd(runs, rec(1, 1500));
	cr_expect_eq(e.end, 1700);
	cr_expect_str_eq(e.source, "slurmdbd (REQUEUED)");
	cr_expect_eq(dbd(runs, rec(2, 2000)).state, QD_RUN_GONE,
		     "still running by slurmdbd: no end");
}

Test(job_end, slurmdbd_cancelled_by_and_other_jobs)
{
	struct qd_run_end e = dbd("420|COMPLETED|990|999\n"
				  "42|CANCELLED by 0|995|1010\n",
				  rec(0, 0));

	cr_expect_eq(e.end, 1010);
	cr_expect_str_eq(e.source, "slurmdbd (CANCELLED)");
	cr_expect_eq(dbd("", rec(0, 0)).state, QD_RUN_GONE);
	e = (struct qd_run_end){.state = QD_RUN_GONE};
	qd_job_end_sacct("42|COMPLETED|995|1010\n", 1,
			 &(struct qd_usage_record){.job_id = 42, .start = 1000},
			 &e);
	cr_expect_eq(e.state, QD_RUN_GONE, "sacct failed: nothing said");
}
