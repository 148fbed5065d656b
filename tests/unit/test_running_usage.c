/* SPDX-License-Identifier: GPL-2.0-or-later
 * Running jobs' usage in Redis (running_usage.h) and fair share's usage
 * over several clusters (fairshare_usage.h), against a real redis-server
 * started by each test (test_redis_server.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <hiredis/hiredis.h>

#include "fairshare_usage.h"
#include "redis_usage.h"
#include "running_usage.h"
#include "contract_example.h"
#include "test_redis_server.h"
#include "usage_fixture.h"

/* Entries the readers skipped (qd_usage_skipped). */
static struct qd_usage_skipped skipped;

#define WEEK (7 * 86400)

static struct server srv;
static struct qd_redis *rd;
static char err[QD_REDIS_ERR_MAX];
static struct qd_fs_table fs;

/* What the handle warned, the last line. */
static char warned[QD_REDIS_ERR_MAX];

static void note_warning(const char *msg, void *arg)
{
	(void)arg;
	snprintf(warned, sizeof(warned), "%s", msg);
}

static void setup(void)
{
	memset(&srv, 0, sizeof(srv));
	memset(&fs, 0, sizeof(fs));
	rd = NULL;
	err[0] = warned[0] = '\0';
	start_fresh(&srv, NULL);
	{
		struct qd_redis_config cfg = {
		    .addr = srv.addr, .timeout_ms = 5000, .warn = note_warning};

		rd = qd_redis_new(&cfg, err, sizeof(err));
		cr_assert_not_null(rd, "%s", err);
	}
}

static void teardown(void)
{
	qd_fs_free(&fs);
	qd_redis_free(rd);
	server_cleanup(&srv);
}

TestSuite(running, .init = setup, .fini = teardown, .timeout = 60);
TestSuite(fs_usage, .init = setup, .fini = teardown, .timeout = 60);

#define cmd(...) admin_cmd(&srv, __VA_ARGS__)

static struct qd_running_job job(uint32_t id, const char *account,
				 const char *user, uint64_t gs, int64_t start)
{
	struct qd_running_job j = {
	    .job_id = id, .start = start, .gpu_seconds = gs};

	snprintf(j.account, sizeof(j.account), "%s", account);
	snprintf(j.user, sizeof(j.user), "%s", user);
	return j;
}

/* The server's clock around the last publish(), whole seconds: the SEEN
 * of the entries it wrote lies between. */
static long long pub_lo, pub_hi;

static long publish(const char *cluster, const struct qd_running_job *jobs,
		    size_t n)
{
	long k;

	pub_lo = (long long)admin_time(&srv);
	k = qd_redis_publish_running(rd, cluster, jobs, n, err, sizeof(err));
	pub_hi = (long long)admin_time(&srv);
	cr_assert_geq(k, 0, "%s", err);
	return k;
}

static long long integer(redisReply *r)
{
	long long v;

	cr_assert_eq(r->type, REDIS_REPLY_INTEGER, "reply type %d", r->type);
	v = r->integer;
	freeReplyObject(r);
	return v;
}

/* A hash field's value, "" when absent. */
static const char *hget(const char *key, const char *field)
{
	static char v[512];
	redisReply *r = cmd("HGET %s %s", key, field);

	v[0] = '\0';
	if (r->type == REDIS_REPLY_STRING)
		snprintf(v, sizeof(v), "%s", r->str);
	else
		cr_assert_eq(r->type, REDIS_REPLY_NIL);
	freeReplyObject(r);
	return v;
}

/* A sorted set member's score, -1 when absent. */
static double zscore(const char *key, const char *member)
{
	redisReply *r = cmd("ZSCORE %s %s", key, member);
	double v = r->type == REDIS_REPLY_STRING ? strtod(r->str, NULL) : -1;

	freeReplyObject(r);
	return v;
}

/* What qd_redis_read_running reports, in order of the calls. */
struct got {
	int calls;
	char account[16][QD_NAME_MAX];
	char user[16][QD_NAME_MAX];
	double usage[16];
	double sum;
	int stop_at; /* nonzero: the call that returns -1 */
};

static int collect(enum qd_usage_kind kind, const char *account,
		   const char *user, double usage, void *arg)
{
	struct got *g = arg;

	cr_expect_eq(kind, QD_USAGE_ASSOC);
	if (g->calls < 16) {
		snprintf(g->account[g->calls], QD_NAME_MAX, "%s", account);
		snprintf(g->user[g->calls], QD_NAME_MAX, "%s", user);
		g->usage[g->calls] = usage;
	}
	g->sum += usage;
	return ++g->calls == g->stop_at ? -1 : 0;
}

static struct got read_running(const char *cluster)
{
	struct got g = {0};

	cr_assert_eq(qd_redis_read_running(rd, cluster, collect, &g, &skipped,
					   err, sizeof(err)),
		     0, "%s", err);
	return g;
}

/* Index of (account, user) among the calls, -1 when not called. */
static int called(const struct got *g, const char *account, const char *user)
{
	for (int i = 0; i < g->calls && i < 16; i++)
		if (!strcmp(g->account[i], account) &&
		    !strcmp(g->user[i], user))
			return i;
	return -1;
}

static long long hlen(const char *key)
{
	return integer(cmd("HLEN %s", key));
}

/*
 * Job's entry in cluster's running set: want ("ACCOUNT USER GPU_SECONDS
 * START NODES") then SEEN, within [lo, hi]. Returns SEEN.
 */
static long long entry_seen(const char *cluster, const char *id,
			    const char *want, long long lo, long long hi)
{
	char key[256], v[512], *end;
	size_t n = strlen(want);
	long long seen;

	snprintf(key, sizeof(key), "qosdeny:{%s}:running", cluster);
	snprintf(v, sizeof(v), "%s", hget(key, id));
	cr_assert(!strncmp(v, want, n) && v[n] == ' ' && v[n + 1] >= '0' &&
		      v[n + 1] <= '9',
		  "job %s: '%s', want '%s SEEN'", id, v, want);
	seen = strtoll(v + n + 1, &end, 10);
	cr_assert(!*end && seen >= lo && seen <= hi,
		  "job %s: '%s': SEEN not in [%lld, %lld]", id, v, lo, hi);
	return seen;
}

/* Written afresh by the last publish(): SEEN is its time. */
static long long expect_fresh(const char *cluster, const char *id,
			      const char *want)
{
	return entry_seen(cluster, id, want, pub_lo, pub_hi);
}

/* An entry of cluster qd as a publication at seen would have left it. */
static void put_entry(const char *id, const char *entry, long long seen)
{
	char v[512];

	snprintf(v, sizeof(v), "%s %lld", entry, seen);
	freeReplyObject(cmd("HSET qosdeny:{qd}:running %s %s", id, v));
}

/* Job's entry of cluster qd, "" when absent, in buf. */
static const char *entry_of(const char *id, char *buf, size_t len)
{
	snprintf(buf, len, "%s", hget("qosdeny:{qd}:running", id));
	return buf;
}

Test(running, publish_then_read)
{
	struct qd_running_job jobs[] = {
	    job(101, "research", "alice", 7200, 1700000000),
	    job(102, "research", "bob", 0, 1700000100),
	    job(4294967295u, "batch", "charlie", UINT64_C(18446744073709551615),
		0),
	};
	struct got g;
	int i;

	/* NODES: 0 (not known) is published as 1. */
	jobs[1].nodes = 3;
	jobs[2].nodes = UINT32_MAX;
	cr_expect_eq(publish("qd", jobs, 3), 3);
	cr_expect_eq(hlen("qosdeny:{qd}:running"), 3);
	expect_fresh("qd", "101", "research alice 7200 1700000000 1");
	expect_fresh("qd", "102", "research bob 0 1700000100 3");
	/* GPU-seconds beyond 2^53 are published as 2^53: Redis's Lua counts
	 * in doubles. */
	expect_fresh("qd", "4294967295",
		     "batch charlie 9007199254740992 0 4294967295");
	g = read_running("qd");
	cr_assert_eq(g.calls, 3);
	i = called(&g, "research", "alice");
	cr_assert_geq(i, 0);
	cr_expect_float_eq(g.usage[i], 7200, 0);
	i = called(&g, "research", "bob");
	cr_assert_geq(i, 0);
	cr_expect_float_eq(g.usage[i], 0, 0);
	i = called(&g, "batch", "charlie");
	cr_assert_geq(i, 0);
	cr_expect_float_eq(g.usage[i], 9007199254740992.0, 0);
	/* Another cluster's are apart. */
	cr_expect_eq(read_running("other").calls, 0);
	cr_expect_eq(integer(cmd("EXISTS qosdeny:{other}:running")), 0);
}

