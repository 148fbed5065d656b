/* SPDX-License-Identifier: GPL-2.0-or-later
 * make bench: GPU usage reporting (docs/gpu-and-usage.md, "Usage reporting"),
 * against the empty redis-server that tests/bench/usage.sh starts on a loopback
 * port.
 *
 * 1. Records applied per second by qd_redis_apply, the plugin's and
 *    `qosdeny flush`'s path: the Lua script's SET NX of the record's id,
 *    then its user, account, user-in-account and QoS hashes decayed to now
 *    and added to. One client, then 8 processes with a connection each
 *    (a hiredis context is not thread-safe); every record distinct, then
 *    the same ones sent again, which the script finds counted; each with
 *    redis_replicas=0 and =1 (WAIT for the replica usage.sh starts: what a
 *    record costs that may not be lost at a failover,
 *    docs/high-availability.md). The accounts' sums in Redis are checked
 *    afterwards.
 * 2. What reporting adds to a job's end on the node: qd_report_epilog, in
 *    process, with a reporter built as the plugin builds one for each hook
 *    (plugstack options, slurm.conf, qosdeny.conf) and a spool on disk, after
 *    a prolog that opened the job's record: the epilog closes it, writes it
 *    over the open one (write, fsync, rename), sends it and the rest of the
 *    spool, with Redis up, refusing connections, or silent; then, for the
 *    silent ones, the one Redis attempt alone, whose bound is timeout_ms.
 *
 * Usage: bench_usage HOST:PORT DIR, DIR an empty directory of the run's own
 * holding the site's qosdeny.conf.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spank_opts.h"
#include "redis_usage.h"
#include "spool.h"
#include "usage_report.h"

/* Entries the readers skipped (qd_usage_skipped). */
static struct qd_usage_skipped skipped;

#define HALF_LIFE_S (7 * 86400) /* UsageHalfLife's default */
#define RECORDS	    20000	/* per pass, all clients together */
#define MAX_CLIENTS 8
#define ACCOUNTS    10
#define HOOK_RUNS   1000 /* epilogs per row with Redis up or refusing */
#define SILENT_RUNS 20	 /* per row with Redis silent */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bench_usage: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- 1. records per second ---- */

/* Job's record from client's node: 100 users in ACCOUNTS accounts, 1 to 4
 * GPUs for about an hour, ended at end. */
static struct qd_usage_record bench_record(const char *cluster, uint32_t job,
					   int client, int64_t end)
{
	struct qd_usage_record r = {
	    .job_id = job,
	    .qos = "normal",
	    .partition = "gpu",
	    .start = end - 3600 - job % 7 * 60,
	    .mgpus = (1 + job % 4) * 1000,
	};

	snprintf(r.cluster, sizeof(r.cluster), "%s", cluster);
	snprintf(r.node, sizeof(r.node), "n%d", client);
	snprintf(r.user, sizeof(r.user), "u%02u", job % 100);
	snprintf(r.account, sizeof(r.account), "a%u", job % ACCOUNTS);
	if (qd_usage_record_close(&r, end))
		die("record of job %u does not close", job);
	return r;
}

/*
 * One client's pass over records first..first+n-1, each expected to return
 * want (1: counted now, 0: counted before). Connected, with the script
 * loaded, before it writes 'r' to ready_fd ('f': it failed); starts when
 * go_fd closes.
 */
static void client(const char *addr, int replicas, int id, uint32_t first,
		   uint32_t n, int want, int64_t end, int ready_fd, int go_fd)
{
	struct qd_redis_config cfg = {.addr = addr,
				      .timeout_ms = 10000,
				      .replicas = replicas,
				      .replicas_given = true};
	struct qd_usage_record warm = bench_record("warm", id + 1, id, end);
	char err[QD_REDIS_ERR_MAX], c;
	struct qd_redis *r = qd_redis_new(&cfg, err, sizeof(err));

	if (!r || qd_redis_apply(r, &warm, HALF_LIFE_S, err, sizeof(err)) < 0) {
		/* Said, so that the parent does not wait for it. */
		if (write(ready_fd, "f", 1) != 1)
			_exit(1);
		goto fail;
	}
	if (write(ready_fd, "r", 1) != 1 || read(go_fd, &c, 1) != 0)
		_exit(1);
	for (uint32_t i = 0; i < n; i++) {
		struct qd_usage_record rec =
		    bench_record("bench", first + i, id, end);
		int k = qd_redis_apply(r, &rec, HALF_LIFE_S, err, sizeof(err));

		if (k < 0)
			goto fail;
		if (k != want) {
			fprintf(stderr, "bench_usage: job %u: counted %s\n",
				first + i, k ? "again" : "before");
			_exit(1);
		}
	}
	qd_redis_free(r);
	_exit(0);
fail:
	fprintf(stderr, "bench_usage: client %d: %s\n", id, err);
	_exit(1);
}

