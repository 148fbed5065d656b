/* SPDX-License-Identifier: GPL-2.0-or-later
 * An orphaned record's run end from scontrol's and sacct's own words
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
				    .gpus = 2,
				    .restart = restart,
				    .job_start = job_start};

	return r;
}

static struct qd_run_end ctld(const char *out, int status,
			      struct qd_usage_record r)
{
	struct qd_run_end e = {.state = QD_RUN_LIVE};

	qd_job_end_scontrol(out, status, &r, &e);
	return e;
}

#define LINE(state, restarts, start, end)                                      \
	"JobId=42 JobName=wrap UserId=alice(1001) JobState=" state             \
	" Reason=None Requeue=1 Restarts=" restarts " BatchFlag=1 "            \
	"StartTime=" start " EndTime=" end " NodeList=n1 QOS=normal\n"

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
	cr_expect_eq(ctld("slurm_load_jobs error: Invalid job id specified\n",
			  1, rec(0, 0))
			 .state,
		     QD_RUN_GONE);
}

Test(job_end, unreachable_slurmctld_is_unknown)
{
	cr_expect_eq(ctld("slurm_load_jobs error: Unable to contact slurm "
			  "controller (connect failure)\n",
			  1, rec(0, 0))
			 .state,
		     QD_RUN_UNKNOWN);
	cr_expect_eq(ctld("", 0, rec(0, 0)).state, QD_RUN_UNKNOWN,
		     "no line for the job");
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

/* A het job or array prints several lines: only job 42's counts. */
Test(job_end, only_the_jobs_own_line)
{
	struct qd_run_end e =
	    ctld("JobId=41 JobState=RUNNING Restarts=0 StartTime=995 "
		 "EndTime=9000\n" LINE("TIMEOUT", "0", "995", "1600"),
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
