/* SPDX-License-Identifier: GPL-2.0-or-later
 * build/spank_qosdeny.so's job prolog and epilog, loaded with dlopen() as
 * `slurmstepd spank prolog|epilog` loads it, with the prolog environment
 * slurmd builds (in this process's environment, where slurmstepd has it), a
 * slurm.conf of the test's own and a real redis-server. What matters here
 * is the SPANK side: options, environment, and that reporting never fails
 * the job, whatever goes wrong.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <slurm/spank.h>

#include "test_redis_server.h"

#ifndef QD_SPANK_SO
#define QD_SPANK_SO "build/spank_qosdeny.so"
#endif

/* ---- what slurmstepd would answer ---- */

static char logbuf[8192];

static void logv(const char *tag, const char *fmt, va_list ap)
{
	size_t n = strlen(logbuf);

	snprintf(logbuf + n, sizeof(logbuf) - n, "%s", tag);
	n = strlen(logbuf);
	vsnprintf(logbuf + n, sizeof(logbuf) - n, fmt, ap);
	n = strlen(logbuf);
	snprintf(logbuf + n, sizeof(logbuf) - n, "\n");
}

#define LOGGER(fn, tag)                                                        \
	void fn(const char *fmt, ...)                                          \
	{                                                                      \
		va_list ap;                                                    \
		va_start(ap, fmt);                                             \
		logv(tag, fmt, ap);                                            \
		va_end(ap);                                                    \
	}
LOGGER(slurm_error, "E: ")
LOGGER(slurm_info, "I: ")
LOGGER(slurm_verbose, "V: ")
LOGGER(slurm_debug, "D: ")

spank_context_t spank_context(void)
{
	return S_CTX_JOB_SCRIPT;
}

/* The job script context has no step: the plugin must not need these. */
spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
	(void)sp;
	(void)item;
	cr_assert_fail("spank_get_item called in the job script context");
	return ESPANK_BAD_ARG;
}

spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len)
{
	(void)sp;
	(void)var;
	(void)buf;
	(void)len;
	return ESPANK_NOT_REMOTE; /* as Slurm answers outside slurmstepd */
}

const char *spank_strerror(spank_err_t err)
{
	(void)err;
	return "stub error";
}

/* ---- fixture ---- */

static struct server srv;
static void *so;
static spank_f *prolog_fn, *epilog_fn;
static char dir[64], spool[128], opt[96];

