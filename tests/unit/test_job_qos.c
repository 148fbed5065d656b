/* SPDX-License-Identifier: GPL-2.0-or-later
 * The QoS a job ran under, from `scontrol -o show job` (node/job_qos.c):
 * the parse, and scontrol run for real as a stand-in script on PATH that
 * answers, fails or hangs.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include "job_qos.h"

static char qos[64], err[256];

Test(job_qos, parse)
{
	cr_expect_eq(qd_job_qos_parse("JobId=7 JobName=x QOS=research "
				      "JobState=RUNNING\n",
				      7, qos, sizeof(qos)),
		     0);
	cr_expect_str_eq(qos, "research");
	/* A het job: each component its own line. */
	cr_expect_eq(qd_job_qos_parse("JobId=7 HetJobId=7 QOS=a X=1\n"
				      "JobId=8 HetJobId=7 QOS=b X=1\n",
				      8, qos, sizeof(qos)),
		     0);
	cr_expect_str_eq(qos, "b");
	cr_expect_eq(qd_job_qos_parse("JobId=70 QOS=a\n", 7, qos, sizeof(qos)),
		     -1, "another job");
	cr_expect_eq(qd_job_qos_parse("JobId=7 Name=x\nJobId=8 QOS=a\n", 7, qos,
				      sizeof(qos)),
		     -1, "a QOS on another line");
	cr_expect_eq(qd_job_qos_parse("JobId=7 QOS= X=1", 7, qos, sizeof(qos)),
		     -1, "empty");
	cr_expect_eq(qd_job_qos_parse("JobId=7 QOS=abcdef", 7, qos, 4), -1,
		     "too long");
}

static char dir[] = "/tmp/qd-job-qos.XXXXXX";

/* A stand-in scontrol whose body is script. */
static void scontrol(const char *script)
{
	char path[64], newpath[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/scontrol", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", script);
	fclose(f);
	cr_assert_eq(chmod(path, 0755), 0);
	snprintf(newpath, sizeof(newpath), "%s:%s", dir, getenv("PATH"));
	setenv("PATH", newpath, 1);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(ask, .init = setup, .fini = teardown, .timeout = 30);

Test(ask, answered)
{
	scontrol(
	    "[ \"$*\" = \"-o show job 42\" ] || exit 2\n"
	    "echo 'JobId=42 JobName=wrap QOS=research JobState=COMPLETING'");
	cr_expect_eq(
	    qd_job_qos_ask(42, 5000, qos, sizeof(qos), err, sizeof(err)), 0,
	    "%s", err);
	cr_expect_str_eq(qos, "research");
}

Test(ask, failed)
{
	scontrol("echo 'slurm_load_jobs error: Invalid job id specified' >&2\n"
		 "exit 1");
	cr_expect_eq(
	    qd_job_qos_ask(42, 5000, qos, sizeof(qos), err, sizeof(err)), -1);
	cr_expect_str_eq(err, "scontrol show job 42 failed (status 1)");
}

Test(ask, hung_is_stopped_in_time)
{
	time_t t0 = time(NULL);

	scontrol("exec sleep 60");
	cr_expect_eq(
	    qd_job_qos_ask(42, 500, qos, sizeof(qos), err, sizeof(err)), -1);
	cr_expect_str_eq(err, "scontrol show job 42: no answer within 500 ms");
	cr_expect_leq(time(NULL) - t0, 5);
}

Test(ask, no_qos_in_the_answer)
{
	scontrol("echo 'JobId=42 JobName=wrap'");
	cr_expect_eq(
	    qd_job_qos_ask(42, 5000, qos, sizeof(qos), err, sizeof(err)), -1);
	cr_expect_str_eq(err, "scontrol show job 42: no QOS");
}