/* Records per second of one pass by clients processes. */
static double pass(const char *addr, int replicas, int clients, uint32_t first,
		   int want, int64_t end)
{
	uint32_t per = RECORDS / clients;
	pid_t pids[MAX_CLIENTS];
	int ready[2], go[2], status, failed = 0;
	int64_t t0;
	char c;

	if (pipe(ready) || pipe(go))
		die("pipe: %m");
	fflush(stdout); /* not the children's to write */
	for (int i = 0; i < clients; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork: %m");
		if (!pids[i]) {
			close(ready[0]);
			close(go[1]);
			client(addr, replicas, i, first + i * per, per, want,
			       end, ready[1], go[0]);
		}
	}
	close(ready[1]);
	close(go[0]);
	for (int i = 0; i < clients; i++)
		if (read(ready[0], &c, 1) != 1 || c != 'r')
			failed = 1;
	for (int i = 0; failed && i < clients; i++)
		kill(pids[i], SIGKILL);
	t0 = now_us();
	close(go[1]);
	for (int i = 0; i < clients; i++)
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	close(ready[0]);
	if (failed)
		die("a client failed (%d clients, first job %u)", clients,
		    first);
	return (double)per * clients * 1e6 / (double)(now_us() - t0);
}

static int take_usage(enum qd_usage_kind kind, const char *account,
		      const char *user, double usage, void *arg)
{
	double *sum = arg;

	(void)user;
	/* Set, not added: SCAN may return a key twice. */
	if (kind == QD_USAGE_ACCOUNT)
		sum[atoi(account + 1) % ACCOUNTS] = usage;
	return 0;
}

/* The accounts' usage in Redis is the GPU-seconds of the jobs sent, each
 * counted once (decayed by a few seconds' worth of a week's half-life). */
static void check_sums(const char *addr, uint32_t jobs, const int64_t *ends)
{
	struct qd_redis_config cfg = {.addr = addr, .timeout_ms = 10000};
	double sum[ACCOUNTS] = {0}, got = 0, want = 0;
	char err[QD_REDIS_ERR_MAX];
	struct qd_redis *r = qd_redis_new(&cfg, err, sizeof(err));

	if (!r || qd_redis_read_usage(r, "bench", HALF_LIFE_S, take_usage, sum,
				      &skipped, err, sizeof(err)))
		die("reading usage: %s", err);
	qd_redis_free(r);
	for (uint32_t j = 1; j <= jobs; j++)
		want += bench_record("bench", j, 0, ends[(j - 1) / RECORDS])
			    .mgpu_seconds /
			1000.0;
	for (int a = 0; a < ACCOUNTS; a++)
		got += sum[a];
	if (got > want * 1.000001 || got < want * 0.999)
		die("Redis holds %.0f GPU-seconds, the records %.0f", got,
		    want);
	printf("# check: the accounts' usage in Redis is %.0f GPU-seconds, "
	       "the records' %.0f\n",
	       got, want);
}

