/* SPDX-License-Identifier: GPL-2.0-or-later
 * The QoS a job ran under, from squeue's JobID and QOS fields
 * (node/job_qos.c): the parse, and squeue run for real as a stand-in
 * script on PATH that answers, fails or hangs.
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
	cr_expect_eq(qd_job_qos_parse("7|research|\n", 7, qos, sizeof(qos)), 0);
	cr_expect_str_eq(qos, "research");
	/* A het job: each component its own row. */
	cr_expect_eq(qd_job_qos_parse("7|a|\n8|b|\n", 8, qos, sizeof(qos)), 0);
	cr_expect_str_eq(qos, "b");
	cr_expect_eq(qd_job_qos_parse("70|a|\n", 7, qos, sizeof(qos)), -1,
		     "another job");
	cr_expect_eq(qd_job_qos_parse("17|a|\n", 7, qos, sizeof(qos)), -1,
		     "another job, ending in the same digits");
	cr_expect_eq(qd_job_qos_parse("7||\n", 7, qos, sizeof(qos)), -1,
		     "empty");
	cr_expect_eq(qd_job_qos_parse("7|abcdef|", 7, qos, 4), -1, "too long");
	cr_expect_eq(qd_job_qos_parse("7|a|b|\n", 7, qos, sizeof(qos)), -1,
		     "more fields than asked for");
	cr_expect_eq(qd_job_qos_parse("7|a\n", 7, qos, sizeof(qos)), -1,
		     "a row cut short");
}

/*
 * What `scontrol -o show job` printed of a job named (by its owner, with
 * `scontrol update name=`) to pose as its QoS: squeue's fields hold no
 * name, so no row of them can.
 */
Test(job_qos, a_job_name_is_no_qos)
{
	cr_expect_eq(qd_job_qos_parse("JobId=7 JobName=x QOS=cheap "
				      "UserId=alice(1001) QOS=research\n",
				      7, qos, sizeof(qos)),
		     -1);
}

static char dir[] = "/tmp/qd-job-qos.XXXXXX";

/* A stand-in squeue whose body is script. */
static void squeue(const char *script)
{
	char path[64], newpath[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/squeue", dir);
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
	squeue("[ \"$*\" = \"-h -t all -j 42 -O JobID:|,QOS:|\" ] || exit 2\n"
	       "echo '42|research|'");
	cr_expect_eq(
	    qd_job_qos_ask(42, 5000, qos, sizeof(qos), err, sizeof(err)), 0,
	    "%s", err);
	cr_expect_str_eq(qos, "research");
}

Test(ask, failed)
{
	squeue("echo 'slurm_load_jobs error: Invalid job id specified' >&2\n"
	       "exit 1");
	cr_expect_eq(
	    qd_job_qos_ask(42, 5000, qos, sizeof(qos), err, sizeof(err)), -1);
	cr_expect_str_eq(err, "squeue -j 42 failed (status 1)");
}

Test(ask, hung_is_stopped_in_time)
{
	time_t t0 = time(NULL);

	squeue("exec sleep 60");
	cr_expect_eq(
	    qd_job_qos_ask(42, 500, qos, sizeof(qos), err, sizeof(err)), -1);
	cr_expect_str_eq(err, "squeue -j 42: no answer within 500 ms");
	cr_expect_leq(time(NULL) - t0, 5);
}

Test(ask, no_qos_in_the_answer)
{
	squeue("echo '42|'");
	cr_expect_eq(
	    qd_job_qos_ask(42, 5000, qos, sizeof(qos), err, sizeof(err)), -1);
	cr_expect_str_eq(err, "squeue -j 42: no QOS");
}