/* The longest entry a publication writes is read back. */
Test(running, longest_entry_reads_back)
{
	struct qd_running_job a[1] = {{.job_id = UINT32_MAX,
				       .start = INT64_MAX,
				       .gpu_seconds = UINT64_MAX,
				       .nodes = UINT32_MAX}};
	char want[256];
	struct got g;

	memset(a[0].account, 'a', QD_NAME_MAX - 1);
	memset(a[0].user, 'u', QD_NAME_MAX - 1);
	cr_expect_eq(publish("qd", a, 1), 1);
	snprintf(want, sizeof(want),
		 "%s %s 9007199254740992 "
		 "9223372036854775807 4294967295",
		 a[0].account, a[0].user);
	expect_fresh("qd", "4294967295", want);
	g = read_running("qd");
	cr_assert_eq(g.calls, 1);
	cr_expect_str_eq(g.account[0], a[0].account);
	cr_expect_str_eq(g.user[0], a[0].user);
	cr_expect_float_eq(g.usage[0], 9007199254740992.0, 0);
}

/*
 * A publication writes the jobs it lists afresh; the entries of jobs it
 * no longer lists stay as they were (their records are still to come).
 */
Test(running, publication_rewrites_the_listed_jobs)
{
	struct qd_running_job a[] = {
	    job(1, "research", "alice", 10, 1000),
	    job(2, "research", "bob", 20, 1000),
	    job(3, "batch", "charlie", 30, 1000),
	};
	struct qd_running_job b[] = {
	    job(2, "research", "bob", 25, 1000),
	    job(4, "batch", "dave", 40, 1100),
	};
	char e1[256], e3[256], buf[256];
	struct got g;

	cr_expect_eq(publish("qd", a, 3), 3);
	entry_of("1", e1, sizeof(e1));
	entry_of("3", e3, sizeof(e3));
	expect_fresh("qd", "1", "research alice 10 1000 1");
	expect_fresh("qd", "3", "batch charlie 30 1000 1");
	cr_expect_eq(publish("qd", b, 2), 2, "the jobs written afresh");
	cr_expect_eq(hlen("qosdeny:{qd}:running"), 4);
	cr_expect_str_eq(entry_of("1", buf, sizeof(buf)), e1);
	cr_expect_str_eq(entry_of("3", buf, sizeof(buf)), e3);
	expect_fresh("qd", "2", "research bob 25 1000 1");
	expect_fresh("qd", "4", "batch dave 40 1100 1");
	g = read_running("qd");
	cr_expect_eq(g.calls, 4);
	cr_expect_float_eq(g.sum, 10 + 25 + 30 + 40, 0);
	cr_expect_geq(called(&g, "research", "alice"), 0);
	cr_expect_geq(called(&g, "batch", "dave"), 0);
}

/* No job running: the entries stay until their records come, or until
 * QD_RUNNING_KEEP_S after they were last seen; then the key goes. */
Test(running, publishing_no_jobs_keeps_the_entries)
{
	struct qd_running_job a[] = {job(1, "research", "alice", 10, 1000)};
	char e1[256], buf[256];
	struct got g;

	cr_expect_eq(publish("qd", a, 1), 1);
	entry_of("1", e1, sizeof(e1));
	cr_expect_eq(publish("qd", NULL, 0), 0);
	cr_expect_str_eq(entry_of("1", buf, sizeof(buf)), e1);
	g = read_running("qd");
	cr_expect_eq(g.calls, 1);
	cr_expect_float_eq(g.sum, 10, 0);
	put_entry("1", "research alice 10 1000 1",
		  (long long)admin_time(&srv) - QD_RUNNING_KEEP_S);
	cr_expect_eq(read_running("qd").calls, 0);
	cr_expect_eq(publish("qd", NULL, 0), 0);
	cr_expect_eq(integer(cmd("EXISTS qosdeny:{qd}:running")), 0);
	cr_expect_eq(read_running("qd").calls, 0);
}

/* Two jobs of one association are two calls; the caller adds them. */
Test(running, jobs_of_one_association)
{
	struct qd_running_job a[] = {
	    job(1, "research", "alice", 10, 1000),
	    job(2, "research", "alice", 32, 1000),
	};
	struct got g;

	cr_expect_eq(publish("qd", a, 2), 2);
	g = read_running("qd");
	cr_expect_eq(g.calls, 2);
	cr_expect_float_eq(g.sum, 42, 0);
	cr_expect_str_eq(g.account[0], "research");
	cr_expect_str_eq(g.user[1], "alice");
}

/*
 * Counted once: a job's record (its only node's) removes its running entry
 * and notes its end; a publication taken before the job ended (its run
 * started before that end) does not bring it back; a requeued run, started
 * after, is published again.
 */
Test(running, record_replaces_the_running_entry)
{
	time_t now = time(NULL);
	struct qd_usage_record r = test_record(42, 2, now - 3600, now);
	struct qd_running_job a[] = {
	    job(42, "research", "alice", 7000, now - 3600),
	    job(43, "research", "bob", 100, now - 50),
	};
	struct qd_running_job again[] = {
	    job(42, "research", "alice", 7200, now - 3600),
	    job(43, "research", "bob", 150, now - 50),
	};
	struct qd_running_job same_second[] = {
	    job(42, "research", "alice", 7200, now),
	};
	struct qd_running_job requeued[] = {
	    job(42, "research", "alice", 20, now + 10),
	};
	char id[16], want[128], e43[256], buf[256];
	struct got g;

	snprintf(id, sizeof(id), "%u", 42u);
	cr_expect_eq(publish("qd", a, 2), 2);
	entry_of("43", e43, sizeof(e43));
	cr_assert_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), 1, "%s",
		     err);
	cr_expect_str_eq(hget("qosdeny:{qd}:running", "42"), "");
	snprintf(want, sizeof(want), "research bob 100 %lld 1",
		 (long long)now - 50);
	expect_fresh("qd", "43", want);
	cr_expect_str_eq(entry_of("43", buf, sizeof(buf)), e43,
			 "another job's entry stays");
	cr_expect_float_eq(zscore("qosdeny:{qd}:ended", id), (double)now, 0);
	/* A snapshot from before the end: 42 stays out, 43 is updated. */
	cr_expect_eq(publish("qd", again, 2), 1);
	cr_expect_str_eq(hget("qosdeny:{qd}:running", "42"), "");
	cr_expect_eq(hlen("qosdeny:{qd}:running"), 1);
	snprintf(want, sizeof(want), "research bob 150 %lld 1",
		 (long long)now - 50);
	expect_fresh("qd", "43", want);
	entry_of("43", e43, sizeof(e43));
	g = read_running("qd");
	cr_expect_eq(g.calls, 1);
	cr_expect_float_eq(g.sum, 150, 0);
	/* A run that started the second the last one ended is not later (43,
	 * not listed, stays as it was). */
	cr_expect_eq(publish("qd", same_second, 1), 0);
	cr_expect_str_eq(hget("qosdeny:{qd}:running", "42"), "");
	cr_expect_eq(hlen("qosdeny:{qd}:running"), 1);
	cr_expect_str_eq(entry_of("43", buf, sizeof(buf)), e43);
	/* The requeued run is published. */
	cr_expect_eq(publish("qd", requeued, 1), 1);
	snprintf(want, sizeof(want), "research alice 20 %lld 1",
		 (long long)now + 10);
	expect_fresh("qd", "42", want);
	cr_expect_float_eq(zscore("qosdeny:{qd}:ended", id), (double)now, 0);
}