static void records_per_second(const char *addr)
{
	static const int clients[] = {1, MAX_CLIENTS};
	int64_t ends[4];

	printf("# records applied per second by qd_redis_apply (Lua script: "
	       "SET NX of the\n# record's id, 4 decayed hashes), loopback "
	       "TCP, %d records per pass.\n# new: every record distinct; "
	       "again: the same records sent again, found\n# counted "
	       "(what a spool replay after a lost reply costs).\n# "
	       "replicas: redis_replicas=, WAIT after each record for that "
	       "many replicas\n# (one, on the same host) to hold it.\n",
	       RECORDS);
	printf("%-8s %-8s %-8s %-10s %s\n", "clients", "replicas", "records",
	       "new_per_s", "again_per_s");
	for (int i = 0; i < 4; i++) {
		uint32_t first = 1 + i * RECORDS;
		int c = clients[i % 2], replicas = i / 2;
		double fresh, again;

		ends[i] = time(NULL);
		fresh = pass(addr, replicas, c, first, 1, ends[i]);
		again = pass(addr, replicas, c, first, 0, ends[i]);
		printf("%-8d %-8d %-8d %-10.0f %.0f\n", c, replicas, RECORDS,
		       fresh, again);
		fflush(stdout);
	}
	check_sums(addr, 4 * RECORDS, ends);
}

/* ---- 2. the epilog ---- */

struct hook_log {
	const char *want; /* a line must say this */
	bool saw;
	char last_error[QD_REPORT_ERR_MAX + QD_RECORD_MAX];
};

static void note(enum qd_log_level level, const char *msg, void *arg)
{
	struct hook_log *l = arg;

	if (level == QD_LOG_ERROR)
		snprintf(l->last_error, sizeof(l->last_error), "%s", msg);
	if (strstr(msg, l->want))
		l->saw = true;
}

struct hook_case {
	const char *redis; /* what Redis does */
	char addr[64];
	int timeout_ms; /* 0: the plugin's default */
	bool keep;	/* let the spool grow; else cleared after each */
	int runs;
	enum qd_report_result result;
	char want[64]; /* in the epilog's log */
};

/* As the plugin builds one for a hook, from its plugstack.conf options. */
static void reporter(struct qd_reporter *rp, const struct hook_case *hc,
		     struct hook_log *lg)
{
	char redis[80], timeout[32], err[QD_REPORT_ERR_MAX];
	char *argv[] = {redis, timeout};
	struct qd_spank_opts o;

	snprintf(redis, sizeof(redis), "redis=%s", hc->addr);
	snprintf(timeout, sizeof(timeout), "timeout_ms=%d", hc->timeout_ms);
	qd_spank_opts_init(&o);
	if (qd_spank_opts_parse(&o, hc->timeout_ms ? 2 : 1, argv, err,
				sizeof(err)) ||
	    qd_reporter_init(rp, &o, "n1", note, lg, err, sizeof(err)))
		die("%s", err);
}

static void clear_spool(const char *dir)
{
	char err[QD_SPOOL_ERR_MAX], path[2 * PATH_MAX];
	struct qd_spool_list l;

	if (qd_spool_list(dir, &l, err, sizeof(err)))
		die("%s", err);
	for (size_t i = 0; i < l.n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, l.names[i]);
		if (unlink(path))
			die("unlink %s: %m", path);
	}
	qd_spool_list_free(&l);
}

/* Runs hc->runs prolog/epilog pairs; us[i]: the i-th epilog's time,
 * init_us[i] (unless NULL): building its reporter. Leaves the spool
 * empty. */
