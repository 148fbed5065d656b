/* SPDX-License-Identifier: GPL-2.0-or-later
 * The job prolog's and epilog's reporting (node/usage_report.c) against a
 * real redis-server (test_redis_server.h) and a real spool directory: what
 * ends up in Redis and in the spool when Redis is up, down, slow, or a
 * reply was lost, and when a reboot cut a job off.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <hiredis/hiredis.h>

#include "now_ms.h"
#include "spool.h"
#include "test_redis_server.h"
#include "usage_report.h"

#define DAY 86400

static struct server srv;
static struct qd_reporter rp;
static char base[64];
static char logbuf[16384];

static void capture(enum qd_log_level level, const char *msg, void *arg)
{
	static const char *const tag[] = {"E: ", "I: ", "V: "};
	size_t n = strlen(logbuf);

	(void)arg;
	snprintf(logbuf + n, sizeof(logbuf) - n, "%s%s\n", tag[level], msg);
}

static void setup(void)
{
	memset(&srv, 0, sizeof(srv));
	memset(&rp, 0, sizeof(rp));
	logbuf[0] = '\0';
	snprintf(base, sizeof(base), "/tmp/qd-report-test.XXXXXX");
	cr_assert_not_null(mkdtemp(base));
	snprintf(rp.spool, sizeof(rp.spool), "%s/spool", base);
	snprintf(rp.site.qosdeny_conf, sizeof(rp.site.qosdeny_conf),
		 "%s/qosdeny.conf", base);
	qd_spank_opts_init(&rp.opts);
	rp.opts.timeout_ms = 2000;
	rp.log = capture;
}

static void teardown(void)
{
	char cmd[128];

	server_cleanup(&srv);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(usage_report, .init = setup, .fini = teardown, .timeout = 60);

/* Redis up, the reporter pointed at it. */
static void redis_up(void)
{
	start_fresh(&srv, NULL);
	snprintf(rp.opts.redis, sizeof(rp.opts.redis), "%s", srv.addr);
}

/* Redis down: a free port nothing listens on (kept for a later start). */
static void redis_down(void)
{
	srv.port = free_port();
	snprintf(rp.opts.redis, sizeof(rp.opts.redis), "127.0.0.1:%d",
		 srv.port);
}

/* What qd_job_record makes of a prolog environment. */
static struct qd_usage_record job(uint32_t id, const char *user, uint32_t gpus)
{
	struct qd_usage_record r = {
	    .cluster = "qd",
	    .job_id = id,
	    .node = "n1",
	    .account = "research",
	    .partition = "gpu",
	    .mgpus = gpus * 1000,
	};

	snprintf(r.user, sizeof(r.user), "%s", user);
	return r;
}

#define cmd(...) admin_cmd(&srv, __VA_ARGS__)

/* A usage hash's stored v, -1 when missing. */
static double usage(const char *kind, const char *name)
{
	redisReply *r = cmd("HGET qosdeny:{qd}:%s:%s v", kind, name);
	double v = r->type == REDIS_REPLY_STRING ? strtod(r->str, NULL) : -1;

	freeReplyObject(r);
	return v;
}

/* The record Redis keeps under its id, or "" when none. */
static const char *applied(uint32_t id, int64_t start)
{
	static char text[QD_RECORD_MAX];
	redisReply *r =
	    cmd("GET qosdeny:{qd}:rec:%u:n1:%lld", id, (long long)start);

	snprintf(text, sizeof(text), "%s",
		 r->type == REDIS_REPLY_STRING ? r->str : "");
	freeReplyObject(r);
	return text;
}

#define NEAR(x, want) (fabs((x) - (want)) <= fabs((double)(want)) * 0.001)

/* The spool's files as "NAME=TEXT;" in name order ("" when none). */
static const char *spool(void)
{
	static char out[8192];
	struct qd_spool_list l;
	char err[QD_SPOOL_ERR_MAX];

	out[0] = '\0';
	cr_assert_eq(qd_spool_list(rp.spool, &l, err, sizeof(err)), 0, "%s",
		     err);
	for (size_t i = 0; i < l.n; i++) {
		char path[2 * PATH_MAX], text[QD_RECORD_MAX] = "";
		size_t n = strlen(out);
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", rp.spool, l.names[i]);
		f = fopen(path, "r");
		cr_assert_not_null(f);
		if (!fgets(text, sizeof(text), f))
			text[0] = '\0';
		fclose(f);
		text[strcspn(text, "\n")] = '\0';
		snprintf(out + n, sizeof(out) - n, "%s=%s;", l.names[i], text);
	}
	qd_spool_list_free(&l);
	return out;
}

