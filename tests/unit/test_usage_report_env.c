/* SPDX-License-Identifier: GPL-2.0-or-later
 * What the job prolog and epilog take from their environment and from the
 * site's configuration (node/usage_job.c, node/usage_site.c): the job's
 * record, its GPU count, the spool directory and Redis address.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "usage_report.h"

/* ---- a prolog environment ---- */

static const char *env_vars[16];

static const char *lookup(const char *name, void *arg)
{
	size_t n = strlen(name);

	(void)arg;
	for (size_t i = 0; i < 16 && env_vars[i]; i++)
		if (!strncmp(env_vars[i], name, n) && env_vars[i][n] == '=')
			return env_vars[i] + n + 1;
	return NULL;
}

/* As slurmd builds it for job 1234 on n2 (22.05: no QoS). */
static void prolog_env(void)
{
	static const char *const vars[] = {
	    "SLURMD_NODENAME=n2",	 "SLURM_CLUSTER_NAME=qdtest",
	    "SLURM_JOB_ID=1234",	 "SLURM_JOB_USER=alice",
	    "SLURM_JOB_UID=1001",	 "SLURM_JOB_ACCOUNT=research",
	    "SLURM_JOB_PARTITION=gpu",	 "SLURM_JOB_GPUS=0,1",
	    "SLURM_JOB_RESTART_COUNT=0", NULL};

	memset(env_vars, 0, sizeof(env_vars));
	memcpy(env_vars, vars, sizeof(vars));
}

/* Replaces or (value NULL) removes a variable. */
static void set_var(const char *name, const char *text)
{
	size_t i, n = strlen(name);

	for (i = 0; env_vars[i]; i++)
		if (!strncmp(env_vars[i], name, n) && env_vars[i][n] == '=')
			break;
	if (!text) {
		for (; env_vars[i]; i++)
			env_vars[i] = env_vars[i + 1];
		return;
	}
	cr_assert_lt(i, 15);
	env_vars[i] = text;
}

static char err[QD_REPORT_ERR_MAX];