static void run_hooks(const struct hook_case *hc, int64_t *us, int64_t *init_us)
{
	static uint32_t next_job = 1;
	struct qd_reporter *rp = malloc(sizeof(*rp));

	if (!rp)
		die("out of memory");
	for (int i = 0; i < hc->runs; i++) {
		struct qd_usage_record job = {
		    .cluster = "bench",
		    .job_id = next_job++,
		    .node = "n1",
		    .user = "alice",
		    .account = "research",
		    .qos = "normal",
		    .partition = "gpu",
		    .mgpus = 2000,
		};
		struct hook_log lg = {.want = hc->want};
		int64_t now = time(NULL), t0;
		enum qd_report_result rv;

		reporter(rp, hc, &lg);
		if (qd_report_prolog(rp, &job, now - 60) != QD_REPORT_DONE)
			die("%s: prolog: %s", hc->redis, lg.last_error);
		t0 = now_us();
		reporter(rp, hc, &lg);
		if (init_us)
			init_us[i] = now_us() - t0;
		lg.saw = false;
		t0 = now_us();
		rv = qd_report_epilog(rp, &job, now);
		us[i] = now_us() - t0;
		if (rv != hc->result || !lg.saw)
			die("%s: epilog returned %d, not %d, or its log did "
			    "not say \"%s\": %s",
			    hc->redis, rv, hc->result, hc->want, lg.last_error);
		if (!hc->keep)
			clear_spool(rp->spool);
	}
	clear_spool(rp->spool);
	free(rp);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* One row: median and max of n times (timeout_ms 0: "-"). */
static void row(const char *redis, int timeout_ms, const char *spooled,
		int64_t *us, int n)
{
	char t[16] = "-";

	if (timeout_ms)
		snprintf(t, sizeof(t), "%d", timeout_ms);
	qsort(us, n, sizeof(*us), cmp_i64);
	printf("%-15s %-11s %-9s %-5d %-10lld %lld\n", redis, t, spooled, n,
	       (long long)(n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2),
	       (long long)us[n - 1]);
	fflush(stdout);
}

static const char *const silent_name[] = {"silent-accept", "silent-connect"};
static const int timeouts[] = {QD_TIMEOUT_MS_DEFAULT, 100};

/* A free loopback port: nothing listens there, connections are refused. */
static int free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len))
		die("free port: %m");
	close(fd);
	return ntohs(a.sin_port);
}

/*
 * A loopback listener that never accepts, open until the benchmark exits. full:
 * its queue (backlog 0, one connection) is filled first, so the kernel drops
 * every further SYN and connect() never completes, as with a blackholed
 * address; otherwise the kernel completes connections and nobody ever reads
 * them.
 */
static int silent_port(bool full)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), filler;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len) ||
	    listen(fd, full ? 0 : 4096))
		die("silent listener: %m");
	if (full) {
		filler = socket(AF_INET, SOCK_STREAM, 0);
		if (filler < 0 ||
		    connect(filler, (struct sockaddr *)&a, sizeof(a)))
			die("filling the listener's queue: %m");
	}
	return ntohs(a.sin_port);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		die("writing %s: %m", path);
}

/* slurm.conf in dir, next to its qosdeny.conf, its SlurmdSpoolDir in dir:
 * the spool is dir/slurmd/qosdeny, on dir's filesystem. */
static void site(const char *dir)
{
	char path[PATH_MAX], spool[PATH_MAX], text[2 * PATH_MAX];

	snprintf(spool, sizeof(spool), "%s/slurmd", dir);
	if (mkdir(spool, 0755))
		die("mkdir %s: %m", spool);
	snprintf(text, sizeof(text), "ClusterName=bench\nSlurmdSpoolDir=%s\n",
		 spool);
	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	write_file(path, text);
	setenv("SLURM_CONF", path, 1);
}