/* "ended" keeps the latest end of the job's records (one per node). */
Test(running, ended_keeps_the_latest_end)
{
	time_t now = time(NULL);
	struct qd_usage_record r = test_record(7, 1, now - 600, now - 100);
	struct qd_running_job a[] = {job(7, "research", "alice", 1, now - 150)};

	cr_assert_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), 1, "%s",
		     err);
	cr_expect_float_eq(zscore("qosdeny:{qd}:ended", "7"), now - 100, 0);
	r = test_record(7, 1, now - 600, now - 300);
	snprintf(r.node, sizeof(r.node), "n2");
	cr_assert_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), 1, "%s",
		     err);
	cr_expect_float_eq(zscore("qosdeny:{qd}:ended", "7"), now - 100, 0,
			   "an earlier end does not lower it");
	/* A run started between the two ends is still before the latest. */
	cr_expect_eq(publish("qd", a, 1), 0);
	r = test_record(7, 1, now - 600, now - 20);
	snprintf(r.node, sizeof(r.node), "n3");
	cr_assert_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), 1, "%s",
		     err);
	cr_expect_float_eq(zscore("qosdeny:{qd}:ended", "7"), now - 20, 0);
	/* The same record again counts once and changes nothing. */
	cr_assert_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), 0, "%s",
		     err);
	cr_expect_float_eq(zscore("qosdeny:{qd}:ended", "7"), now - 20, 0);
	cr_expect_eq(integer(cmd("ZCARD qosdeny:{qd}:ended")), 1);
}

/* A publication forgets ends older than QD_ENDED_KEEP_S. */
Test(running, publication_forgets_old_ends)
{
	double now = admin_time(&srv);
	struct qd_running_job a[] = {
	    job(5, "research", "alice", 1, 1000),
	    job(6, "research", "alice", 2, 1000),
	};

	freeReplyObject(cmd("ZADD qosdeny:{qd}:ended %f 5 %f 6",
			    now - QD_ENDED_KEEP_S - 100, now - 100));
	/* 5's end is forgotten only after the test: both stay out now. */
	cr_expect_eq(publish("qd", a, 2), 0);
	cr_expect_float_eq(zscore("qosdeny:{qd}:ended", "5"), -1, 0);
	cr_expect_float_eq(zscore("qosdeny:{qd}:ended", "6"), floor(now - 100),
			   1);
	cr_expect_eq(publish("qd", a, 2), 1);
	expect_fresh("qd", "5", "research alice 1 1000 1");
	cr_expect_str_eq(hget("qosdeny:{qd}:running", "6"), "");
}

/* Names that cannot stand in a key or an entry: refused, nothing written. */
Test(running, invalid_names_write_nothing)
{
	struct qd_running_job a[] = {job(1, "research", "alice", 10, 1000)};
	static const char *const bad[] = {"",	 "a b", "a:b",	"a{b",
					  "a}b", "a*",	"a\tb", "\xc3\xa9"};
	char want[256], longname[QD_NAME_MAX + 8], e1[256], buf[256];

	cr_expect_eq(publish("qd", a, 1), 1);
	expect_fresh("qd", "1", "research alice 10 1000 1");
	entry_of("1", e1, sizeof(e1));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct qd_running_job b[] = {
		    job(2, "research", "bob", 20, 1000),
		    job(3, "research", bad[i], 30, 1000),
		};

		cr_expect_eq(
		    qd_redis_publish_running(rd, "qd", b, 2, err, sizeof(err)),
		    -1, "user '%s' accepted", bad[i]);
		snprintf(want, sizeof(want),
			 "redis %s: publish: job 3: invalid name", srv.addr);
		cr_expect_str_eq(err, want);
		b[1] = job(3, bad[i], "bob", 30, 1000);
		cr_expect_eq(
		    qd_redis_publish_running(rd, "qd", b, 2, err, sizeof(err)),
		    -1, "account '%s' accepted", bad[i]);
		cr_expect_str_eq(err, want);
		cr_expect_eq(qd_redis_publish_running(rd, bad[i], a, 1, err,
						      sizeof(err)),
			     -1, "cluster '%s' accepted", bad[i]);
		snprintf(want, sizeof(want),
			 "redis %s: publish: invalid cluster name '%s'",
			 srv.addr, bad[i]);
		cr_expect_str_eq(err, want);
		cr_expect_eq(qd_redis_read_running(rd, bad[i], collect,
						   &(struct got){0}, &skipped,
						   err, sizeof(err)),
			     -1);
		snprintf(want, sizeof(want),
			 "redis %s: HGETALL: invalid cluster name '%s'",
			 srv.addr, bad[i]);
		cr_expect_str_eq(err, want);
	}
	/* 64 characters: one too many (the struct's own names cannot hold
	 * them, the cluster can). */
	memset(longname, 'c', QD_NAME_MAX);
	longname[QD_NAME_MAX] = '\0';
	cr_expect_eq(
	    qd_redis_publish_running(rd, longname, a, 1, err, sizeof(err)), -1);
	cr_expect(strstr(err, "invalid cluster name"), "%s", err);
	longname[QD_NAME_MAX - 1] = '\0';
	cr_expect_eq(publish(longname, a, 1), 1, "63 characters fit");
	/* A start the reader would refuse is refused here. */
	{
		struct qd_running_job b[] = {job(4, "research", "bob", 20, -1)};

		cr_expect_eq(
		    qd_redis_publish_running(rd, "qd", b, 1, err, sizeof(err)),
		    -1);
		snprintf(want, sizeof(want),
			 "redis %s: publish: job 4: start before 1970",
			 srv.addr);
		cr_expect_str_eq(err, want);
	}
	/* Nothing written by the refused publications. */
	cr_expect_eq(hlen("qosdeny:{qd}:running"), 1);
	cr_expect_str_eq(entry_of("1", buf, sizeof(buf)), e1);
	cr_expect_eq(integer(cmd("DBSIZE")), 2);
}

/* A damaged entry (anything a job reached may have written it) is skipped,
 * counted and named with the key and the job; the other entries are read. */