Test(job_record, from_the_prolog_environment)
{
	struct qd_usage_record r;

	prolog_env();
	cr_assert_eq(qd_job_record(lookup, NULL, "", &r, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_str_eq(r.cluster, "qdtest");
	cr_expect_eq(r.job_id, 1234);
	cr_expect_str_eq(r.node, "n2");
	cr_expect_str_eq(r.user, "alice");
	cr_expect_str_eq(r.account, "research");
	cr_expect_str_eq(r.qos, "", "no SPANK_QOSDENY_QOS: no QoS");
	cr_expect_str_eq(r.partition, "gpu");
	cr_expect_eq(r.mgpus, 2000);
	cr_expect_eq(r.start, 0);
	cr_expect_eq(r.end, 0);
	cr_expect_eq(r.restart, 0);
	cr_expect_eq(r.job_start, 0, "22.05 gives no SLURM_JOB_START_TIME");
}

Test(job_record, restart_count)
{
	struct qd_usage_record r;

	prolog_env();
	set_var("SLURM_JOB_RESTART_COUNT", "SLURM_JOB_RESTART_COUNT=2");
	cr_assert_eq(qd_job_record(lookup, NULL, NULL, &r, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_eq(r.restart, 2);
	set_var("SLURM_JOB_START_TIME", "SLURM_JOB_START_TIME=1700000000");
	cr_assert_eq(qd_job_record(lookup, NULL, NULL, &r, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_eq(r.job_start, 1700000000, "24.11 on");
	set_var("SLURM_JOB_START_TIME", NULL);
	set_var("SLURM_JOB_RESTART_COUNT", NULL);
	cr_assert_eq(qd_job_record(lookup, NULL, NULL, &r, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_eq(r.restart, QD_RESTART_UNKNOWN, "unset: unknown");
}

/* The QoS job_submit/qosdeny put in the job's SPANK environment. */
Test(job_record, cluster_option_and_qos_from_job_submit)
{
	struct qd_usage_record r;

	prolog_env();
	set_var("SPANK_QOSDENY_QOS", "SPANK_QOSDENY_QOS=interactive");
	cr_assert_eq(
	    qd_job_record(lookup, NULL, "site-a", &r, err, sizeof(err)), 0,
	    "%s", err);
	cr_expect_str_eq(r.cluster, "site-a");
	cr_expect_str_eq(r.qos, "interactive");
}

/* Where a user sets it (a prolog srun starts), a value no record can hold
 * costs the label, never the record. */
Test(job_record, an_unusable_qos_is_no_qos)
{
	static const char *const bad[] = {"SPANK_QOSDENY_QOS=a b",
					  "SPANK_QOSDENY_QOS=a:b",
					  "SPANK_QOSDENY_QOS="};
	struct qd_usage_record r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		prolog_env();
		set_var("SPANK_QOSDENY_QOS", bad[i]);
		cr_assert_eq(
		    qd_job_record(lookup, NULL, NULL, &r, err, sizeof(err)), 0,
		    "%s: %s", bad[i], err);
		cr_expect_str_eq(r.qos, "", "%s", bad[i]);
		cr_expect_eq(r.mgpus, 2000);
	}
}

/* A job that may run under several QoS (24.11+) is labelled with the
 * list; without slurmctld's word (SLURM_JOB_QOS) the first stands. */
Test(job_record, a_list_label_gives_its_first_qos)
{
	struct qd_usage_record r;

	prolog_env();
	set_var("SPANK_QOSDENY_QOS", "SPANK_QOSDENY_QOS=interactive,research");
	cr_assert_eq(qd_job_record(lookup, NULL, NULL, &r, err, sizeof(err)),
		     0);
	cr_expect_str_eq(r.qos, "interactive");
	set_var("SLURM_JOB_QOS", "SLURM_JOB_QOS=research");
	cr_assert_eq(qd_job_record(lookup, NULL, NULL, &r, err, sizeof(err)),
		     0);
	cr_expect_str_eq(r.qos, "research", "slurmd's QoS comes first");
	set_var("SLURM_JOB_QOS", NULL);
	set_var("SPANK_QOSDENY_QOS", "SPANK_QOSDENY_QOS=a b,c");
	cr_assert_eq(qd_job_record(lookup, NULL, NULL, &r, err, sizeof(err)),
		     0);
	cr_expect_str_eq(r.qos, "", "an unusable first name is no QoS");
}

Test(job_record, no_gpus_is_zero)
{
	struct qd_usage_record r;

	prolog_env();
	set_var("SLURM_JOB_GPUS", NULL);
	cr_assert_eq(qd_job_record(lookup, NULL, NULL, &r, err, sizeof(err)),
		     0);
	cr_expect_eq(r.mgpus, 0);
	set_var("SLURM_JOB_PARTITION", NULL);
	cr_assert_eq(qd_job_record(lookup, NULL, NULL, &r, err, sizeof(err)),
		     0);
	cr_expect_str_eq(r.partition, "");
}

static void expect_error(const char *var, const char *text, const char *want)
{
	struct qd_usage_record r;

	prolog_env();
	set_var(var, text);
	cr_expect_eq(qd_job_record(lookup, NULL, NULL, &r, err, sizeof(err)),
		     -1, "%s", var);
	cr_expect_str_eq(err, want);
}

Test(job_record, errors_name_the_variable)
{
	expect_error("SLURM_JOB_USER", NULL, "SLURM_JOB_USER is not set");
	expect_error("SLURM_JOB_USER", "SLURM_JOB_USER=",
		     "SLURM_JOB_USER is "
		     "not set");
	expect_error("SLURMD_NODENAME", NULL, "SLURMD_NODENAME is not set");
	expect_error("SLURM_CLUSTER_NAME", NULL,
		     "SLURM_CLUSTER_NAME is not set");
	expect_error("SLURM_JOB_ID", "SLURM_JOB_ID=12a",
		     "SLURM_JOB_ID '12a' is not a job id");
	expect_error("SLURM_JOB_ID", "SLURM_JOB_ID=0",
		     "SLURM_JOB_ID '0' is not a job id");
	expect_error("SLURM_JOB_ID", NULL, "SLURM_JOB_ID '' is not a job id");
	expect_error("SLURM_JOB_GPUS", "SLURM_JOB_GPUS=0,x",
		     "SLURM_JOB_GPUS '0,x' is not a list of GPU indices");
	expect_error("SLURM_JOB_RESTART_COUNT", "SLURM_JOB_RESTART_COUNT=-1",
		     "SLURM_JOB_RESTART_COUNT '-1' is not a count");
	expect_error("SLURM_JOB_START_TIME", "SLURM_JOB_START_TIME=soon",
		     "SLURM_JOB_START_TIME 'soon' is not a time");
}

/* Without accounting slurmd sets no SLURM_JOB_ACCOUNT (nor an empty one):
 * the record is the user's, with the account empty. */
Test(job_record, no_account)
{
	static const char *const texts[] = {NULL, "SLURM_JOB_ACCOUNT="};
	struct qd_usage_record r;

	for (size_t i = 0; i < 2; i++) {
		prolog_env();
		set_var("SLURM_JOB_ACCOUNT", texts[i]);
		cr_assert_eq(
		    qd_job_record(lookup, NULL, NULL, &r, err, sizeof(err)), 0,
		    "%s", err);
		cr_expect_str_eq(r.account, "");
		cr_expect_str_eq(r.user, "alice");
		cr_expect_eq(r.job_id, 1234);
		cr_expect_eq(r.mgpus, 2000);
	}
}

/* A name too long even escaped is kept, hashed (names.h), not refused. */
Test(job_record, long_names_hashed)
{
	struct qd_usage_record r;

	prolog_env();
	set_var("SLURM_JOB_ACCOUNT",
		"SLURM_JOB_ACCOUNT=::::::::::::::::::::::");
	cr_assert_eq(qd_job_record(lookup, NULL, NULL, &r, err, sizeof(err)), 0,
		     "%s", err);
	/* printf ':%.0s' $(seq 22) | sha1sum */
	cr_expect_str_eq(r.account,
			 "~cd4f81b52fc788ff8b2e226926eab5f7e87e99ec");
}

/* A caller tells a GPU job from the others even when something is wrong. */
Test(job_record, gpus_known_even_on_error)
{
	struct qd_usage_record r;

	prolog_env();
	set_var("SLURM_JOB_USER", NULL);
	cr_expect_eq(qd_job_record(lookup, NULL, NULL, &r, err, sizeof(err)),
		     -1);
	cr_expect_eq(r.mgpus, 2000);
}

static uint32_t count(const char *list)
{
	uint32_t n = 12345;

	cr_assert_eq(qd_gpu_count(list, &n), 0, "'%s'", list ? list : "NULL");
	return n;
}

Test(gpu_count, lists_and_ranges)
{
	cr_expect_eq(count(NULL), 0);
	cr_expect_eq(count(""), 0);
	cr_expect_eq(count("0"), 1);
	cr_expect_eq(count("3"), 1);
	cr_expect_eq(count("0,1,3"), 3);
	cr_expect_eq(count("0-3"), 4);
	cr_expect_eq(count("0-1,4,6-7"), 5);
}

Test(gpu_count, malformed)
{
	static const char *const bad[] = {
	    "a",    "1,", ",1", "1,,2", "3-1",	       "-1", "1-",
	    "1--2", " 1", "1 ", "+1",	"99999999999", "0x1"};
	uint32_t n;

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		cr_expect_eq(qd_gpu_count(bad[i], &n), -1, "'%s'", bad[i]);
		cr_expect_eq(n, 0);
	}
}

/* ---- the spool path and Redis address ---- */

static const char *expand(const char *path)
{
	static char out[64];

	if (qd_expand_node_path(path, "n1", "host", out, sizeof(out)))
		return "(too long)";
	return out;
}

Test(node_path, expands_like_slurmd)
{
	cr_expect_str_eq(expand("/var/spool/slurmd"), "/var/spool/slurmd");
	cr_expect_str_eq(expand("/var/spool/%n/qosdeny"),
			 "/var/spool/n1/qosdeny");
	cr_expect_str_eq(expand("/s/%h-%n"), "/s/host-n1");
	cr_expect_str_eq(expand("/s/100%%/%x%"), "/s/100%/%x%");
	cr_expect_str_eq(
	    expand("/a/path/of/sixty-three/bytes/once/the/node/"
		   "name/is/in/it/.../%n"),
	    "/a/path/of/sixty-three/bytes/once/the/node/name/is/in/"
	    "it/.../n1");
	cr_expect_str_eq(expand("/a/path/of/sixty-four/bytes/once/the/node/"
				"name/is/in/it/...../%n"),
			 "(too long)");
}

static char dir[] = "/tmp/qd-report-site.XXXXXX";

static void site_setup(void)
{
	char path[sizeof(dir) + 32];
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "ClusterName=qdtest\nSlurmdSpoolDir=%s/spool/%%n\n", dir);
	fclose(f);
	setenv("SLURM_CONF", path, 1);
}

static void site_teardown(void)
{
	char cmd[sizeof(dir) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

static struct qd_reporter rp;

static void init_with(int argc, const char **argv)
{
	struct qd_spank_opts o;

	qd_spank_opts_init(&o);
	cr_assert_eq(qd_spank_opts_parse(&o, argc, (char *const *)argv, err,
					 sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(
	    qd_reporter_init(&rp, &o, "n2", NULL, NULL, err, sizeof(err)), 0,
	    "%s", err);
}

TestSuite(reporter, .init = site_setup, .fini = site_teardown);

Test(reporter, defaults)
{
	char want[sizeof(dir) + 64];

	init_with(0, NULL);
	snprintf(want, sizeof(want), "%s/spool/n2/qosdeny", dir);
	cr_expect_str_eq(rp.spool, want,
			 "qosdeny under this slurmd's own "
			 "SlurmdSpoolDir");
	snprintf(want, sizeof(want), "%s/qosdeny.conf", dir);
	cr_expect_str_eq(rp.site.qosdeny_conf, want);
	cr_expect_str_eq(rp.opts.redis, "127.0.0.1:6379");
	cr_expect_str_eq(rp.opts.redis_password_file, "");
	cr_expect_eq(rp.opts.timeout_ms, 500);
	cr_expect_gt(rp.boot_time, 0);
	cr_expect_leq(rp.boot_time, time(NULL));
}

Test(reporter, options)
{
	const char *argv[] = {"redis=unix:/run/redis.sock",
			      "redis_password_file=/etc/slurm/pw",
			      "spool=/var/qd/%n", "timeout_ms=250"};

	init_with(4, argv);
	cr_expect_str_eq(rp.spool, "/var/qd/n2");
	cr_expect_str_eq(rp.opts.redis, "unix:/run/redis.sock");
	cr_expect_str_eq(rp.opts.redis_password_file, "/etc/slurm/pw");
	cr_expect_eq(rp.opts.timeout_ms, 250);
}

Test(reporter, ipv6_address_keeps_its_brackets)
{
	const char *argv[] = {"redis=[::1]:6380"};

	init_with(1, argv);
	cr_expect_str_eq(rp.opts.redis, "[::1]:6380");
}

Test(reporter, unreadable_slurm_conf)
{
	struct qd_spank_opts o;

	qd_spank_opts_init(&o);
	setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
	cr_expect_eq(
	    qd_reporter_init(&rp, &o, "n2", NULL, NULL, err, sizeof(err)), -1);
	cr_expect_str_eq(err,
			 "/nonexistent/slurm.conf: No such file or directory");
}

/* An account slurmctld keeps as typed (no association enforcement) is
 * charged as it is, escaped where a key could not hold it: not dropped, and
 * not another account's. */
Test(job_record, an_odd_account_is_kept_escaped)
{
	struct qd_usage_record r;

	prolog_env();
	set_var("SLURM_JOB_ACCOUNT", "SLURM_JOB_ACCOUNT=x:y other");
	cr_assert_eq(qd_job_record(lookup, NULL, NULL, &r, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_str_eq(r.account, "x%3Ay%20other");
	set_var("SLURM_JOB_USER", "SLURM_JOB_USER=DOMAIN\\alice");
	cr_assert_eq(qd_job_record(lookup, NULL, NULL, &r, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_str_eq(r.user, "DOMAIN%5Calice");
}
