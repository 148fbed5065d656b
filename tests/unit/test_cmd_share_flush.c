/* SPDX-License-Identifier: GPL-2.0-or-later
 * `qosdeny share` and `qosdeny flush` (this build's, or $QD_TOOL) end to
 * end against a real redis-server, with a site of the test's own: slurm.conf
 * (accounting off, so shares come from qosdeny.conf), plugstack.conf with
 * the spank_qosdeny.so line, and a spool per slurmd (SlurmdSpoolDir=.../%n).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "redis_usage.h"
#include "running_usage.h"
#include "spool.h"
#include "spool_orphan.h"
#include "contract_example.h"
#include "test_redis_server.h"

#ifndef QD_TOOL_PATH /* the Makefile names this build's */
#define QD_TOOL_PATH "build/qosdeny"
#endif

static struct server srv;
static char out[8192], errout[8192];

static void write_file(const char *name, mode_t mode, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void write_file(const char *name, mode_t mode, const char *fmt, ...)
{
	char path[256];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", srv.dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
	chmod(path, mode);
}

static void plugstack(const char *extra)
{
	write_file("etc/plugstack.conf", 0644,
		   "# qosdeny\n"
		   "required /usr/lib/x86_64-linux-gnu/slurm-wlm/"
		   "spank_qosdeny.so redis=unix:%s timeout_ms=500 %s\n",
		   srv.sock, extra);
}

static void site(const char *cluster_line)
{
	char path[256];

	server_dir(&srv);
	snprintf(path, sizeof(path), "%s/etc", srv.dir);
	mkdir(path, 0755);
	write_file("etc/slurm.conf", 0644,
		   "%s\nSlurmctldHost=localhost\n"
		   "SlurmdSpoolDir=%s/spool/%%n\n"
		   "AccountingStorageType=accounting_storage/none\n",
		   cluster_line, srv.dir);
	write_file("etc/qosdeny.conf", 0644,
		   "Account=research Shares=500\n"
		   "Account=batch Shares=100\n"
		   "User=alice Account=research Shares=1\n"
		   "User=bob Account=research Shares=1\n"
		   "User=charlie Account=batch Shares=1\n");
	plugstack("");
	snprintf(path, sizeof(path), "%s/spool", srv.dir);
	mkdir(path, 0755);
	/* slurmctld, as flush asks it about open records: every job runs,
	 * but those listed in gone, which it no longer has; no accounting. */
	snprintf(path, sizeof(path), "%s/bin", srv.dir);
	mkdir(path, 0755);
	write_file("bin/squeue", 0755,
		   "#!/bin/sh\n"
		   "if [ \"$4\" = -u ]; then echo \"999999|\"; exit 0; fi\n"
		   "end=$(sed -n \"s/^$5 //p\" %s/ended 2>/dev/null)\n"
		   "if [ \"$end\" ]; then\n"
		   "  echo \"$5|NODE_FAIL|1|$end|0|\"\n"
		   "  exit 0\n"
		   "fi\n"
		   "if grep -qx \"$5\" %s/gone 2>/dev/null; then\n"
		   "  echo 'slurm_load_jobs error: Invalid job id specified' "
		   ">&2\n"
		   "  exit 1\n"
		   "fi\n"
		   "echo \"$5|RUNNING|1|Unknown|0|\"\n",
		   srv.dir, srv.dir);
	write_file("bin/sacct", 0755,
		   "#!/bin/sh\necho 'sacct: error: Slurm accounting storage "
		   "is disabled' >&2\nexit 1\n");
}

static void setup(void)
{
	memset(&srv, 0, sizeof(srv));
	site("ClusterName=qdt");
	start_fresh(&srv, NULL);
}

static void teardown(void)
{
	server_cleanup(&srv);
}

TestSuite(tool, .init = setup, .fini = teardown, .timeout = 60);

static void slurp(const char *name, char *buf, size_t len)
{
	char path[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", srv.dir, name);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Runs the tool with the site's SLURM_CONF; stdout and stderr in out and
 * errout; returns its exit status. */
static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int run(const char *fmt, ...)
{
	const char *tool = getenv("QD_TOOL") ? getenv("QD_TOOL") : QD_TOOL_PATH;
	char args[512], cmd[2048];
	va_list ap;
	int st;

	cr_assert_eq(access(tool, X_OK), 0, "%s not built (make all)", tool);
	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd),
		 "PATH=%s/bin:$PATH SLURM_CONF=%s/etc/slurm.conf %s %s >%s/out "
		 "2>%s/err",
		 srv.dir, srv.dir, tool, args, srv.dir, srv.dir);
	st = system(cmd);
	slurp("out", out, sizeof(out));
	slurp("err", errout, sizeof(errout));
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A record in node's spool, ended now (open when gpu_seconds is 0). */
static struct qd_usage_record spool_rec(uint32_t job, const char *node,
					const char *user, const char *account,
					int64_t secs, bool open)
{
	time_t now = time(NULL);
	struct qd_usage_record r = {
	    .cluster = "qdt",
	    .job_id = job,
	    .mgpus = 1000,
	    .start = now - secs,
	};
	char dir[256], err[QD_SPOOL_ERR_MAX];

	snprintf(r.node, sizeof(r.node), "%s", node);
	snprintf(r.user, sizeof(r.user), "%s", user);
	snprintf(r.account, sizeof(r.account), "%s", account);
	if (!open)
		cr_assert_eq(qd_usage_record_close(&r, now), 0);
	snprintf(dir, sizeof(dir), "%s/spool/%s", srv.dir, node);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/spool/%s/qosdeny", srv.dir, node);
	cr_assert_eq(qd_spool_write(dir, &r, err, sizeof(err)), 0, "%s", err);
	return r;
}

static void contract_usage(void)
{
	spool_rec(1, "n1", "alice", "research", 3600, false);
	spool_rec(2, "n2", "bob", "research", 3600, false);
	spool_rec(3, "n1", "charlie", "batch", 1800, false);
	spool_rec(4, "n2", "charlie", "batch", 60, true);
}

/* The worked example (docs/fair-share.md), end to end: spooled on two slurmd,
 * flushed, shown. The open record (a job still running) stays. */
Test(tool, flush_then_share)
{
	contract_usage();
	cr_expect_eq(run("flush"), 0, "%s", errout);
	cr_expect_str_eq(out, "qosdeny: flush: 3 sent, 0 already counted, 1 "
			      "left (1 of running jobs, 0 not sent, 0 "
			      "undecodable)\n");
	cr_expect_str_eq(errout, "");
	cr_expect_eq(run("share -P"), 0, "%s", errout);
	cr_expect_str_eq(out, contract_table);
	cr_expect(strstr(errout, "slurmdbd not reachable, shares from "), "%s",
		  errout);
	cr_expect_eq(run("flush"), 0, "%s", errout);
	cr_expect_str_eq(out, "qosdeny: flush: 0 sent, 0 already counted, 1 "
			      "left (1 of running jobs, 0 not sent, 0 "
			      "undecodable)\n");
}

Test(tool, share_aligned)
{
	static const char want[] =
	    "Account                    User  RawShares  NormShares    "
	    "RawUsage  EffectvUsage  FairShare \n"
	    "-------------------- ---------- ---------- ----------- "
	    "----------- ------------- ---------- \n"
	    "batch                                  100    0.166667        "
	    "1800      0.200000   0.435275 \n";

	contract_usage();
	cr_expect_eq(run("flush"), 0);
	cr_expect_eq(run("share"), 0);
	cr_expect(!strncmp(out, want, strlen(want)), "%s", out);
}

/* A record sent before whose reply was lost is in the spool still: it is
 * found counted, and removed. */
Test(tool, flush_already_counted)
{
	struct qd_usage_record a =
	    spool_rec(1, "n1", "alice", "research", 100, false);
	struct qd_redis_config cfg = {0};
	char addr[160], err[QD_REDIS_ERR_MAX];
	struct qd_redis *r;

	spool_rec(2, "n1", "bob", "research", 100, false);
	snprintf(addr, sizeof(addr), "unix:%s", srv.sock);
	cfg.addr = addr;
	r = qd_redis_new(&cfg, err, sizeof(err));
	cr_assert_eq(qd_redis_apply(r, &a, 7 * 86400, err, sizeof(err)), 1);
	qd_redis_free(r);
	cr_expect_eq(run("flush"), 0);
	cr_expect_str_eq(out, "qosdeny: flush: 1 sent, 1 already counted, 0 "
			      "left\n");
}

/* Redis down: flush keeps the record and says why, share fails; once Redis
 * is back the record goes. */
Test(tool, redis_down)
{
	char want[512];

	spool_rec(1, "n1", "alice", "research", 100, false);
	stop(&srv);
	cr_expect_eq(run("flush"), 1);
	cr_expect_str_eq(out, "qosdeny: flush: 0 sent, 0 already counted, 1 "
			      "left (0 of running jobs, 1 not sent, 0 "
			      "undecodable)\n");
	snprintf(want, sizeof(want),
		 "not sent: redis unix:%s: connect: No such file or directory",
		 srv.sock);
	cr_expect(strstr(errout, want), "%s", errout);
	cr_expect_eq(run("share -P"), 1);
	cr_expect_str_eq(out, "");
	snprintf(want, sizeof(want),
		 "qosdeny: share: redis unix:%s: connect: No such file or "
		 "directory\n",
		 srv.sock);
	cr_expect(strstr(errout, want), "%s", errout);
	cr_assert_eq(start(&srv, NULL), 0);
	cr_expect_eq(run("flush"), 0);
	cr_expect_str_eq(out, "qosdeny: flush: 1 sent, 0 already counted, 0 "
			      "left\n");
}

/* --redis replaces the address; the password still comes from the
 * plugstack line. */
Test(tool, redis_option_and_password)
{
	static const char *const requirepass[] = {"--requirepass", "pw", NULL};
	char pass[256];

	stop(&srv);
	srv.password = "pw";
	cr_assert_eq(start(&srv, requirepass), 0);
	cr_expect_eq(run("share -P"), 1);
	cr_expect(strstr(errout, "NOAUTH Authentication required."), "%s",
		  errout);
	write_file("pass", 0600, "pw\n");
	snprintf(pass, sizeof(pass), "redis_password_file=%s/pass", srv.dir);
	plugstack(pass);
	cr_expect_eq(run("share -P --redis 127.0.0.1:%d", srv.port), 0, "%s",
		     errout);
	cr_expect(!strncmp(out, contract_table, 60), "%s", out);
	cr_expect_eq(run("share -P --redis=127.0.0.1:1"), 1);
	cr_expect(strstr(errout, "qosdeny: share: redis 127.0.0.1:1: connect: "
				 "Connection refused"),
		  "%s", errout);
	write_file("pass", 0644, "pw\n");
	cr_expect_eq(run("share -P"), 1);
	cr_expect(strstr(errout, "mode 0644 lets others read it"), "%s",
		  errout);
}

/* Usage from Redis with no share record: rows with the default share. */
/* An open record from before this boot whose job slurmctld no longer has
 * (and no accounting): flush closes it at the boot, the bound left, and
 * sends it; a running job's stays. */
Test(tool, flush_closes_records_cut_off_by_a_reboot)
{
	int64_t boot = qd_boot_time();
	struct qd_usage_record cut = {
	    .cluster = "qdt",
	    .job_id = 5,
	    .node = "n1",
	    .user = "alice",
	    .account = "research",
	    .start = boot - 100,
	    .mgpus = 3000,
	};
	char dir[256], err[QD_SPOOL_ERR_MAX], want[128];

	cr_assert_gt(boot, 0);
	snprintf(dir, sizeof(dir), "%s/spool/n1", srv.dir);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/spool/n1/qosdeny", srv.dir);
	cr_assert_eq(qd_spool_write(dir, &cut, err, sizeof(err)), 0, "%s", err);
	write_file("gone", 0644, "5\n");
	spool_rec(6, "n1", "bob", "research", 10, true);
	cr_expect_eq(run("flush"), 0, "%s", errout);
	cr_expect_str_eq(out, "qosdeny: flush: 1 sent, 0 already counted, 1 "
			      "left (1 of running jobs, 0 not sent, 0 "
			      "undecodable)\n");
	cr_expect(strstr(errout,
			 "qosdeny: flush: job 5 ended on n1 without its "
			 "epilog: its usage record is closed at "),
		  "%s", errout);
	cr_expect(strstr(errout, ", the end this node's boot gives, charging "
				 "100 s, 300 GPU-seconds: "),
		  "%s", errout);
	snprintf(want, sizeof(want), " end=%lld gpus=3 gpu_seconds=300\n",
		 (long long)boot);
	cr_expect(strstr(errout, want), "%s", errout);
	/* slurmctld still has job 7, ended NODE_FAIL 20 s after its start:
	 * that is its end, not the boot. */
	cut.job_id = 7;
	cr_assert_eq(qd_spool_write(dir, &cut, err, sizeof(err)), 0, "%s", err);
	write_file("ended", 0644, "7 %lld\n", (long long)boot - 80);
	cr_expect_eq(run("flush"), 0, "%s", errout);
	cr_expect(strstr(errout, ", the end slurmctld (NODE_FAIL) gives, "
				 "charging 20 s, 60 GPU-seconds: "),
		  "%s", errout);
}

Test(tool, usage_without_share_record)
{
	spool_rec(1, "n1", "dave", "extra", 100, false);
	cr_expect_eq(run("flush --spool %s/spool/n1/qosdeny", srv.dir), 0);
	cr_expect_eq(run("share -P --cluster qdt"), 0);
	cr_expect(strstr(out, "\nextra||1|0.001664|100|1.000000|0.000000\n"
			      "extra|dave|1|0.001664|100|1.000000|0.000000\n"),
		  "%s", out);
	cr_expect_eq(run("share -P --cluster other"), 0);
	cr_expect(strstr(out, "\nresearch||500|0.833333|0|0.000000|1.000000\n"),
		  "%s", out);
}

Test(tool, no_cluster_name)
{
	char want[512];

	site("# no ClusterName");
	cr_expect_eq(run("share"), 1);
	snprintf(want, sizeof(want),
		 "qosdeny: share: no cluster name: give --cluster NAME, or set "
		 "ClusterName in %s/etc/slurm.conf\n",
		 srv.dir);
	cr_expect_str_eq(errout, want);
}

Test(tool, usage_errors)
{
	cr_expect_eq(run("share -x"), 2);
	cr_expect(strstr(errout, "qosdeny: share: unknown option '-x'\n"));
	cr_expect_eq(run("share --cluster"), 2);
	cr_expect_eq(run("share --cluster a:b"), 2);
	cr_expect_eq(run("share --redis"), 2);
	cr_expect_eq(run("share extra"), 2);
	cr_expect_eq(run("flush --spool"), 2);
	cr_expect_eq(run("flush --spool="), 2);
	cr_expect_eq(run("flush extra"), 2);
	cr_expect(strstr(errout, "qosdeny: flush: unexpected argument "
				 "'extra'\n"));
}

/*
 * Fair share over several clusters (qosdeny(1)): --cluster a,b, or
 * qosdeny.conf's FairShareClusters; running jobs' usage counted.
 */

static struct qd_redis *tool_redis(void)
{
	struct qd_redis_config cfg = {0};
	char addr[160], err[QD_REDIS_ERR_MAX];
	struct qd_redis *r;

	snprintf(addr, sizeof(addr), "unix:%s", srv.sock);
	cfg.addr = addr;
	cfg.timeout_ms = 5000;
	r = qd_redis_new(&cfg, err, sizeof(err));
	cr_assert_not_null(r, "%s", err);
	return r;
}

/* A closed record of secs GPU-seconds, ended now, applied under cluster. */
static void applied(const char *cluster, uint32_t job, const char *user,
		    const char *account, int64_t secs)
{
	time_t now = time(NULL);
	struct qd_usage_record rec = {
	    .job_id = job, .mgpus = 1000, .start = now - secs};
	char err[QD_REDIS_ERR_MAX];
	struct qd_redis *r = tool_redis();

	snprintf(rec.cluster, sizeof(rec.cluster), "%s", cluster);
	snprintf(rec.node, sizeof(rec.node), "n1");
	snprintf(rec.user, sizeof(rec.user), "%s", user);
	snprintf(rec.account, sizeof(rec.account), "%s", account);
	cr_assert_eq(qd_usage_record_close(&rec, now), 0);
	cr_assert_eq(qd_redis_apply(r, &rec, 7 * 86400, err, sizeof(err)), 1,
		     "%s", err);
	qd_redis_free(r);
}

/* The worked example's usage split over clusters a (alice) and b (bob,
 * charlie). */
static void contract_usage_on_a_and_b(void)
{
	applied("a", 1, "alice", "research", 3600);
	applied("b", 2, "bob", "research", 3600);
	applied("b", 3, "charlie", "batch", 1800);
}

/* qosdeny.conf's shares, with a global line of its own first. */
static void qosdeny_conf(const char *global)
{
	write_file("etc/qosdeny.conf", 0644,
		   "%s\n"
		   "Account=research Shares=500\n"
		   "Account=batch Shares=100\n"
		   "User=alice Account=research Shares=1\n"
		   "User=bob Account=research Shares=1\n"
		   "User=charlie Account=batch Shares=1\n",
		   global);
}

static const char no_usage_table[] =
    "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare\n"
    "batch||100|0.166667|0|0.000000|1.000000\n"
    "batch|charlie|1|0.166667|0|0.000000|1.000000\n"
    "research||500|0.833333|0|0.000000|1.000000\n"
    "research|alice|1|0.416667|0|0.000000|1.000000\n"
    "research|bob|1|0.416667|0|0.000000|1.000000\n";

Test(tool, share_sums_clusters)
{
	contract_usage_on_a_and_b();
	cr_expect_eq(run("share -P --cluster a,b"), 0, "%s", errout);
	cr_expect_str_eq(out, contract_table);
	cr_expect_eq(run("share -P --cluster=b,a"), 0, "%s", errout);
	cr_expect_str_eq(out, contract_table);
	cr_expect_eq(run("share -P --cluster a,nothing,b"), 0, "%s", errout);
	cr_expect_str_eq(out, contract_table);
	/* One of them alone: its usage only. */
	cr_expect_eq(run("share -P --cluster a"), 0, "%s", errout);
	cr_expect_str_eq(
	    out, "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|"
		 "FairShare\n"
		 "batch||100|0.166667|0|0.000000|1.000000\n"
		 "batch|charlie|1|0.166667|0|0.000000|1.000000\n"
		 "research||500|0.833333|3600|1.000000|0.435275\n"
		 "research|alice|1|0.416667|3600|1.000000|0.189465\n"
		 "research|bob|1|0.416667|0|0.000000|1.000000\n");
	/* This cluster (ClusterName=qdt) has none. */
	cr_expect_eq(run("share -P"), 0, "%s", errout);
	cr_expect_str_eq(out, no_usage_table);
}

Test(tool, share_uses_fair_share_clusters)
{
	contract_usage_on_a_and_b();
	qosdeny_conf("FairShareClusters=a,b");
	cr_expect_eq(run("share -P"), 0, "%s", errout);
	cr_expect_str_eq(out, contract_table);
	/* --cluster overrides it. */
	cr_expect_eq(run("share -P --cluster qdt"), 0, "%s", errout);
	cr_expect_str_eq(out, no_usage_table);
	cr_expect_eq(run("share -P --cluster b,a"), 0, "%s", errout);
	cr_expect_str_eq(out, contract_table);
	qosdeny_conf("FairShareClusters=b");
	cr_expect_eq(run("share -P"), 0, "%s", errout);
	cr_expect(strstr(out, "\nresearch|alice|1|0.416667|0|"), "%s", out);
	cr_expect(strstr(out, "\nresearch|bob|1|0.416667|3600|"), "%s", out);
	/* A broken FairShareClusters is the file's error. */
	qosdeny_conf("FairShareClusters=a,a");
	cr_expect_eq(run("share -P"), 1);
	cr_expect(strstr(errout, "qosdeny.conf:1: cluster listed twice 'a'"),
		  "%s", errout);
}

Test(tool, share_cluster_usage_errors)
{
	static const char *const bad[] = {
	    "--cluster a,,b",	 "--cluster a,a",
	    "--cluster",	 "--cluster=",
	    "--cluster ,a",	 "--cluster a,",
	    "--cluster a,b{",	 "--cluster a --cluster b",
	    "--cluster=a,b,A,b",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(run("share -P %s", bad[i]), 2, "%s", bad[i]);
		cr_expect_str_eq(out, "", "%s", bad[i]);
		cr_expect_str_eq(errout,
				 "qosdeny: share: --cluster needs cluster "
				 "names, comma-separated, each once\n"
				 "Try 'qosdeny --help' for more "
				 "information.\n",
				 "%s", bad[i]);
	}
	/* Case matters: A and a are two clusters. */
	cr_expect_eq(run("share -P --cluster a,A"), 0, "%s", errout);
}

/* 64 clusters are taken, 65 refused. */
Test(tool, share_cluster_count)
{
	char list[65 * 4 + 1] = "";

	for (int i = 0; i < 64; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%sc%d", i ? "," : "", i);
	cr_expect_eq(run("share -P --cluster %s", list), 0, "%s", errout);
	cr_expect_str_eq(out, no_usage_table);
	strcat(list, ",c64");
	cr_expect_eq(run("share -P --cluster %s", list), 2);
}

/* Running jobs published by the site factor count in RawUsage. */
Test(tool, share_counts_running_jobs)
{
	time_t now = time(NULL);
	struct qd_running_job jobs[] = {
	    {.job_id = 1,
	     .start = now - 3600,
	     .account = "research",
	     .user = "alice",
	     .gpu_seconds = 3600},
	    {.job_id = 2,
	     .start = now - 1800,
	     .account = "research",
	     .user = "bob",
	     .gpu_seconds = 1800},
	    {.job_id = 3,
	     .start = now - 900,
	     .account = "batch",
	     .user = "charlie",
	     .gpu_seconds = 1800},
	};
	char err[QD_REDIS_ERR_MAX];
	struct qd_redis *r = tool_redis();

	/* bob: half of it done, half running. */
	applied("qdt", 4, "bob", "research", 1800);
	cr_assert_eq(
	    qd_redis_publish_running(r, "qdt", jobs, 3, err, sizeof(err)), 3,
	    "%s", err);
	cr_expect_eq(run("share -P"), 0, "%s", errout);
	cr_expect_str_eq(out, contract_table);
	/* Over two clusters, with a's records added. */
	contract_usage_on_a_and_b();
	cr_expect_eq(run("share -P --cluster qdt,a"), 0, "%s", errout);
	cr_expect(strstr(out, "\nresearch|alice|1|0.416667|7200|"), "%s", out);
	cr_expect(strstr(out, "\nresearch|bob|1|0.416667|3600|"), "%s", out);
	cr_expect(strstr(out, "\nbatch|charlie|1|0.166667|1800|"), "%s", out);
	/* A damaged running entry and a damaged usage hash (a job reached a
	 * Redis without a password): said, the first with its key, and the
	 * table shown from everything else. */
	freeReplyObject(admin_cmd(&srv, "HSET qosdeny:{qdt}:running 9 broken"));
	freeReplyObject(
	    admin_cmd(&srv, "HSET qosdeny:{qdt}:account:research v x t 1"));
	cr_expect_eq(run("share -P"), 0, "%s", errout);
	cr_expect(strstr(out, "\nbatch|charlie|1|0.166667|1800|"), "%s", out);
	cr_expect(strstr(errout, "qosdeny: share: 2 usage entries in Redis "
				 "cannot be read and are left out (the first: "
				 "qosdeny:{qdt}:"),
		  "%s", errout);
	/* The running set of another type: one entry left out, the
	 * completed usage shown. */
	freeReplyObject(admin_cmd(&srv, "DEL qosdeny:{qdt}:account:research"));
	freeReplyObject(admin_cmd(&srv, "DEL qosdeny:{qdt}:running"));
	freeReplyObject(admin_cmd(&srv, "SET qosdeny:{qdt}:running oops"));
	cr_expect_eq(run("share -P"), 0, "%s", errout);
	cr_expect(strstr(out, "\nresearch|bob|1|"), "%s", out);
	cr_expect(strstr(errout, "qosdeny: share: 1 usage entry in Redis "
				 "cannot be read and is left out: "
				 "qosdeny:{qdt}:running: WRONGTYPE"),
		  "%s", errout);
	qd_redis_free(r);
}

/* FairShareClusters of 64, the most: the last one counts too. */
Test(tool, share_fair_share_clusters_all_64)
{
	char conf[64 * 5 + 32] = "FairShareClusters=";

	for (int i = 0; i < 63; i++)
		snprintf(conf + strlen(conf), sizeof(conf) - strlen(conf),
			 "c%d,", i);
	strcat(conf, "a");
	applied("a", 1, "alice", "research", 3600);
	qosdeny_conf(conf);
	cr_expect_eq(run("share -P"), 0, "%s", errout);
	cr_expect(strstr(out, "\nresearch|alice|1|0.416667|3600|1.000000|"),
		  "%s", out);
	qosdeny_conf("FairShareClusters=c0,c1,c2,c3,c4,c5,c6,c7,c8,c9,c10,c11,"
		     "c12,c13,c14,c15,c16,c17,c18,c19,c20,c21,c22,c23,c24,c25,"
		     "c26,c27,c28,c29,c30,c31,c32,c33,c34,c35,c36,c37,c38,c39,"
		     "c40,c41,c42,c43,c44,c45,c46,c47,c48,c49,c50,c51,c52,c53,"
		     "c54,c55,c56,c57,c58,c59,c60,c61,c62,c63,a");
	cr_expect_eq(run("share -P"), 1, "65 clusters: %s", out);
	cr_expect(strstr(errout, "qosdeny.conf:1: more than 64 clusters 'a'"),
		  "%s", errout);
}