Test(running, damaged_entry_is_skipped)
{
	static const char *const bad[] = {
	    "garbage",
	    "research alice 10 1000",
	    "research alice 10 1000 1",
	    "research alice 10 1000 1 %lld extra",
	    "research alice x 1000 1 %lld",
	    "research alice -1 1000 1 %lld",
	    "research alice +1 1000 1 %lld",
	    "research alice 10 -5 1 %lld",
	    "research alice 10 1000x 1 %lld",
	    "research alice 1e3 1000 1 %lld",
	    "research alice 99999999999999999999 1000 1 %lld",
	    "research alice 10 99999999999999999999 1 %lld",
	    "research alice 10 1000 -1 %lld",
	    "research alice 10 1000 x %lld",
	    "research alice 10 1000 99999999999999999999 %lld",
	    "research alice 10 1000 1 -%lld",
	    "research alice 10 1000 1 %lld.5",
	    "research alice 10 1000 1 99999999999999999999",
	    "re:search alice 10 1000 1 %lld",
	    "research al{ice 10 1000 1 %lld",
	    "",
	};
	struct qd_running_job a[] = {job(1, "research", "alice", 10, 1000)};
	long long now = (long long)admin_time(&srv);
	char entry[256], name[QD_NAME_MAX];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct got g = {0};

		memset(&skipped, 0, sizeof(skipped));
		cr_expect_eq(publish("qd", a, 1), 1);
		snprintf(entry, sizeof(entry), bad[i], now);
		freeReplyObject(cmd("HSET qosdeny:{qd}:running 9 %s", entry));
		cr_expect_eq(qd_redis_read_running(rd, "qd", collect, &g,
						   &skipped, err, sizeof(err)),
			     0, "'%s': %s", entry, err);
		cr_expect_eq(g.calls, 1, "'%s': job 1 still read", entry);
		cr_expect_str_eq(g.user[0], "alice");
		cr_expect_eq(skipped.n, 1, "'%s'", entry);
		cr_expect_str_eq(skipped.first,
				 "qosdeny:{qd}:running: job 9: not a running "
				 "entry (ACCOUNT USER GPU_SECONDS START NODES "
				 "SEEN)",
				 "'%s'", entry);
	}
	/* Blanks around the fields are no damage; names of 63 are fine, one
	 * of 64 is not. */
	freeReplyObject(cmd("DEL qosdeny:{qd}:running"));
	snprintf(entry, sizeof(entry), " research  alice 10 1000  1 %lld ",
		 now);
	freeReplyObject(cmd("HSET qosdeny:{qd}:running 9 %s", entry));
	cr_expect_eq(read_running("qd").calls, 1);
	memset(name, 'n', QD_NAME_MAX - 1);
	name[QD_NAME_MAX - 1] = '\0';
	snprintf(entry, sizeof(entry), "%s %s 10 1000 1 %lld", name, name, now);
	freeReplyObject(cmd("HSET qosdeny:{qd}:running 9 %s", entry));
	cr_expect_eq(read_running("qd").calls, 1);
	snprintf(entry, sizeof(entry), "%sx alice 10 1000 1 %lld", name, now);
	freeReplyObject(cmd("HSET qosdeny:{qd}:running 9 %s", entry));
	memset(&skipped, 0, sizeof(skipped));
	cr_expect_eq(read_running("qd").calls, 0);
	cr_expect_eq(skipped.n, 1, "a name of 64");
}

/*
 * Keys of the wrong type (written by hand, or by a job where Redis has no
 * password) stop nothing: the readers skip them, naming the key; a record
 * is counted and leaves them alone, saying so; the next publication
 * replaces them, saying so.
 */
Test(running, wrong_key_types)
{
	struct qd_running_job a[] = {job(1, "research", "alice", 10, 1000)};
	time_t now = time(NULL);
	struct qd_usage_record r = test_record(1, 1, now - 10, now);
	struct qd_usage_record r2 = test_record(2, 1, now - 10, now);
	char want[256];
	redisReply *x;

	freeReplyObject(cmd("SET qosdeny:{qd}:running oops"));
	memset(&skipped, 0, sizeof(skipped));
	cr_expect_eq(qd_redis_read_running(rd, "qd", collect, &(struct got){0},
					   &skipped, err, sizeof(err)),
		     0, "%s", err);
	cr_expect_eq(skipped.n, 1);
	cr_expect(
	    !strncmp(skipped.first, "qosdeny:{qd}:running: WRONGTYPE", 31),
	    "%s", skipped.first);
	/* A record is counted, the key left alone (the server's first run
	 * of the script: an EVAL). */
	cr_expect_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), 1, "%s",
		     err);
	snprintf(want, sizeof(want),
		 "redis %s: qosdeny:{qd}:running holds a string, not a hash: "
		 "not updated (the site factor replaces it)",
		 srv.addr);
	cr_expect_str_eq(warned, want);
	x = cmd("GET qosdeny:{qd}:running");
	cr_expect_str_eq(x->str, "oops");
	freeReplyObject(x);
	cr_expect_geq(zscore("qosdeny:{qd}:ended", "1"), 0);
	/* The publication replaces it. */
	warned[0] = '\0';
	cr_expect_eq(publish("qd", a, 1), 0, "job 1's records arrived");
	snprintf(want, sizeof(want),
		 "redis %s: qosdeny:{qd}:running held a string, not a hash: "
		 "replaced",
		 srv.addr);
	cr_expect_str_eq(warned, want);
	cr_expect_eq(integer(cmd("EXISTS qosdeny:{qd}:running")), 0,
		     "job 1's entry is not written again");

	freeReplyObject(cmd("DEL qosdeny:{qd}:ended"));
	freeReplyObject(cmd("HSET qosdeny:{qd}:ended 1 2"));
	warned[0] = '\0';
	cr_expect_eq(qd_redis_apply(rd, &r2, WEEK, err, sizeof(err)), 1, "%s",
		     err);
	snprintf(want, sizeof(want),
		 "redis %s: qosdeny:{qd}:ended holds a hash, not a zset: not "
		 "updated (the site factor replaces it)",
		 srv.addr);
	cr_expect_str_eq(warned, want);
	cr_expect_str_eq(hget("qosdeny:{qd}:ended", "1"), "2");
	warned[0] = '\0';
	cr_expect_eq(publish("qd", a, 1), 1, "job 1 is running afresh");
	snprintf(want, sizeof(want),
		 "redis %s: qosdeny:{qd}:ended held a hash, not a zset: "
		 "replaced",
		 srv.addr);
	cr_expect_str_eq(warned, want);
	expect_fresh("qd", "1", "research alice 10 1000 1");
	/* Both of the right type again: nothing said. */
	warned[0] = '\0';
	cr_expect_eq(publish("qd", a, 1), 1);
	cr_expect_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), 0, "%s",
		     err);
	cr_expect_str_eq(warned, "");
}

/* The server lost the script (SCRIPT FLUSH, restart): EVAL, then cached. */
Test(running, noscript_fallback)
{
	struct qd_running_job a[] = {job(1, "research", "alice", 10, 1000)};
	struct qd_running_job b[] = {job(2, "research", "bob", 20, 1000)};
	redisReply *x;

	cr_expect_eq(publish("qd", a, 1), 1);
	freeReplyObject(cmd("SCRIPT FLUSH"));
	/* 1's entry stays (not listed), 2's is written. */
	cr_expect_eq(publish("qd", b, 1), 1);
	expect_fresh("qd", "2", "research bob 20 1000 1");
	cr_expect_eq(hlen("qosdeny:{qd}:running"), 2);
	x = cmd("INFO memory");
	cr_expect(strstr(x->str, "number_of_cached_scripts:1\r\n"),
		  "EVAL cached the script again");
	freeReplyObject(x);
	a[0].gpu_seconds = 15;
	cr_expect_eq(publish("qd", a, 1), 1);
	expect_fresh("qd", "1", "research alice 15 1000 1");
}

/* The two scripts side by side on one handle, one flushed between. */
Test(running, both_scripts_on_one_handle)
{
	time_t now = time(NULL);
	struct qd_usage_record r = test_record(3, 1, now - 10, now);
	struct qd_running_job a[] = {job(3, "research", "alice", 10, now - 10)};
	redisReply *x;

	cr_expect_eq(publish("qd", a, 1), 1);
	cr_expect_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), 1, "%s",
		     err);
	freeReplyObject(cmd("SCRIPT FLUSH"));
	r.job_id = 4;
	cr_expect_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), 1, "%s",
		     err);
	cr_expect_eq(publish("qd", a, 1), 0);
	x = cmd("INFO memory");
	cr_expect(strstr(x->str, "number_of_cached_scripts:2\r\n"), "%s",
		  strstr(x->str, "number_of_cached_scripts"));
	freeReplyObject(x);
}

static int sum_all(enum qd_usage_kind kind, const char *account,
		   const char *user, double usage, void *arg)
{
	char *seen = arg;
	int i;

	(void)kind;
	if (strcmp(account, "acct") || sscanf(user, "u%d", &i) != 1 || i < 0 ||
	    i >= 10000 || usage != (double)i * 3 || seen[i])
		return -1;
	seen[i] = 1;
	return 0;
}