static void put_in_spool(const struct qd_usage_record *r)
{
	char err[QD_SPOOL_ERR_MAX];

	cr_assert_eq(qd_spool_write(rp.spool, r, err, sizeof(err)), 0, "%s",
		     err);
}

/* The sweep's slurmctld: every run ended at ended_at, or is gone with no
 * end when it is 0. */
static int64_t ended_at;

static void lookup(const struct qd_usage_record *r, struct qd_run_end *e,
		   void *arg)
{
	(void)r;
	(void)arg;
	e->state = ended_at ? QD_RUN_ENDED : QD_RUN_GONE;
	e->end = ended_at;
	snprintf(e->source, sizeof(e->source), "slurmctld (NODE_FAIL)");
}

Test(usage_report, prolog_spools_an_open_record)
{
	struct qd_usage_record j = job(42, "alice", 2);

	redis_down(); /* nothing to send: Redis is not even asked */
	cr_expect_eq(qd_report_prolog(&rp, &j, 1700000000), QD_REPORT_DONE);
	cr_expect_str_eq(spool(),
			 "qd:42:n1:1700000000.rec=qosdeny-usage/3 cluster=qd "
			 "job=42 node=n1 user=alice account=research qos= "
			 "partition=gpu restart=0 job_start=0 "
			 "start=1700000000 end=0 gpus=2 gpu_seconds=0;");
	cr_expect_str_eq(logbuf, "");
}

Test(usage_report, jobs_without_gpus_leave_nothing)
{
	struct qd_usage_record j = job(42, "alice", 0);

	redis_down();
	cr_expect_eq(qd_report_prolog(&rp, &j, 1700000000), QD_REPORT_NONE);
	cr_expect_eq(qd_report_epilog(&rp, &j, 1700000100), QD_REPORT_NONE);
	cr_expect_str_eq(spool(), "");
	cr_expect_str_eq(logbuf, "", "no noise for CPU jobs: %s", logbuf);
}

/* The whole path: GPUs on this node times the seconds between prolog and
 * epilog, in Redis once, and nothing left in the spool. */
Test(usage_report, epilog_sends_gpus_times_seconds)
{
	int64_t now = time(NULL);
	struct qd_usage_record j = job(42, "alice", 2);

	redis_up();
	cr_assert_eq(qd_report_prolog(&rp, &j, now - 30), QD_REPORT_DONE);
	cr_expect_eq(qd_report_epilog(&rp, &j, now), QD_REPORT_DONE, "%s",
		     logbuf);
	cr_expect(strstr(applied(42, now - 30), " end=") &&
		      strstr(applied(42, now - 30), " gpus=2 gpu_seconds=60"),
		  "%s", applied(42, now - 30));
	cr_expect(NEAR(usage("user", "alice"), 60), "%f",
		  usage("user", "alice"));
	cr_expect(NEAR(usage("account", "research"), 60));
	cr_expect(NEAR(usage("assoc", "research:alice"), 60));
	cr_expect_str_eq(spool(), "");
	cr_expect(strstr(logbuf, "job 42: usage on n1 (60 GPU-seconds) sent "
				 "to 127.0.0.1:"),
		  "%s", logbuf);
	cr_expect_null(strstr(logbuf, "E: "), "%s", logbuf);
}

/* The record's QoS is the epilog's, from slurmctld's job record: a prolog
 * that a step launch started has the client's, which its user sets. */
Test(usage_report, the_epilogs_qos_labels_the_record)
{
	int64_t now = time(NULL);
	struct qd_usage_record at_start = job(42, "alice", 1),
			       at_end = at_start;

	strcpy(at_start.qos, "forged");
	strcpy(at_end.qos, "interactive");
	redis_up();
	cr_assert_eq(qd_report_prolog(&rp, &at_start, now - 10),
		     QD_REPORT_DONE);
	cr_expect_eq(qd_report_epilog(&rp, &at_end, now), QD_REPORT_DONE, "%s",
		     logbuf);
	cr_expect(strstr(applied(42, now - 10), " qos=interactive "), "%s",
		  applied(42, now - 10));
	cr_expect(NEAR(usage("qos", "interactive"), 10), "%f",
		  usage("qos", "interactive"));
	cr_expect_eq(usage("qos", "forged"), -1);
}

