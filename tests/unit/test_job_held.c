/* SPDX-License-Identifier: GPL-2.0-or-later
 * What `qosdeny held` prints, as the prolog reads it (node/job_held.h): the
 * GPUs a job holds on the node, to a thousandth; and the command run for
 * real, as a stand-in script that answers, fails or is missing.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "temp_dir.h"
#include "job_held.h"

Test(job_held, parse)
{
	uint32_t m = 7;

	cr_expect_eq(qd_job_held_parse("0.5\n", &m), 0);
	cr_expect_eq(m, 500);
	cr_expect_eq(qd_job_held_parse("2\n", &m), 0);
	cr_expect_eq(m, 2000);
	cr_expect_eq(qd_job_held_parse("0.333\n", &m), 0);
	cr_expect_eq(m, 333);
	cr_expect_eq(qd_job_held_parse("0.5", &m), -1, "no newline");
	cr_expect_eq(qd_job_held_parse("0.50\n", &m), -1, "a trailing zero");
	cr_expect_eq(qd_job_held_parse("0.5\n1\n", &m), -1, "two lines");
	cr_expect_eq(qd_job_held_parse("\n", &m), -1);
	cr_expect_eq(qd_job_held_parse("-1\n", &m), -1);
	cr_expect_eq(qd_job_held_parse("0.0001\n", &m), -1);
	cr_expect_eq(qd_job_held_parse("4294968\n", &m), -1, "too many");
}

static char dir[64];

static char tool[128];

/* A `qosdeny` in a directory of its own that runs body: tool. */
static void stand_in(const char *body)
{
	char text[512];

	snprintf(text, sizeof(text), "#!/bin/sh\n%s\n", body);
	temp_file(dir, sizeof(dir), "held", "qosdeny", text, tool,
		  sizeof(tool));
	chmod(tool, 0755);
}

static void cleanup(void)
{
	temp_dir_remove(dir);
}

TestSuite(job_held, .fini = cleanup);

Test(job_held, the_tool_beside_the_plugin_where_none_is_installed)
{
	char path[256], beside[192], err[256];

	stand_in("exit 0");
	snprintf(beside, sizeof(beside), "%s/spank_qosdeny.so", dir);
	/* make check builds with PREFIX=/usr/local: one installed there
	 * comes first. */
	bool installed = !access("/usr/local/bin/qosdeny", X_OK);

	cr_assert_eq(
	    qd_job_held_tool(beside, path, sizeof(path), err, sizeof(err)), 0,
	    "%s", err);
	cr_expect_str_eq(path, installed ? "/usr/local/bin/qosdeny" : tool);
	if (installed)
		return;
	cr_expect_eq(qd_job_held_tool("/nonexistent/spank_qosdeny.so", path,
				      sizeof(path), err, sizeof(err)),
		     -1);
	cr_expect_str_eq(err, "qosdeny is not at /usr/local/bin/qosdeny nor "
			      "in /nonexistent");
}

/* Shares exist where GresTypes names them, on a node gres.conf gives some
 * or where it gives none to any node (Slurm spreads Gres= itself). */
Test(job_held, asked_where_a_job_may_hold_a_share)
{
	char p[192];
	FILE *f;

	stand_in("exit 0");
	snprintf(p, sizeof(p), "%s/gres.conf", dir);
	cr_expect_not(qd_job_held_needed(false, p, "n1"), "no GresTypes");
	cr_expect(qd_job_held_needed(true, p, "n1"), "no gres.conf");
	f = fopen(p, "w");
	cr_assert_not_null(f);
	fputs("NodeName=n2 Name=shard Count=4 File=/dev/nvidia0\n", f);
	fclose(f);
	cr_expect_not(qd_job_held_needed(true, p, "n1"), "another node's");
	cr_expect(qd_job_held_needed(true, p, "n2"));
}

Test(job_held, asks_qosdeny_held)
{
	char err[256];
	uint32_t m = 0;

	stand_in("[ \"$1 $2 $3\" = 'held 42 n1' ] && echo 0.25");
	cr_assert_eq(
	    qd_job_held_ask(tool, 42, "n1", 5000, &m, err, sizeof(err)), 0,
	    "%s", err);
	cr_expect_eq(m, 250);
}

Test(job_held, says_why_not)
{
	char err[256];
	uint32_t m = 0;

	stand_in("echo 'qosdeny held: job 42: not found' >&2; exit 1");
	cr_assert_eq(
	    qd_job_held_ask(tool, 42, "n1", 5000, &m, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "qosdeny held 42 n1 failed (status 1): run it "
			      "by hand for its error");
	stand_in("echo lots");
	cr_assert_eq(
	    qd_job_held_ask(tool, 42, "n1", 5000, &m, err, sizeof(err)), -1);
	cr_expect_str_eq(
	    err, "qosdeny held 42 n1: 'lots\n' is not a number of GPUs");
	cr_assert_eq(qd_job_held_ask("/nonexistent/qosdeny", 42, "n1", 5000, &m,
				     err, sizeof(err)),
		     -1);
	cr_expect_str_eq(err, "/nonexistent/qosdeny could not be run");
	cr_expect_eq(m, 0);
}