/* 10,000 jobs in one publication, read back one by one. */
Test(running, ten_thousand_jobs)
{
	enum { N = 10000 };
	struct qd_running_job *a = calloc(N, sizeof(*a));
	char *seen = calloc(N, 1);
	char name[16];

	cr_assert(a && seen);
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "u%d", i);
		a[i] = job(1000000 + i, "acct", name, (uint64_t)i * 3,
			   1700000000 + i);
	}
	cr_expect_eq(publish("qd", a, N), N);
	cr_expect_eq(hlen("qosdeny:{qd}:running"), N);
	expect_fresh("qd", "1009999", "acct u9999 29997 1700009999 1");
	cr_assert_eq(qd_redis_read_running(rd, "qd", sum_all, seen, &skipped,
					   err, sizeof(err)),
		     0, "%s", err);
	for (int i = 0; i < N; i++)
		cr_expect(seen[i], "u%d not read", i);
	/* The others, no longer listed, stay. */
	cr_expect_eq(publish("qd", a + N - 1, 1), 1);
	cr_expect_eq(hlen("qosdeny:{qd}:running"), N);
	free(seen);
	free(a);
}

Test(running, caller_stops_the_reading)
{
	struct qd_running_job a[] = {
	    job(1, "research", "alice", 10, 1000),
	    job(2, "research", "bob", 20, 1000),
	};
	struct got g = {.stop_at = 1};
	char want[256];

	cr_expect_eq(publish("qd", a, 2), 2);
	cr_expect_eq(qd_redis_read_running(rd, "qd", collect, &g, &skipped, err,
					   sizeof(err)),
		     -1);
	cr_expect_eq(g.calls, 1);
	snprintf(want, sizeof(want), "redis %s: HGETALL: stopped by the caller",
		 srv.addr);
	cr_expect_str_eq(err, want);
}

/* Redis down: an error, not an empty set. */
Test(running, redis_down)
{
	struct qd_running_job a[] = {job(1, "research", "alice", 10, 1000)};
	char want[256];

	stop(&srv);
	cr_expect_eq(qd_redis_publish_running(rd, "qd", a, 1, err, sizeof(err)),
		     -1);
	snprintf(want, sizeof(want), "redis %s: ", srv.addr);
	cr_expect(!strncmp(err, want, strlen(want)), "%s", err);
	cr_expect(strstr(err, "Connection refused"), "%s", err);
	cr_expect_eq(qd_redis_read_running(rd, "qd", collect, &(struct got){0},
					   &skipped, err, sizeof(err)),
		     -1);
	cr_expect(strstr(err, "Connection refused"), "%s", err);
}

/*
 * qd_fs_read_usage: completed usage (decayed) plus running jobs', per
 * association and per account, summed over clusters.
 */

/* A usage hash as of an hour from now: read back undecayed, exactly. */
static void usage_key(const char *cluster, const char *account,
		      const char *user, double v)
{
	double t = admin_time(&srv) + 3600;

	if (user)
		freeReplyObject(
		    cmd("HSET qosdeny:{%s}:assoc:%s:%s v %.17g t %.6f", cluster,
			account, user, v, t));
	else
		freeReplyObject(
		    cmd("HSET qosdeny:{%s}:account:%s v %.17g t %.6f", cluster,
			account, v, t));
}

/*
 * docs/fair-share.md's example over two clusters: alice's 3600 on a (half of it
 * a running job), bob's 3600 and charlie's 1800 on b (charlie's all
 * running).
 */
static void contract_split(void)
{
	struct qd_running_job ra[] = {job(11, "research", "alice", 1000, 5),
				      job(12, "research", "alice", 800, 6)};
	struct qd_running_job rb[] = {job(21, "batch", "charlie", 1800, 5)};

	usage_key("a", "research", "alice", 1800);
	usage_key("a", "research", NULL, 1800);
	usage_key("b", "research", "bob", 3600);
	usage_key("b", "research", NULL, 3600);
	cr_assert_eq(publish("a", ra, 2), 2);
	cr_assert_eq(publish("b", rb, 1), 1);
}

static void share_row(const char *account, const char *user, uint32_t shares)
{
	struct qd_fs_row *r = qd_fs_add(&fs, account, user, NULL);

	cr_assert_not_null(r);
	r->raw_shares = shares;
}

/* Rows slurmdbd (or qosdeny.conf) gives for docs/fair-share.md's example. */
static void contract_rows(void)
{
	share_row("research", NULL, 500);
	share_row("batch", NULL, 100);
	share_row("research", "alice", 1);
	share_row("research", "bob", 1);
	share_row("batch", "charlie", 1);
}

static char *printed(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(qd_fs_compute(&fs), 0);
	cr_assert_eq(qd_fs_print(f, &fs, true), 0);
	fclose(f);
	return buf;
}

static void expect_table(const char *want)
{
	char *got = printed();

	cr_expect_str_eq(got, want);
	free(got);
}

static int read_usage(const char *const *clusters, size_t n, bool add)
{
	return qd_fs_read_usage(&fs, rd, clusters, n, WEEK, add, &skipped, err,
				sizeof(err));
}

static double usage_of(const char *account, const char *user)
{
	const struct qd_fs_row *r = qd_fs_find(&fs, account, user);

	cr_assert_not_null(r, "no row %s %s", account, user ? user : "");
	return r->usage;
}

Test(fs_usage, contract_example_over_two_clusters)
{
	static const char *const ab[] = {"a", "b"};

	contract_split();
	contract_rows();
	cr_assert_eq(read_usage(ab, 2, false), 0, "%s", err);
	cr_expect_eq(fs.n, 5);
	cr_expect_float_eq(usage_of("research", "alice"), 3600, 0);
	cr_expect_float_eq(usage_of("research", "bob"), 3600, 0);
	cr_expect_float_eq(usage_of("research", NULL), 7200, 0);
	cr_expect_float_eq(usage_of("batch", "charlie"), 1800, 0);
	cr_expect_float_eq(usage_of("batch", NULL), 1800, 0);
	expect_table(contract_table);
}

/* Without slurmdbd the rows come from the usage itself. */
Test(fs_usage, rows_from_the_usage)
{
	static const char *const ba[] = {"b", "a"};

	contract_split();
	cr_assert_eq(read_usage(ba, 2, true), 0, "%s", err);
	cr_expect_eq(fs.n, 5);
	qd_fs_find(&fs, "research", NULL)->raw_shares = 500;
	qd_fs_find(&fs, "batch", NULL)->raw_shares = 100;
	expect_table(contract_table);
}

Test(fs_usage, one_cluster_alone)
{
	static const char *const a[] = {"a"}, *const b[] = {"b"};

	contract_split();
	contract_rows();
	cr_assert_eq(read_usage(a, 1, false), 0, "%s", err);
	cr_expect_float_eq(usage_of("research", "alice"), 3600, 0);
	cr_expect_float_eq(usage_of("research", NULL), 3600, 0);
	cr_expect_float_eq(usage_of("research", "bob"), 0, 0);
	cr_expect_float_eq(usage_of("batch", NULL), 0, 0);
	cr_expect_float_eq(usage_of("batch", "charlie"), 0, 0);
	qd_fs_free(&fs);
	contract_rows();
	cr_assert_eq(read_usage(b, 1, false), 0, "%s", err);
	cr_expect_float_eq(usage_of("research", "alice"), 0, 0);
	cr_expect_float_eq(usage_of("research", NULL), 3600, 0);
	cr_expect_float_eq(usage_of("research", "bob"), 3600, 0);
	cr_expect_float_eq(usage_of("batch", NULL), 1800, 0);
	cr_expect_float_eq(usage_of("batch", "charlie"), 1800, 0);
}

/* A cluster without any data adds nothing, and is no error. */
Test(fs_usage, cluster_without_data)
{
	static const char *const abn[] = {"a", "nothing", "b"}, *const n[] = {
								    "nothing"};

	contract_split();
	contract_rows();
	cr_assert_eq(read_usage(abn, 3, false), 0, "%s", err);
	expect_table(contract_table);
	qd_fs_free(&fs);
	cr_assert_eq(read_usage(n, 1, true), 0, "%s", err);
	cr_expect_eq(fs.n, 0);
	contract_rows();
	cr_assert_eq(read_usage(n, 1, false), 0, "%s", err);
	cr_assert_eq(read_usage(NULL, 0, true), 0, "%s", err);
	cr_expect_eq(fs.n, 5);
	for (size_t i = 0; i < fs.n; i++)
		cr_expect_float_eq(fs.rows[i].usage, 0, 0);
}