/* Redis down at the job's end: the closed record stays in the spool, the
 * log says so, and the next job start on the node sends it. */
Test(usage_report, redis_down_keeps_the_record_for_the_next_hook)
{
	int64_t now = time(NULL);
	struct qd_usage_record a = job(42, "alice", 2), b = job(43, "bob", 1);
	char want[3 * PATH_MAX];

	redis_down();
	cr_assert_eq(qd_report_prolog(&rp, &a, now - 10), QD_REPORT_DONE);
	cr_expect_eq(qd_report_epilog(&rp, &a, now), QD_REPORT_SPOOLED);
	cr_expect(strstr(spool(), " end="), "%s", spool());
	cr_expect(strstr(spool(), " gpu_seconds=20;"), "%s", spool());
	snprintf(want, sizeof(want),
		 "E: qosdeny: job 42: usage on n1 (20 GPU-seconds) not sent "
		 "to %s; kept in spool %s for the next job start or end here "
		 "or `qosdeny flush`",
		 rp.opts.redis, rp.spool);
	cr_expect(strstr(logbuf, want), "%s", logbuf);
	cr_expect(strstr(logbuf, "Connection refused"), "%s", logbuf);

	cr_assert_eq(start(&srv, NULL), 0);
	logbuf[0] = '\0';
	cr_expect_eq(qd_report_prolog(&rp, &b, now + 1), QD_REPORT_DONE);
	cr_expect(strstr(applied(42, now - 10), " gpu_seconds=20"));
	cr_expect(NEAR(usage("user", "alice"), 20));
	cr_expect_eq(usage("user", "bob"), -1, "bob's job is still running");
	cr_expect(strstr(spool(), "qd:43:n1:") && !strstr(spool(), "qd:42:"),
		  "%s", spool());
}

/* A record Redis applied whose reply was lost stays in the spool and is
 * sent again: the script counts it once. */
Test(usage_report, a_record_sent_twice_counts_once)
{
	int64_t now = time(NULL);
	struct qd_usage_record a = job(42, "alice", 2), c = job(44, "carol", 1);

	redis_up();
	cr_assert_eq(qd_report_prolog(&rp, &a, now - 10), QD_REPORT_DONE);
	cr_assert_eq(qd_report_epilog(&rp, &a, now), QD_REPORT_DONE);
	a.start = now - 10;
	cr_assert_eq(qd_usage_record_close(&a, now), 0);
	put_in_spool(&a);
	logbuf[0] = '\0';
	cr_expect_eq(qd_report_epilog(&rp, &c, now), QD_REPORT_FAILED,
		     "carol's job had no prolog");
	cr_expect(strstr(logbuf, "0 usage record(s) sent to") &&
		      strstr(logbuf, "1 counted before"),
		  "%s", logbuf);
	cr_expect(NEAR(usage("user", "alice"), 20));
	cr_expect_str_eq(spool(), "");
}

Test(usage_report, epilog_without_a_prolog_says_why)
{
	struct qd_usage_record j = job(42, "alice", 2);

	redis_down();
	cr_expect_eq(qd_report_epilog(&rp, &j, 1700000000), QD_REPORT_FAILED);
	cr_expect(strstr(logbuf,
			 "E: qosdeny: job 42: no usage record of its 2 "
			 "GPU(s) on n1 was opened, so none is counted here: "
			 "its prolog did not run on this node (with "
			 "PrologFlags=Alloc it runs at allocation on every "
			 "node)"),
		  "%s", logbuf);
}

/* slurmd ran the prolog again for the same allocation: the start is the
 * first one's. */
Test(usage_report, prolog_again_keeps_the_first_start)
{
	int64_t now = time(NULL);
	struct qd_usage_record j = job(42, "alice", 1);

	redis_up();
	rp.boot_time = now - DAY;
	cr_assert_eq(qd_report_prolog(&rp, &j, now - 50), QD_REPORT_DONE);
	cr_expect_eq(qd_report_prolog(&rp, &j, now - 20), QD_REPORT_DONE);
	cr_expect(strstr(logbuf, "the prolog ran again on n1"), "%s", logbuf);
	cr_expect_eq(qd_report_epilog(&rp, &j, now), QD_REPORT_DONE);
	cr_expect(strstr(applied(42, now - 50), " gpu_seconds=50"));
	cr_expect(NEAR(usage("user", "alice"), 50));
}

/* slurmd died before launching job 42, slurmctld requeued it, and it runs
 * here again: the new run counts from its own start and closes only its
 * own record; the earlier run's, whose epilog never ran, is left for the
 * sweep, which closes it at that run's end as slurmctld gives it. */