static void epilog_cost(const char *addr)
{
	enum { UP, REFUSED, KEPT, CASES };
	static const int windows = 100;
	struct hook_case cases[CASES] = {
	    [UP] = {"up", "", 0, false, HOOK_RUNS, QD_REPORT_DONE,
		    "GPU-seconds) sent to"},
	    [REFUSED] = {"refused", "", 0, false, HOOK_RUNS, QD_REPORT_SPOOLED,
			 "Connection refused"},
	};
	int64_t *us = calloc(HOOK_RUNS, sizeof(*us)),
		*init_us = calloc(HOOK_RUNS, sizeof(*init_us));
	char spooled[32];

	if (!us || !init_us)
		die("out of memory");
	snprintf(cases[UP].addr, sizeof(cases[UP].addr), "%s", addr);
	snprintf(cases[REFUSED].addr, sizeof(cases[REFUSED].addr),
		 "127.0.0.1:%d", free_port());
	cases[KEPT] = cases[REFUSED];
	cases[KEPT].keep = true;
	printf("#\n# job epilog's reporting (qd_report_epilog), in process, "
	       "microseconds: close the\n# record the prolog opened, write it "
	       "over the open one (write, fsync,\n# rename), send it and the "
	       "rest of the spool.\n# redis: up; refused "
	       "(nothing listens on the port); silent-accept (the kernel\n# "
	       "completes the connection, nobody reads it); silent-connect "
	       "(SYNs dropped,\n# as by a blackholed address). timeout_ms: "
	       "the plugstack option, 500 (its\n# default) unless set. "
	       "spooled: closed records in the spool before the epilog,\n# "
	       "cleared after each run, or kept to grow (rows for the first "
	       "and last %d\n# runs of one sequence). reporter_init: "
	       "building the epilog's reporter.\n",
	       windows);
	printf("%-15s %-11s %-9s %-5s %-10s %s\n", "redis", "timeout_ms",
	       "spooled", "runs", "median_us", "max_us");
	run_hooks(&cases[UP], us, init_us);
	row("up", QD_TIMEOUT_MS_DEFAULT, "0", us, cases[UP].runs);
	run_hooks(&cases[REFUSED], us, NULL);
	row("refused", QD_TIMEOUT_MS_DEFAULT, "0", us, cases[REFUSED].runs);
	run_hooks(&cases[KEPT], us, NULL);
	snprintf(spooled, sizeof(spooled), "0-%d", windows - 1);
	row("refused", QD_TIMEOUT_MS_DEFAULT, spooled, us, windows);
	snprintf(spooled, sizeof(spooled), "%d-%d", cases[KEPT].runs - windows,
		 cases[KEPT].runs - 1);
	row("refused", QD_TIMEOUT_MS_DEFAULT, spooled,
	    us + cases[KEPT].runs - windows, windows);
	for (int full = 0; full < 2; full++)
		for (int t = 0; t < 2; t++) {
			struct hook_case hc = {
			    .redis = silent_name[full],
			    .timeout_ms = t ? 100 : 0, /* 0: the default */
			    .runs = SILENT_RUNS,
			    .result = QD_REPORT_SPOOLED,
			};
			snprintf(hc.addr, sizeof(hc.addr), "127.0.0.1:%d",
				 silent_port(full));
			snprintf(hc.want, sizeof(hc.want),
				 "timed out after %d ms", timeouts[t]);
			run_hooks(&hc, us, NULL);
			row(hc.redis, timeouts[t], "0", us, hc.runs);
		}
	row("reporter_init", 0, "-", init_us, cases[UP].runs);
	free(us);
	free(init_us);
}

/* The Redis part of a silent epilog alone: qd_redis_apply on a fresh
 * handle (connect, SCRIPT LOAD), as the replay makes its one attempt. */
static void attempt_cost(void)
{
	int64_t us[SILENT_RUNS];

	printf("#\n# one attempt alone: qd_redis_apply on a fresh handle "
	       "against the silent\n# listeners, microseconds\n");
	printf("%-15s %-11s %-9s %-5s %-10s %s\n", "redis", "timeout_ms",
	       "spooled", "runs", "median_us", "max_us");
	for (int full = 0; full < 2; full++)
		for (int t = 0; t < 2; t++) {
			char addr[64], err[QD_REDIS_ERR_MAX];
			struct qd_redis_config cfg = {
			    .addr = addr, .timeout_ms = timeouts[t]};
			struct qd_usage_record rec =
			    bench_record("bench", 1, 0, time(NULL));

			snprintf(addr, sizeof(addr), "127.0.0.1:%d",
				 silent_port(full));
			for (int i = 0; i < SILENT_RUNS; i++) {
				struct qd_redis *r =
				    qd_redis_new(&cfg, err, sizeof(err));
				int64_t t0 = now_us();
				int k;

				if (!r)
					die("%s", err);
				k = qd_redis_apply(r, &rec, HALF_LIFE_S, err,
						   sizeof(err));
				us[i] = now_us() - t0;
				qd_redis_free(r);
				if (k >= 0 || !strstr(err, "timed out after"))
					die("%s: %s", silent_name[full],
					    k >= 0 ? "answered" : err);
			}
			row(silent_name[full], timeouts[t], "-", us,
			    SILENT_RUNS);
		}
}

int main(int argc, char **argv)
{
	if (argc != 3)
		die("usage: bench_usage HOST:PORT DIR");
	records_per_second(argv[1]);
	site(argv[2]);
	epilog_cost(argv[1]);
	attempt_cost();
	return 0;
}