/*
 * With slurmdbd's rows (add false), usage of an association without a row
 * (deleted) is left out; its account's own total still holds it, as the
 * account's usage hash does. Without (add true) it gets rows.
 */
Test(fs_usage, usage_without_a_row)
{
	static const char *const ab[] = {"a", "b"};
	struct qd_running_job rb[] = {job(21, "batch", "charlie", 1800, 5),
				      job(22, "research", "eve", 50, 5),
				      job(23, "extra", "dave", 70, 5)};

	contract_split();
	usage_key("b", "extra", "dave", 100);
	usage_key("b", "extra", NULL, 100);
	usage_key("a", "research", "eve", 25);
	usage_key("a", "research", NULL, 1825);
	cr_assert_eq(publish("b", rb, 3), 3);
	contract_rows();
	cr_assert_eq(read_usage(ab, 2, false), 0, "%s", err);
	cr_expect_eq(fs.n, 5);
	cr_expect_null(qd_fs_find(&fs, "research", "eve"));
	cr_expect_null(qd_fs_find(&fs, "extra", NULL));
	cr_expect_float_eq(usage_of("research", NULL), 7200 + 75, 0);
	cr_expect_float_eq(usage_of("research", "alice"), 3600, 0);

	qd_fs_free(&fs);
	contract_rows();
	cr_assert_eq(read_usage(ab, 2, true), 0, "%s", err);
	cr_expect_eq(fs.n, 8);
	cr_expect_float_eq(usage_of("research", "eve"), 75, 0);
	cr_expect_float_eq(usage_of("extra", "dave"), 170, 0);
	cr_expect_float_eq(usage_of("extra", NULL), 170, 0);
	cr_expect_float_eq(usage_of("research", NULL), 7275, 0);
	cr_expect_float_eq(usage_of("batch", NULL), 1800, 0);
	cr_expect_eq(qd_fs_find(&fs, "extra", NULL)->raw_shares, 1);
	cr_expect_eq(qd_fs_find(&fs, "research", NULL)->raw_shares, 500,
		     "an existing row keeps its shares");
}

/* Completed usage is decayed to now; running usage is not. */
Test(fs_usage, completed_decayed_running_not)
{
	static const char *const a[] = {"a"};
	struct qd_running_job ra[] = {job(11, "research", "alice", 1000, 5)};
	double now = admin_time(&srv);

	freeReplyObject(cmd("HSET qosdeny:{a}:assoc:research:alice v 4000 t "
			    "%.6f",
			    now - WEEK));
	freeReplyObject(
	    cmd("HSET qosdeny:{a}:account:research v 8000 t %.6f", now - WEEK));
	cr_assert_eq(publish("a", ra, 1), 1);
	cr_assert_eq(read_usage(a, 1, true), 0, "%s", err);
	cr_expect(fabs(usage_of("research", "alice") - 3000) < 0.01, "%f",
		  usage_of("research", "alice"));
	cr_expect(fabs(usage_of("research", NULL) - 5000) < 0.01, "%f",
		  usage_of("research", NULL));
}

/* Records applied under two cluster names, one job still running. */
Test(fs_usage, records_and_running_end_to_end)
{
	static const char *const ab[] = {"a", "b"};
	time_t now = time(NULL);
	struct qd_usage_record r = test_record(1, 1, now - 3600, now);
	struct qd_running_job rb[] = {
	    job(3, "batch", "charlie", 1800, now - 1800)};
	char *got;

	snprintf(r.cluster, sizeof(r.cluster), "a");
	cr_assert_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), 1, "%s",
		     err);
	r = test_record(2, 1, now - 3600, now);
	snprintf(r.cluster, sizeof(r.cluster), "b");
	snprintf(r.user, sizeof(r.user), "bob");
	cr_assert_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), 1, "%s",
		     err);
	cr_assert_eq(publish("b", rb, 1), 1);
	contract_rows();
	cr_assert_eq(read_usage(ab, 2, false), 0, "%s", err);
	got = printed();
	cr_expect_str_eq(got, contract_table);
	free(got);
	/* Charlie's job ends: its record replaces the running entry, and the
	 * total stays the same. */
	r = test_record(3, 1, now - 1800, now);
	snprintf(r.cluster, sizeof(r.cluster), "b");
	snprintf(r.user, sizeof(r.user), "charlie");
	snprintf(r.account, sizeof(r.account), "batch");
	cr_assert_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), 1, "%s",
		     err);
	cr_expect_eq(publish("b", rb, 1), 0, "the late snapshot is ignored");
	qd_fs_free(&fs);
	contract_rows();
	cr_assert_eq(read_usage(ab, 2, false), 0, "%s", err);
	got = printed();
	cr_expect_str_eq(got, contract_table);
	free(got);
}

Test(fs_usage, errors_name_the_cluster_or_key)
{
	static const char *const bad[] = {"a", "b{c"}, *const ab[] = {"a", "b"};
	char want[256];

	contract_split();
	contract_rows();
	cr_expect_eq(read_usage(bad, 2, false), -1);
	snprintf(want, sizeof(want),
		 "redis %s: SCAN: invalid cluster name 'b{c'", srv.addr);
	cr_expect_str_eq(err, want);
	/* Entries that cannot be read are skipped, named with their key, and
	 * the rest read: one cluster's, then the other's. */
	memset(&skipped, 0, sizeof(skipped));
	freeReplyObject(cmd("HSET qosdeny:{b}:running 99 nonsense"));
	freeReplyObject(cmd("HSET qosdeny:{a}:account:research v x t 1"));
	cr_expect_eq(read_usage(ab, 2, false), 0, "%s", err);
	cr_expect_eq(skipped.n, 2);
	cr_expect_str_eq(skipped.first, "qosdeny:{a}:account:research: not a "
					"usage hash (v, t)");
	/* What a job wrote is named on one printable line. */
	memset(&skipped, 0, sizeof(skipped));
	freeReplyObject(cmd("DEL qosdeny:{a}:account:research"));
	freeReplyObject(cmd("HDEL qosdeny:{b}:running 99"));
	freeReplyObject(cmd("HSET qosdeny:{b}:running %b nonsense",
			    "9\nerror: \x1b[2J", (size_t)14));
	cr_expect_eq(read_usage(ab, 2, false), 0, "%s", err);
	cr_expect(strstr(skipped.first, ": job 9?error: ?[2J: not a running "),
		  "%s", skipped.first);
}

/* Applying a record also forgets ends older than QD_ENDED_KEEP_S, so that
 * "ended" stays bounded on a cluster without the site factor (where no
 * publication ever trims it). */
Test(running, record_forgets_old_ends)
{
	double now = admin_time(&srv);
	time_t t = time(NULL);
	struct qd_usage_record r = test_record(8, 1, t - 10, t);

	freeReplyObject(cmd("ZADD qosdeny:{qd}:ended %f 5 %f 6",
			    now - QD_ENDED_KEEP_S - 100, now - 100));
	cr_assert_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), 1, "%s",
		     err);
	cr_expect_float_eq(zscore("qosdeny:{qd}:ended", "5"), -1, 0);
	cr_expect_float_eq(zscore("qosdeny:{qd}:ended", "6"), floor(now - 100),
			   1);
	cr_expect_float_eq(zscore("qosdeny:{qd}:ended", "8"), (double)t, 0);
	cr_expect_eq(integer(cmd("ZCARD qosdeny:{qd}:ended")), 2);
	/* A record that ended before that is counted, and not kept. */
	r = test_record(9, 1, t - QD_ENDED_KEEP_S - 500,
			t - QD_ENDED_KEEP_S - 200);
	cr_assert_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), 1, "%s",
		     err);
	cr_expect_float_eq(zscore("qosdeny:{qd}:ended", "9"), -1, 0);
	cr_expect_eq(integer(cmd("ZCARD qosdeny:{qd}:ended")), 2);
}