Test(usage_report, a_requeued_run_closes_only_its_own_record)
{
	int64_t now = time(NULL);
	struct qd_usage_record j = job(42, "alice", 1), again = j;

	redis_up();
	again.restart = 1;
	cr_assert_eq(qd_report_prolog(&rp, &j, now - 500), QD_REPORT_DONE);
	cr_expect_eq(qd_report_prolog(&rp, &again, now - 30), QD_REPORT_DONE);
	cr_expect(strstr(logbuf, "I: qosdeny: job 42: 1 usage record(s) of "
				 "its earlier run(s) on n1 still open"),
		  "%s", logbuf);
	cr_expect_eq(qd_report_epilog(&rp, &again, now), QD_REPORT_DONE);
	cr_expect(strstr(applied(42, now - 30), " restart=1 ") &&
		      strstr(applied(42, now - 30), " gpu_seconds=30"),
		  "%s", applied(42, now - 30));
	cr_expect_eq(applied(42, now - 500)[0], '\0', "not closed by run 1");
	ended_at = now - 400;
	qd_report_sweep(&rp, 0, lookup, NULL);
	cr_expect(strstr(applied(42, now - 500), " restart=0 ") &&
		      strstr(applied(42, now - 500), " gpu_seconds=100"),
		  "%s", applied(42, now - 500));
	cr_expect(NEAR(usage("user", "alice"), 130));
	cr_expect_str_eq(spool(), "");
}

/* The node rebooted under job 7 and slurmctld no longer has it, nor
 * accounting: the sweep at slurmd's start closes its record at the boot,
 * the bound left without a heartbeat, and sends it. */
Test(usage_report, sweep_closes_a_gone_run_at_the_boot)
{
	int64_t now = time(NULL);
	struct qd_usage_record orphan = job(7, "alice", 2);

	redis_up();
	orphan.start = now - 1000;
	put_in_spool(&orphan);
	rp.boot_time = now - 100;
	ended_at = 0;
	qd_report_sweep(&rp, 0, lookup, NULL);
	cr_expect(strstr(applied(7, now - 1000), " gpu_seconds=1800"), "%s",
		  applied(7, now - 1000));
	cr_expect(strstr(logbuf, "I: qosdeny: job 7 ended on n1 without its "
				 "epilog: its usage record is closed at "),
		  "%s", logbuf);
	cr_expect_str_eq(spool(), "");
}

/* A job whose epilog does run after a reboot (slurmctld ended it when the
 * node came back) held its GPUs until then, as slurmctld accounts it. */
Test(usage_report, epilog_after_a_reboot_counts_until_its_end)
{
	int64_t now = time(NULL);
	struct qd_usage_record j = job(9, "alice", 1);

	redis_up();
	cr_assert_eq(qd_report_prolog(&rp, &j, now - 1000), QD_REPORT_DONE);
	rp.boot_time = now - 100;
	cr_expect_eq(qd_report_epilog(&rp, &j, now), QD_REPORT_DONE);
	cr_expect(strstr(applied(9, now - 1000), " gpu_seconds=1000"), "%s",
		  applied(9, now - 1000));
}