static void setup(void)
{
	char path[128];
	FILE *f;

	memset(&srv, 0, sizeof(srv));
	logbuf[0] = '\0';
	snprintf(dir, sizeof(dir), "/tmp/qd-report-plugin.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "ClusterName=qdtest\nSlurmdSpoolDir=%s/%%n\n", dir);
	fclose(f);
	snprintf(spool, sizeof(spool), "%s/n1/qosdeny", dir);
	snprintf(path, sizeof(path), "%s/n1", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	/* As prep_script_slurmd.c sets them for a job's prolog. */
	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	setenv("SLURM_CONF", path, 1);
	setenv("SLURMD_NODENAME", "n1", 1);
	setenv("SLURM_CLUSTER_NAME", "qdtest", 1);
	setenv("SLURM_JOB_ID", "77", 1);
	setenv("SLURM_JOB_UID", "1001", 1);
	setenv("SLURM_JOB_USER", "alice", 1);
	setenv("SLURM_JOB_ACCOUNT", "research", 1);
	setenv("SLURM_JOB_PARTITION", "gpu", 1);
	setenv("SLURM_JOB_GPUS", "1,3", 1);
	so = dlopen(QD_SPANK_SO, RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(so, "dlopen: %s", dlerror());
	prolog_fn = (spank_f *)dlsym(so, "slurm_spank_job_prolog");
	epilog_fn = (spank_f *)dlsym(so, "slurm_spank_job_epilog");
	cr_assert(prolog_fn && epilog_fn);
}

static void teardown(void)
{
	char cmd[128];

	if (so)
		dlclose(so);
	server_cleanup(&srv);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(report_plugin, .init = setup, .fini = teardown, .timeout = 60);

static int hook(spank_f *fn, const char *a, const char *b)
{
	char *av[] = {(char *)a, (char *)b};

	return fn(NULL, b ? 2 : a ? 1 : 0, av);
}

static void redis_up(void)
{
	start_fresh(&srv, NULL);
	snprintf(opt, sizeof(opt), "redis=%s", srv.addr);
}

/* The one record file in the spool, or "" when none. */
static const char *spooled(void)
{
	static char text[1024];
	char cmd[256];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "cat %s/*.rec 2>/dev/null", spool);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	if (!fgets(text, sizeof(text), p))
		text[0] = '\0';
	pclose(p);
	return text;
}

static const char *in_redis(void)
{
	static char text[1024];
	redisContext *c = admin(&srv);
	redisReply *keys = redisCommand(c, "KEYS qosdeny:{qdtest}:rec:77:n1:*");
	redisReply *r = NULL;

	text[0] = '\0';
	if (keys && keys->elements == 1)
		r = redisCommand(c, "GET %s", keys->element[0]->str);
	if (r && r->type == REDIS_REPLY_STRING)
		snprintf(text, sizeof(text), "%s", r->str);
	freeReplyObject(r);
	freeReplyObject(keys);
	redisFree(c);
	return text;
}

Test(report_plugin, exports_the_job_hooks)
{
	cr_assert_null(dlsym(so, "qd_report_epilog"));
	cr_assert_null(dlsym(so, "qd_redis_apply"));
}

Test(report_plugin, prolog_then_epilog_reports_the_job)
{
	redis_up();
	cr_expect_eq(hook(prolog_fn, opt, "timeout_ms=1000"), 0);
	cr_expect(strstr(spooled(),
			 "qosdeny-usage/3 cluster=qdtest job=77 "
			 "node=n1 user=alice account=research qos= "
			 "partition=gpu restart= job_start=0 start="),
		  "%s", spooled());
	cr_expect(strstr(spooled(), " end=0 gpus=2 gpu_seconds=0"), "%s",
		  spooled());
	cr_expect_eq(hook(epilog_fn, opt, "timeout_ms=1000"), 0);
	cr_expect_str_eq(spooled(), "");
	cr_expect(strstr(in_redis(), " gpus=2 gpu_seconds="), "%s: %s",
		  in_redis(), logbuf);
	cr_expect_null(strstr(logbuf, "E: "), "%s", logbuf);
}

Test(report_plugin, cluster_and_spool_options)
{
	char want[160];

	redis_up();
	snprintf(want, sizeof(want), "spool=%s/mine", dir);
	cr_expect_eq(hook(prolog_fn, "cluster=other", want), 0);
	snprintf(want, sizeof(want), "cat %s/mine/other:77:n1:*.rec >/dev/null",
		 dir);
	cr_expect_eq(system(want), 0, "%s", logbuf);
}

/* Redis down: the job's end is not failed, the record waits. */
Test(report_plugin, redis_down_never_fails_the_job)
{
	srv.port = free_port();
	snprintf(opt, sizeof(opt), "redis=127.0.0.1:%d", srv.port);
	cr_expect_eq(hook(prolog_fn, opt, NULL), 0);
	cr_expect_eq(hook(epilog_fn, opt, NULL), 0);
	cr_expect(strstr(spooled(), " gpus=2 "), "%s", spooled());
	/* The prolog and the epilog run in the same second, or across a
	 * second's edge: 0 or 2 GPU-seconds (CI saw both). */
	cr_expect(strstr(logbuf, "E: qosdeny: job 77: usage on n1 (0 "
				 "GPU-seconds) not sent to 127.0.0.1:") ||
		      strstr(logbuf, "E: qosdeny: job 77: usage on n1 (2 "
				     "GPU-seconds) not sent to 127.0.0.1:"),
		  "%s", logbuf);
}

Test(report_plugin, bad_options_never_fail_the_job)
{
	cr_expect_eq(hook(prolog_fn, "bogus=1", NULL), 0);
	cr_expect_eq(hook(epilog_fn, "timeout_ms=x", NULL), 0);
	cr_expect(strstr(logbuf, "E: qosdeny: unknown option 'bogus=1' in "
				 "plugstack.conf"),
		  "%s", logbuf);
	cr_expect(strstr(logbuf, "; GPU usage not reported"), "%s", logbuf);
	cr_expect_str_eq(spooled(), "");
}

/* The usage hash's v of a key, or -1 when there is none. */
static double stored(const char *key)
{
	redisContext *c = admin(&srv);
	redisReply *r = redisCommand(c, "HGET %s v", key);
	double v = r && r->type == REDIS_REPLY_STRING ? atof(r->str) : -1;

	freeReplyObject(r);
	redisFree(c);
	return v;
}

/* Without accounting slurmd sets no SLURM_JOB_ACCOUNT: the job's GPU time
 * is the user's, with an empty account, counted once, and nothing is
 * logged as an error (slurmd's start says it once). */
Test(report_plugin, a_gpu_job_without_account_is_reported_under_its_user)
{
	redis_up();
	unsetenv("SLURM_JOB_ACCOUNT");
	cr_expect_eq(hook(prolog_fn, opt, "timeout_ms=1000"), 0);
	cr_expect(strstr(spooled(), " user=alice account= qos= partition=gpu "
				    "restart= "),
		  "%s", spooled());
	cr_expect_eq(hook(epilog_fn, opt, "timeout_ms=1000"), 0);
	cr_expect_str_eq(spooled(), "");
	cr_expect(strstr(in_redis(), " user=alice account= qos= "), "%s: %s",
		  in_redis(), logbuf);
	cr_expect_geq(stored("qosdeny:{qdtest}:user:alice"), 0, "%s", logbuf);
	cr_expect_geq(stored("qosdeny:{qdtest}:assoc::alice"), 0);
	cr_expect_geq(stored("qosdeny:{qdtest}:account:"), 0);
	cr_expect_null(strstr(logbuf, "E: "), "%s", logbuf);
}

Test(report_plugin, other_jobs_without_account_are_quiet)
{
	unsetenv("SLURM_JOB_ACCOUNT");
	unsetenv("SLURM_JOB_GPUS");
	cr_expect_eq(hook(epilog_fn, NULL, NULL), 0);
	cr_expect_null(strstr(logbuf, "E: "), "%s", logbuf);
}

Test(report_plugin, unreadable_slurm_conf_is_logged)
{
	setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
	cr_expect_eq(hook(prolog_fn, NULL, NULL), 0);
	cr_expect(strstr(logbuf, "E: qosdeny: job 77 prolog: GPU usage not "
				 "reported: /nonexistent/slurm.conf: No such "
				 "file or directory"),
		  "%s", logbuf);
}

/*
 * The epilog of a job that lists several QoS asks slurmctld which it ran
 * under, through squeue: a fake one on PATH answers
 * QD_FAKE_QOS (fails when unset) and counts its calls.
 */
static int squeue_calls(void)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/squeue.calls", dir);
	return stat(path, &st) ? 0 : (int)st.st_size;
}

static void fake_squeue(const char *qos)
{
	char path[256], newpath[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/bin", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/bin/squeue", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f,
		"#!/bin/sh\nprintf x >>%s/squeue.calls\n"
		"[ \"$*\" = \"-h -t all -j 77 -O JobID:|,QOS:|\" ] || exit 2\n"
		"[ -n \"%s\" ] || exit 1\n"
		"echo \"77|%s|\"\n",
		dir, qos ? qos : "", qos ? qos : "");
	fclose(f);
	cr_assert_eq(chmod(path, 0755), 0);
	snprintf(newpath, sizeof(newpath), "%s/bin:%s", dir, getenv("PATH"));
	setenv("PATH", newpath, 1);
}

Test(report_plugin, several_qos_take_slurmctld_s_word)
{
	redis_up();
	fake_squeue("b");
	setenv("SPANK_QOSDENY_QOS", "a,b", 1);
	cr_expect_eq(hook(prolog_fn, opt, NULL), 0);
	cr_expect_eq(squeue_calls(), 0, "the prolog does not ask");
	cr_expect(strstr(spooled(), " qos=a "), "%s", spooled());
	cr_expect_eq(hook(epilog_fn, opt, NULL), 0);
	cr_expect_eq(squeue_calls(), 1);
	cr_expect(strstr(in_redis(), " qos=b "), "%s: %s", in_redis(), logbuf);
}

Test(report_plugin, several_qos_without_an_answer_keep_the_first)
{
	redis_up();
	fake_squeue(NULL);
	setenv("SPANK_QOSDENY_QOS", "a,b", 1);
	cr_expect_eq(hook(prolog_fn, opt, NULL), 0);
	cr_expect_eq(hook(epilog_fn, opt, NULL), 0);
	cr_expect_eq(squeue_calls(), 1);
	cr_expect(strstr(in_redis(), " qos=a "), "%s: %s", in_redis(), logbuf);
	cr_expect(strstr(logbuf, "E: qosdeny: job 77 epilog: the QoS it ran "
				 "under is unknown, its record says a: "
				 "squeue -j 77 failed"),
		  "%s", logbuf);
}

Test(report_plugin, one_qos_is_not_asked_for)
{
	redis_up();
	fake_squeue("b");
	setenv("SPANK_QOSDENY_QOS", "a", 1);
	cr_expect_eq(hook(prolog_fn, opt, NULL), 0);
	cr_expect_eq(hook(epilog_fn, opt, NULL), 0);
	cr_expect_eq(squeue_calls(), 0);
	cr_expect(strstr(in_redis(), " qos=a "), "%s: %s", in_redis(), logbuf);
}