/*
 * Running usage and records, step by step. A half-life so long that no
 * decay shows within a test: the sums below are exact.
 */
#define NO_DECAY UINT64_C(10000000000000000000)

static int apply_now(const struct qd_usage_record *r)
{
	int rv = qd_redis_apply(rd, r, NO_DECAY, err, sizeof(err));

	cr_assert_geq(rv, 0, "%s", err);
	return rv;
}

static int add_assoc(enum qd_usage_kind kind, const char *account,
		     const char *user, double usage, void *arg)
{
	if (kind == QD_USAGE_ASSOC && !strcmp(account, "research") &&
	    !strcmp(user, "alice"))
		*(double *)arg += usage;
	return 0;
}

/* research/alice's completed usage on qd (the records applied). */
static double completed(void)
{
	double sum = 0;

	cr_assert_eq(qd_redis_read_usage(rd, "qd", NO_DECAY, add_assoc, &sum,
					 &skipped, err, sizeof(err)),
		     0, "%s", err);
	return sum;
}

/* Completed and running usage as fair share counts them: research/alice
 * on qd, both together. */
static double fair_share_usage(void)
{
	static const char *const qd[] = {"qd"};
	const struct qd_fs_row *row;
	double v;

	qd_fs_free(&fs);
	cr_assert_eq(qd_fs_read_usage(&fs, rd, qd, 1, NO_DECAY, true, &skipped,
				      err, sizeof(err)),
		     0, "%s", err);
	row = qd_fs_find(&fs, "research", "alice");
	v = row ? row->usage : 0;
	qd_fs_free(&fs);
	return v;
}

/* research/alice's completed and running usage, and their sum in fair
 * share. */
static void expect_usage(double done, double running)
{
	struct got g = read_running("qd");
	double sum = 0;

	cr_assert_leq(g.calls, 16);
	for (int i = 0; i < g.calls; i++)
		if (!strcmp(g.account[i], "research") &&
		    !strcmp(g.user[i], "alice"))
			sum += g.usage[i];
	cr_expect_float_eq(completed(), done, 0);
	cr_expect_float_eq(sum, running, 0);
	cr_expect_float_eq(fair_share_usage(), done + running, 0);
}

/*
 * A job on two nodes: each node's record takes its part off the running
 * entry, and the last one removes it. No GPU-second counted twice, none
 * missing in between: 200 running, then 90 done + 110 running, then the
 * records' 190.
 */
Test(running, two_node_job_counted_once)
{
	time_t now = time(NULL);
	struct qd_running_job a[] = {
	    job(50, "research", "alice", 200, now - 100)};
	struct qd_usage_record n1 = test_record(50, 1, now - 100, now - 10);
	struct qd_usage_record n2 = test_record(50, 1, now - 100, now);
	char want[128], buf[256];
	long long seen;

	snprintf(n2.node, sizeof(n2.node), "n2");
	cr_assert_eq(n1.mgpu_seconds, 90000);
	cr_assert_eq(n2.mgpu_seconds, 100000);
	a[0].nodes = 2;
	cr_expect_eq(publish("qd", a, 1), 1);
	snprintf(want, sizeof(want), "research alice 200 %lld 2",
		 (long long)now - 100);
	seen = expect_fresh("qd", "50", want);
	expect_usage(0, 200);

	cr_expect_eq(apply_now(&n1), 1);
	snprintf(want, sizeof(want), "research alice 110 %lld 1 %lld",
		 (long long)now - 100, seen);
	cr_expect_str_eq(entry_of("50", buf, sizeof(buf)), want);
	expect_usage(90, 110);
	/* The same record again: counted once, the entry as it was. */
	cr_expect_eq(apply_now(&n1), 0);
	cr_expect_str_eq(entry_of("50", buf, sizeof(buf)), want);
	expect_usage(90, 110);

	/* The last node's: the entry goes, though 10 of it were left. */
	cr_expect_eq(apply_now(&n2), 1);
	cr_expect_str_eq(entry_of("50", buf, sizeof(buf)), "");
	cr_expect_eq(integer(cmd("EXISTS qosdeny:{qd}:running")), 0);
	expect_usage(190, 0);
	cr_expect_float_eq(zscore("qosdeny:{qd}:ended", "50"), (double)now, 0);
	/* A snapshot still listing it (COMPLETING) brings nothing back. */
	a[0].gpu_seconds = 210;
	cr_expect_eq(publish("qd", a, 1), 0);
	expect_usage(190, 0);
}

/* The records cover the entry before all nodes' have come: it goes. */
Test(running, entry_gone_when_its_gpu_seconds_are_covered)
{
	time_t now = time(NULL);
	struct qd_running_job a[] = {
	    job(51, "research", "alice", 100, now - 100)};
	struct qd_usage_record n1 = test_record(51, 1, now - 100, now - 40);
	struct qd_usage_record n2 = test_record(51, 1, now - 100, now - 60);
	struct qd_usage_record n3 = test_record(51, 1, now - 100, now);
	char want[128], buf[256];
	long long seen;

	snprintf(n2.node, sizeof(n2.node), "n2");
	snprintf(n3.node, sizeof(n3.node), "n3");
	a[0].nodes = 3;
	cr_expect_eq(publish("qd", a, 1), 1);
	snprintf(want, sizeof(want), "research alice 100 %lld 3",
		 (long long)now - 100);
	seen = expect_fresh("qd", "51", want);
	cr_expect_eq(apply_now(&n1), 1);
	snprintf(want, sizeof(want), "research alice 40 %lld 2 %lld",
		 (long long)now - 100, seen);
	cr_expect_str_eq(entry_of("51", buf, sizeof(buf)), want);
	expect_usage(60, 40);
	/* 40 of 40: none left, one node still to come. */
	cr_expect_eq(apply_now(&n2), 1);
	cr_expect_str_eq(entry_of("51", buf, sizeof(buf)), "");
	expect_usage(100, 0);
	/* The third node's record finds no entry, and is counted. */
	cr_expect_eq(apply_now(&n3), 1);
	cr_expect_str_eq(entry_of("51", buf, sizeof(buf)), "");
	expect_usage(200, 0);
}

/*
 * A job that ended, no longer listed by slurmctld: its entry stays as it
 * was, SEEN included, until its record comes, then goes.
 */
Test(running, ended_job_kept_until_its_record)
{
	time_t now = time(NULL);
	long long snow = (long long)admin_time(&srv);
	struct qd_running_job a[] = {
	    job(60, "research", "alice", 500, now - 600),
	    job(61, "research", "bob", 30, now - 60),
	};
	struct qd_running_job b[] = {job(61, "research", "bob", 40, now - 60)};
	struct qd_usage_record r = test_record(60, 1, now - 600, now - 300);
	char e60[256], want[128], buf[256];
	struct got g;
	int i;

	cr_expect_eq(publish("qd", a, 2), 2);
	/* As if last seen an hour ago (the site factor was stopped a while):
	 * a publication that rewrote it would show. */
	snprintf(want, sizeof(want), "research alice 500 %lld 1",
		 (long long)now - 600);
	put_entry("60", want, snow - 3600);
	entry_of("60", e60, sizeof(e60));
	cr_expect_eq(publish("qd", b, 1), 1);
	cr_expect_str_eq(entry_of("60", buf, sizeof(buf)), e60);
	snprintf(want, sizeof(want), "research bob 40 %lld 1",
		 (long long)now - 60);
	expect_fresh("qd", "61", want);
	g = read_running("qd");
	cr_expect_eq(g.calls, 2);
	i = called(&g, "research", "alice");
	cr_assert_geq(i, 0);
	cr_expect_float_eq(g.usage[i], 500, 0);
	cr_expect_eq(publish("qd", b, 1), 1);
	cr_expect_str_eq(entry_of("60", buf, sizeof(buf)), e60);
	/* Its record (its only node's, 300 of the 500): gone. */
	cr_expect_eq(apply_now(&r), 1);
	cr_expect_str_eq(entry_of("60", buf, sizeof(buf)), "");
	cr_expect_eq(hlen("qosdeny:{qd}:running"), 1);
	g = read_running("qd");
	cr_expect_eq(g.calls, 1);
	cr_expect_float_eq(g.sum, 40, 0);
	expect_usage(300, 0);
	cr_expect_eq(publish("qd", b, 1), 1);
	cr_expect_str_eq(entry_of("60", buf, sizeof(buf)), "");
}