static void write_conf(const char *text)
{
	FILE *f = fopen(rp.site.qosdeny_conf, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

/* Usage that ended a day ago, sent now, is decayed by qosdeny.conf's
 * UsageHalfLife (here one day: half of it), and by the default week when
 * there is no qosdeny.conf. */
Test(usage_report, decayed_with_usage_half_life_from_qosdeny_conf)
{
	int64_t now = time(NULL);
	struct qd_usage_record a = job(1, "alice", 2), b = job(2, "bob", 2);

	redis_up();
	write_conf("UsageHalfLife=1-0\n");
	cr_assert_eq(qd_report_prolog(&rp, &a, now - DAY - 100),
		     QD_REPORT_DONE);
	cr_expect_eq(qd_report_epilog(&rp, &a, now - DAY), QD_REPORT_DONE);
	cr_expect(NEAR(usage("user", "alice"), 100), "%f",
		  usage("user", "alice"));
	unlink(rp.site.qosdeny_conf);
	cr_assert_eq(qd_report_prolog(&rp, &b, now - DAY - 100),
		     QD_REPORT_DONE);
	cr_expect_eq(qd_report_epilog(&rp, &b, now - DAY), QD_REPORT_DONE);
	cr_expect(NEAR(usage("user", "bob"), 200 * exp2(-1.0 / 7)), "%f",
		  usage("user", "bob"));
}

/* An invalid qosdeny.conf gives no half-life: the record waits in the
 * spool rather than being decayed wrongly for good. */
Test(usage_report, invalid_qosdeny_conf_keeps_the_record)
{
	int64_t now = time(NULL);
	struct qd_usage_record a = job(1, "alice", 1);

	redis_up();
	write_conf("UsageHalfLife=soon\n");
	cr_assert_eq(qd_report_prolog(&rp, &a, now - 10), QD_REPORT_DONE);
	cr_expect_eq(qd_report_epilog(&rp, &a, now), QD_REPORT_SPOOLED);
	cr_expect(strstr(logbuf, rp.site.qosdeny_conf), "%s", logbuf);
	cr_expect_eq(usage("user", "alice"), -1);
	write_conf("UsageHalfLife=7-0\n");
	cr_expect_eq(qd_report_prolog(&rp, &(struct qd_usage_record){0}, now),
		     QD_REPORT_NONE);
	cr_expect(NEAR(usage("user", "alice"), 10));
}

/* A Redis that does not answer costs the job's end one timeout_ms, not one
 * per spooled record; all of them go once it answers again. */
Test(usage_report, a_hung_redis_costs_one_timeout)
{
	int64_t now = time(NULL), t0, took;
	struct qd_usage_record a = job(1, "alice", 1), b = job(2, "bob", 1),
			       c = job(3, "carol", 1);

	redis_up();
	rp.opts.timeout_ms = 300;
	a.start = b.start = now - 10;
	cr_assert_eq(qd_usage_record_close(&a, now), 0);
	cr_assert_eq(qd_usage_record_close(&b, now), 0);
	put_in_spool(&a);
	put_in_spool(&b);
	cr_assert_eq(qd_report_prolog(&rp, &(struct qd_usage_record){0}, now),
		     QD_REPORT_NONE);
	cr_assert_str_eq(spool(), "");
	cr_assert_eq(qd_report_prolog(&rp, &c, now - 10), QD_REPORT_DONE);
	put_in_spool(&a); /* sent, but their replies were lost */
	put_in_spool(&b);
	cr_assert_eq(kill(srv.pid, SIGSTOP), 0);
	t0 = qd_now_ms();
	cr_expect_eq(qd_report_epilog(&rp, &c, now), QD_REPORT_SPOOLED);
	took = qd_now_ms() - t0;
	kill(srv.pid, SIGCONT);
	/* One timeout for the three (each its own would be 900 ms), with
	 * room for a busy host. */
	cr_expect(took < 300 + 500, "took %lld ms", (long long)took);
	cr_expect(strstr(logbuf, "timed out after 300 ms"), "%s", logbuf);
	cr_expect(strstr(logbuf, "3 usage record(s) not sent"), "%s", logbuf);
	logbuf[0] = '\0';
	cr_expect_eq(qd_report_prolog(&rp, &(struct qd_usage_record){0}, now),
		     QD_REPORT_NONE);
	/* c's EVALSHA, sent before the timeout, may have run once Redis
	 * woke: then all 3 were counted before, otherwise c is sent now. */
	cr_expect(strstr(logbuf, "3 counted before") ||
		      (strstr(logbuf, "1 usage record(s) sent to") &&
		       strstr(logbuf, "2 counted before")),
		  "%s", logbuf);
	cr_expect(NEAR(usage("user", "carol"), 10));
	cr_expect(NEAR(usage("account", "research"), 30));
	cr_expect_str_eq(spool(), "");
}

/* The spool on a filesystem of its own, full once the prolog's record is
 * in it (a mount namespace of the test's own: nothing outlives it). */
static void full_spool_after_prolog(const struct qd_usage_record *j,
				    int64_t start)
{
	char fill[PATH_MAX + 8];
	int fd;

	cr_assert_eq(mkdir(rp.spool, 0700), 0);
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", rp.spool, "tmpfs", 0, "size=64k,mode=0700"))
		cr_skip_test("cannot mount a tmpfs here: %s", strerror(errno));
	cr_assert_eq(qd_report_prolog(&rp, j, start), QD_REPORT_DONE);
	snprintf(fill, sizeof(fill), "%s/fill", rp.spool);
	fd = open(fill, O_WRONLY | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	while (write(fd, fill, sizeof(fill)) > 0)
		;
	close(fd);
}

/* A full spool at the job's end: the record goes straight to Redis. */
Test(usage_report, a_full_spool_sends_directly)
{
	int64_t now = time(NULL);
	struct qd_usage_record j = job(42, "alice", 1);

	redis_up();
	full_spool_after_prolog(&j, now - 10);
	cr_expect_eq(qd_report_epilog(&rp, &j, now), QD_REPORT_DONE);
	cr_expect(strstr(logbuf, "E: qosdeny: job 42: usage record could not "
				 "be spooled (spool ") &&
		      strstr(logbuf, "No space left on device), sent directly"),
		  "%s", logbuf);
	cr_expect(NEAR(usage("user", "alice"), 10));
	cr_expect_str_eq(spool(), "", "the open record is gone");
	umount2(rp.spool, MNT_DETACH);
}

/* Full spool and Redis down: the closed record takes the open one's place
 * in its own block, and the next job end here sends it. */
Test(usage_report, full_spool_and_redis_down_keeps_the_closed_record)
{
	int64_t now = time(NULL);
	struct qd_usage_record j = job(42, "alice", 1);

	redis_down();
	full_spool_after_prolog(&j, now - 10);
	cr_expect_eq(qd_report_epilog(&rp, &j, now), QD_REPORT_SPOOLED);
	cr_expect(strstr(logbuf, "E: qosdeny: job 42: usage on n1 (10 "
				 "GPU-seconds) not sent to ") &&
		      strstr(logbuf, "No space left on device): written over "
				     "its open record, kept in spool "),
		  "%s", logbuf);
	cr_expect(strstr(spool(), " end=") &&
		      strstr(spool(), " gpu_seconds=10"),
		  "closed in place: %s", spool());
	redis_up();
	logbuf[0] = '\0';
	cr_expect_eq(qd_report_prolog(&rp, &(struct qd_usage_record){0}, now),
		     QD_REPORT_NONE);
	cr_expect(NEAR(usage("user", "alice"), 10), "%s", logbuf);
	cr_expect_str_eq(spool(), "");
	umount2(rp.spool, MNT_DETACH);
}

/* Nothing can be written and Redis is down: the open record stays, for
 * the sweep to close at the job's end as slurmctld knows it, and the log
 * says so with the closed record itself. Here writes fail from their first
 * bytes (a file size limit). */
Test(usage_report, unwritable_spool_and_redis_down_keeps_the_open_record)
{
	int64_t now = time(NULL);
	struct qd_usage_record j = job(42, "alice", 1);
	struct rlimit was;

	redis_down();
	cr_assert_eq(qd_report_prolog(&rp, &j, now - 10), QD_REPORT_DONE);
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &was), 0);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &(struct rlimit){8, was.rlim_max}),
		     0);
	cr_expect_eq(qd_report_epilog(&rp, &j, now), QD_REPORT_FAILED);
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &was), 0);
	cr_expect(strstr(logbuf, "E: qosdeny: job 42: usage on n1 not spooled "
				 "(spool "),
		  "%s", logbuf);
	cr_expect(strstr(logbuf, "its open record stays in spool ") &&
		      strstr(logbuf, "closed at the job's end by slurmd's "
				     "next start or `qosdeny flush`; record: "
				     "qosdeny-usage/3 cluster=qd job=42 "
				     "node=n1 user=alice account=research "
				     "qos= partition=gpu "),
		  "%s", logbuf);
	cr_expect(strstr(spool(), "end=0 gpus=1 gpu_seconds=0;"),
		  "the open record stays: %s", spool());
	redis_up();
	ended_at = now;
	qd_report_sweep(&rp, 0, lookup, NULL);
	cr_expect(NEAR(usage("user", "alice"), 10), "nothing lost");
}

/* A spool others could write to is refused: the job's start is not
 * recorded, loudly. */
Test(usage_report, an_unsafe_spool_is_refused_loudly)
{
	struct qd_usage_record j = job(42, "alice", 1);

	redis_down();
	cr_assert_eq(mkdir(rp.spool, 0700), 0);
	cr_assert_eq(chmod(rp.spool, 0777), 0);
	cr_expect_eq(qd_report_prolog(&rp, &j, 1700000000), QD_REPORT_FAILED);
	cr_expect(strstr(logbuf, "E: qosdeny: job 42: GPU usage on n1 will not "
				 "be counted: spool ") &&
		      strstr(logbuf, "writable by group or others (mode 0777): "
				     "refused"),
		  "%s", logbuf);
}