/*
 * Entries last seen QD_RUNNING_KEEP_S ago or more (left by a site factor
 * switched off): not counted, and dropped by the next publication; one
 * seen just inside the bound is kept and counted.
 */
Test(running, stale_entries_skipped_and_dropped)
{
	long long now = (long long)admin_time(&srv);
	struct qd_running_job a[] = {job(73, "research", "dave", 7, 1000)};
	char e72[256], buf[256];
	struct got g;

	put_entry("70", "research alice 100 1000 1", now - QD_RUNNING_KEEP_S);
	put_entry("71", "research bob 200 1000 1",
		  now - QD_RUNNING_KEEP_S - 5000);
	put_entry("72", "batch charlie 300 1000 2",
		  now - QD_RUNNING_KEEP_S + 30);
	entry_of("72", e72, sizeof(e72));
	g = read_running("qd");
	cr_expect_eq(g.calls, 1);
	cr_expect_str_eq(g.account[0], "batch");
	cr_expect_str_eq(g.user[0], "charlie");
	cr_expect_float_eq(g.sum, 300, 0);
	cr_expect_float_eq(fair_share_usage(), 0, 0, "alice's not counted");
	cr_expect_eq(hlen("qosdeny:{qd}:running"), 3, "reading drops none");
	cr_expect_eq(publish("qd", a, 1), 1);
	cr_expect_eq(hlen("qosdeny:{qd}:running"), 2);
	cr_expect_str_eq(entry_of("70", buf, sizeof(buf)), "");
	cr_expect_str_eq(entry_of("71", buf, sizeof(buf)), "");
	cr_expect_str_eq(entry_of("72", buf, sizeof(buf)), e72);
	expect_fresh("qd", "73", "research dave 7 1000 1");
	g = read_running("qd");
	cr_expect_eq(g.calls, 2);
	cr_expect_float_eq(g.sum, 307, 0);
}

/*
 * A job whose records have begun to come while slurmctld still lists it
 * (COMPLETING): the publication keeps its shrunk entry as it is, and does
 * not write the snapshot's larger value back (n1's part would count twice).
 */
Test(running, completing_job_keeps_its_shrunk_entry)
{
	time_t now = time(NULL);
	long long snow = (long long)admin_time(&srv);
	struct qd_running_job a[] = {
	    job(80, "research", "alice", 400, now - 200)};
	struct qd_usage_record n1 = test_record(80, 1, now - 200, now);
	struct qd_usage_record n2 = test_record(80, 1, now - 200, now);
	char want[128], buf[256];
	long long seen;

	snprintf(n2.node, sizeof(n2.node), "n2");
	a[0].nodes = 2;
	cr_expect_eq(publish("qd", a, 1), 1);
	snprintf(want, sizeof(want), "research alice 400 %lld 2",
		 (long long)now - 200);
	seen = expect_fresh("qd", "80", want);
	cr_expect_eq(apply_now(&n1), 1);
	snprintf(want, sizeof(want), "research alice 200 %lld 1 %lld",
		 (long long)now - 200, seen);
	cr_expect_str_eq(entry_of("80", buf, sizeof(buf)), want);
	a[0].gpu_seconds = 450;
	cr_expect_eq(publish("qd", a, 1), 0);
	cr_expect_str_eq(entry_of("80", buf, sizeof(buf)), want);
	expect_usage(200, 200);
	/* Kept as it is: SEEN too. */
	snprintf(want, sizeof(want), "research alice 200 %lld 1",
		 (long long)now - 200);
	put_entry("80", want, snow - 3600);
	entry_of("80", want, sizeof(want));
	cr_expect_eq(publish("qd", a, 1), 0);
	cr_expect_str_eq(entry_of("80", buf, sizeof(buf)), want);
	/* The last node's record: gone, and the snapshot does not bring it
	 * back. */
	cr_expect_eq(apply_now(&n2), 1);
	cr_expect_str_eq(entry_of("80", buf, sizeof(buf)), "");
	cr_expect_eq(publish("qd", a, 1), 0);
	cr_expect_str_eq(entry_of("80", buf, sizeof(buf)), "");
	expect_usage(400, 0);
}

/*
 * Requeued: the old run's record, coming after the new run was published
 * (it ended before the new run started), is counted and leaves the new
 * run's entry alone; the next publication still updates it; the new run's
 * own record removes it.
 */
Test(running, requeued_run_untouched_by_the_old_runs_record)
{
	time_t now = time(NULL);
	struct qd_running_job first[] = {
	    job(90, "research", "alice", 300, now - 1000)};
	struct qd_running_job second[] = {
	    job(90, "research", "alice", 50, now - 100)};
	struct qd_usage_record old = test_record(90, 1, now - 1000, now - 150);
	struct qd_usage_record new = test_record(90, 1, now - 100, now);
	char want[128], e90[256], buf[256];

	cr_expect_eq(publish("qd", first, 1), 1);
	cr_expect_eq(publish("qd", second, 1), 1);
	snprintf(want, sizeof(want), "research alice 50 %lld 1",
		 (long long)now - 100);
	expect_fresh("qd", "90", want);
	entry_of("90", e90, sizeof(e90));
	cr_expect_eq(apply_now(&old), 1);
	cr_expect_str_eq(entry_of("90", buf, sizeof(buf)), e90);
	cr_expect_float_eq(zscore("qosdeny:{qd}:ended", "90"), now - 150, 0);
	expect_usage(850, 50);
	second[0].gpu_seconds = 80;
	cr_expect_eq(publish("qd", second, 1), 1);
	snprintf(want, sizeof(want), "research alice 80 %lld 1",
		 (long long)now - 100);
	expect_fresh("qd", "90", want);
	expect_usage(850, 80);
	cr_expect_eq(apply_now(&new), 1);
	cr_expect_str_eq(entry_of("90", buf, sizeof(buf)), "");
	expect_usage(950, 0);
	cr_expect_eq(publish("qd", second, 1), 0);
	cr_expect_str_eq(entry_of("90", buf, sizeof(buf)), "");
}

/* A malformed running entry: apply leaves it as it is, and still counts
 * the record and notes its end. */
Test(running, apply_leaves_a_malformed_entry_alone)
{
	static const char *const bad[] = {
	    "garbage",
	    "research alice 10 1000",
	    "research alice x 1000 1 5",
	    "research alice 10 1000 1 5 extra",
	    "research alice 10 1000 1",
	};
	time_t now = time(NULL);
	char buf[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct qd_usage_record r =
		    test_record(95, 1, now - 100, now - 50 + (int64_t)i);

		snprintf(r.node, sizeof(r.node), "n%zu", i);
		freeReplyObject(cmd("HSET qosdeny:{qd}:running 95 %s", bad[i]));
		cr_expect_eq(apply_now(&r), 1, "'%s'", bad[i]);
		cr_expect_str_eq(entry_of("95", buf, sizeof(buf)), bad[i]);
		cr_expect_float_eq(completed(), 50 + 51 * i + i * (i - 1) / 2.0,
				   0, "'%s'", bad[i]);
		cr_expect_float_eq(zscore("qosdeny:{qd}:ended", "95"),
				   now - 50 + (double)i, 0);
	}
}
