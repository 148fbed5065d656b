/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_redis_* against a real redis-server started by each test
 * (test_redis_server.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <hiredis/hiredis.h>

#include "fairshare_usage.h"
#include "now_ms.h"
#include "redis_conn.h" /* qd_redis_time_parse */
#include "redis_usage.h"
#include "spool.h"
#include "test_redis_server.h"
#include "usage_fixture.h"

/* Entries the readers skipped (qd_usage_skipped). */
static struct qd_usage_skipped skipped;

#define WEEK (7 * 86400)

static struct server srv;
static struct qd_redis *rd;
static char err[QD_REDIS_ERR_MAX];

static struct qd_redis *handle(const char *addr, const char *password_file,
			       int timeout_ms)
{
	struct qd_redis_config cfg = {.addr = addr,
				      .password_file = password_file,
				      .timeout_ms = timeout_ms};
	struct qd_redis *r = qd_redis_new(&cfg, err, sizeof(err));

	cr_assert_not_null(r, "%s", err);
	return r;
}

static void setup(void)
{
	memset(&srv, 0, sizeof(srv));
	rd = NULL;
	err[0] = '\0';
}

static void teardown(void)
{
	qd_redis_free(rd);
	server_cleanup(&srv);
}

TestSuite(redis, .init = setup, .fini = teardown, .timeout = 60);

/* A plain server and a handle on it. */
static void plain(void)
{
	start_fresh(&srv, NULL);
	rd = handle(srv.addr, NULL, 2000);
}

static struct qd_usage_record rec(uint32_t job, uint32_t gpus, int64_t start,
				  int64_t end)
{
	return test_record(job, gpus, start, end);
}

static int apply(const struct qd_usage_record *r)
{
	int k = qd_redis_apply(rd, r, WEEK, err, sizeof(err));

	cr_assert_geq(k, 0, "%s", err);
	return k;
}

#define cmd(...) admin_cmd(&srv, __VA_ARGS__)

/* A usage hash's v, as stored (not decayed to now). */
static double stored(const char *key)
{
	redisReply *r = cmd("HGET %s v", key);
	double v = r->type == REDIS_REPLY_STRING ? strtod(r->str, NULL) : -1;

	freeReplyObject(r);
	return v;
}

static void set_usage(const char *key, double v, double t)
{
	freeReplyObject(cmd("HSET %s v %.17g t %.6f", key, v, t));
}

#define NEAR(x, want) (fabs((x) - (want)) <= fabs((double)(want)) * 0.001)

Test(redis, apply_twice_counts_once)
{
	time_t now = time(NULL);
	struct qd_usage_record r = rec(42, 2, now - 3600, now);

	plain();
	cr_expect_eq(apply(&r), 1);
	cr_expect_eq(apply(&r), 0, "the same record counts once");
	cr_expect(NEAR(stored("qosdeny:{qd}:account:research"), 7200), "%f",
		  stored("qosdeny:{qd}:account:research"));
}

/* One record updates its user, account, user in account and QoS; its id
 * key holds the record and expires after 90 days. */
Test(redis, keys_updated)
{
	time_t now = time(NULL);
	struct qd_usage_record r = rec(42, 2, now - 100, now);
	char text[QD_RECORD_MAX];
	redisReply *x;

	plain();
	apply(&r);
	cr_expect(NEAR(stored("qosdeny:{qd}:user:alice"), 200));
	cr_expect(NEAR(stored("qosdeny:{qd}:account:research"), 200));
	cr_expect(NEAR(stored("qosdeny:{qd}:assoc:research:alice"), 200));
	cr_expect(NEAR(stored("qosdeny:{qd}:qos:normal"), 200));
	x = cmd("GET qosdeny:{qd}:rec:42:n1:%lld", (long long)r.start);
	cr_assert_eq(x->type, REDIS_REPLY_STRING);
	qd_usage_record_encode(&r, text, sizeof(text), err, sizeof(err));
	cr_expect_str_eq(x->str, text);
	freeReplyObject(x);
	x = cmd("TTL qosdeny:{qd}:rec:42:n1:%lld", (long long)r.start);
	cr_expect(x->integer > QD_RECORD_ID_TTL_S - 60 &&
		      x->integer <= QD_RECORD_ID_TTL_S,
		  "%lld", x->integer);
	freeReplyObject(x);
}

/* A requeued job keeps its id but runs again: a new start, a new record. */
Test(redis, requeued_job_counts_again)
{
	time_t now = time(NULL);
	struct qd_usage_record a = rec(42, 1, now - 500, now - 400),
			       b = rec(42, 1, now - 300, now);

	plain();
	cr_expect_eq(apply(&a), 1);
	cr_expect_eq(apply(&b), 1);
	cr_expect(NEAR(stored("qosdeny:{qd}:user:alice"), 400), "%f",
		  stored("qosdeny:{qd}:user:alice"));
}

/* Stored usage decays on update: one half-life later it is half. */
Test(redis, decay_on_update)
{
	time_t now = time(NULL);
	struct qd_usage_record zero = rec(1, 0, now - 10, now);

	plain();
	set_usage("qosdeny:{qd}:account:research", 1000,
		  admin_time(&srv) - WEEK);
	cr_expect_eq(apply(&zero), 1);
	cr_expect(NEAR(stored("qosdeny:{qd}:account:research"), 500), "%f",
		  stored("qosdeny:{qd}:account:research"));
	cr_expect_eq(stored("qosdeny:{qd}:user:alice"), 0);
}

/* A record sent a half-life after its end adds half: as if sent on time. */
Test(redis, late_record_decayed_from_its_end)
{
	time_t now = time(NULL);
	struct qd_usage_record late = rec(1, 1, now - WEEK - 3600, now - WEEK);

	plain();
	cr_expect_eq(apply(&late), 1);
	cr_expect(NEAR(stored("qosdeny:{qd}:account:research"), 1800), "%f",
		  stored("qosdeny:{qd}:account:research"));
}

struct seen {
	double account[4], assoc[4];
	int calls;
	char names[2600];
};

static int collect(enum qd_usage_kind kind, const char *account,
		   const char *user, double usage, void *arg)
{
	struct seen *s = arg;
	int i = !strcmp(account, "research") ? 0 : 1;

	s->calls++;
	if (kind == QD_USAGE_ACCOUNT) {
		cr_expect_str_eq(user, "");
		s->account[i] = usage;
	} else {
		s->assoc[!strcmp(user, "alice") ? i : 2] = usage;
	}
	return 0;
}

/* Usage is read decayed to the server's now; other clusters' keys and keys
 * that are not usage hashes are left alone. */
Test(redis, read_usage_decayed)
{
	struct seen s = {0};
	double now;

	plain();
	now = admin_time(&srv);
	set_usage("qosdeny:{qd}:account:research", 7200, now - WEEK);
	set_usage("qosdeny:{qd}:assoc:research:alice", 3600, now - WEEK);
	set_usage("qosdeny:{qd}:account:batch", 100, now);
	set_usage("qosdeny:{other}:account:research", 5, now);
	set_usage("qosdeny:{qd}:user:alice", 5, now);
	freeReplyObject(cmd("SET qosdeny:{qd}:abc x"));
	cr_assert_eq(qd_redis_read_usage(rd, "qd", WEEK, collect, &s, &skipped,
					 err, sizeof(err)),
		     0, "%s", err);
	cr_expect_eq(s.calls, 3);
	cr_expect(NEAR(s.account[0], 3600), "%f", s.account[0]);
	cr_expect(NEAR(s.assoc[0], 1800), "%f", s.assoc[0]);
	cr_expect(NEAR(s.account[1], 100), "%f", s.account[1]);
}

/*
 * A record without an account (Slurm without accounting): counted once,
 * under its user and an account with an empty name, which `qosdeny share`
 * reads back as the rows "" and "" / alice, the only usage there is.
 */
Test(redis, empty_account_counts_once_under_the_user)
{
	time_t now = time(NULL);
	struct qd_usage_record r = rec(42, 2, now - 100, now);
	const char *clusters[] = {"qd"};
	struct qd_fs_table t = {0};
	struct qd_fs_row *row;

	plain();
	r.account[0] = '\0';
	cr_expect_eq(apply(&r), 1);
	cr_expect_eq(apply(&r), 0, "the same record counts once");
	cr_expect(NEAR(stored("qosdeny:{qd}:user:alice"), 200));
	cr_expect(NEAR(stored("qosdeny:{qd}:account:"), 200));
	cr_expect(NEAR(stored("qosdeny:{qd}:assoc::alice"), 200));
	cr_assert_eq(qd_fs_read_usage(&t, rd, clusters, 1, WEEK, true, &skipped,
				      err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(qd_fs_compute(&t), 0);
	cr_expect_eq(t.n, 2);
	row = qd_fs_find(&t, "", "alice");
	cr_assert_not_null(row);
	cr_expect(NEAR(row->raw_usage, 200), "%f", row->raw_usage);
	cr_expect_eq(row->effectv_usage, 1.0);
	row = qd_fs_find(&t, "", NULL);
	cr_assert_not_null(row);
	cr_expect(NEAR(row->raw_usage, 200), "%f", row->raw_usage);
	cr_expect_eq(row->depth, 0, "directly below root");
	qd_fs_free(&t);
}

/* A value that is not a usage hash (anything a job reached may have
 * written it) is skipped, counted and named, never read as a zero; the
 * other keys are read all the same. */
Test(redis, read_usage_skips_garbage_values)
{
	time_t now = time(NULL);
	struct seen s = {0};

	plain();
	set_usage("qosdeny:{qd}:account:batch", 100, (double)now);
	freeReplyObject(cmd("HSET qosdeny:{qd}:account:research v abc t 1"));
	freeReplyObject(cmd("SET qosdeny:{qd}:assoc:research:alice 5"));
	/* Named as no record names a key: counted too. Another tool's key
	 * under the prefix is not qosdeny's to count. */
	set_usage("qosdeny:{qd}:assoc:no-user-here", 100, (double)now);
	set_usage("qosdeny:{qd}:account:a b", 100, (double)now);
	set_usage("qosdeny:{qd}:archive", 100, (double)now);
	memset(&skipped, 0, sizeof(skipped));
	cr_expect_eq(qd_redis_read_usage(rd, "qd", WEEK, collect, &s, &skipped,
					 err, sizeof(err)),
		     0, "%s", err);
	cr_expect_eq(s.calls, 1, "batch's usage is read");
	cr_expect_eq(skipped.n, 4);
	cr_expect(strstr(skipped.first, "qosdeny:{qd}:a") &&
		      (strstr(skipped.first, ": not a usage hash (v, t)") ||
		       strstr(skipped.first, ": WRONGTYPE") ||
		       strstr(skipped.first, ": not a usage key's name")),
		  "%s", skipped.first);
}

static int count_users(enum qd_usage_kind kind, const char *account,
		       const char *user, double usage, void *arg)
{
	char *seen = arg;
	int i;

	(void)account;
	if (kind != QD_USAGE_ASSOC || sscanf(user, "u%d", &i) != 1 || i < 0 ||
	    i >= 2500 || fabs(usage - i) > 1e-6 * (i + 1.0))
		return -1;
	seen[i] = 1;
	return 0;
}

/* More keys than one SCAN batch: the cursor is followed to the end. */
Test(redis, read_usage_many_keys)
{
	char seen[2500] = {0};
	redisContext *c;
	double now;

	plain();
	now = admin_time(&srv);
	c = admin(&srv);
	for (int i = 0; i < 2500; i++)
		redisAppendCommand(c, "HSET qosdeny:{qd}:assoc:a:u%d v %d t %f",
				   i, i, now);
	for (int i = 0; i < 2500; i++) {
		void *reply;

		cr_assert_eq(redisGetReply(c, &reply), REDIS_OK);
		freeReplyObject(reply);
	}
	redisFree(c);
	cr_assert_eq(qd_redis_read_usage(rd, "qd", WEEK, count_users, seen,
					 &skipped, err, sizeof(err)),
		     0, "%s", err);
	for (int i = 0; i < 2500; i++)
		cr_expect(seen[i], "u%d not read", i);
}

/* A server's cached script is run by its SHA, which the handle computes:
 * no SCRIPT LOAD, and EVAL only when the server does not have it yet. A
 * wrong SHA would make every run an EVAL. */
Test(redis, evalsha_without_script_load)
{
	time_t now = time(NULL);
	struct qd_usage_record a = rec(1, 1, now - 10, now),
			       b = rec(2, 1, now - 10, now);
	redisReply *x;

	plain();
	cr_expect_eq(apply(&a), 1);
	qd_redis_free(rd);
	rd = handle(srv.addr, NULL, 2000);
	cr_expect_eq(apply(&b), 1);
	x = cmd("INFO commandstats");
	cr_expect(!strstr(x->str, "cmdstat_script"), "%s", x->str);
	cr_expect(strstr(x->str, "cmdstat_evalsha:calls=2,"), "%s", x->str);
	cr_expect(strstr(x->str, "cmdstat_eval:calls=1,"), "%s", x->str);
	freeReplyObject(x);
}

/* The server lost the script (SCRIPT FLUSH, restart): EVAL, then cached. */
Test(redis, noscript_fallback)
{
	time_t now = time(NULL);
	struct qd_usage_record a = rec(1, 1, now - 10, now),
			       b = rec(2, 1, now - 10, now);
	redisReply *x;

	plain();
	cr_expect_eq(apply(&a), 1);
	freeReplyObject(cmd("SCRIPT FLUSH"));
	cr_expect_eq(apply(&b), 1);
	cr_expect_eq(apply(&b), 0);
	cr_expect(NEAR(stored("qosdeny:{qd}:account:research"), 20));
	x = cmd("INFO memory");
	cr_expect(strstr(x->str, "number_of_cached_scripts:1\r\n"),
		  "EVAL cached the script again");
	freeReplyObject(x);
}

/* A script cannot be rolled back: a damaged usage hash is found before
 * anything is written, so the record is not marked counted; it is refused
 * alone (QD_REDIS_DAMAGED), the next record may be counted. */
Test(redis, wrong_type_leaves_record_unapplied)
{
	time_t now = time(NULL);
	struct qd_usage_record r = rec(1, 1, now - 10, now);
	redisReply *x;
	char want[256];

	plain();
	freeReplyObject(cmd("SET qosdeny:{qd}:account:research oops"));
	cr_expect_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)),
		     QD_REDIS_DAMAGED);
	/* The server's first run of the script is an EVAL (NOSCRIPT). */
	snprintf(want, sizeof(want),
		 "redis %s: EVAL: qosdeny: damaged: "
		 "qosdeny:{qd}:account:research holds a string, not a hash",
		 srv.addr);
	cr_expect(!strncmp(err, want, strlen(want)), "%s", err);
	x = cmd("EXISTS qosdeny:{qd}:rec:1:n1:%lld", (long long)r.start);
	cr_expect_eq(x->integer, 0);
	freeReplyObject(x);
	freeReplyObject(cmd("DEL qosdeny:{qd}:account:research"));
	freeReplyObject(cmd("HSET qosdeny:{qd}:user:alice v x t 1"));
	cr_expect_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)),
		     QD_REDIS_DAMAGED);
	snprintf(want, sizeof(want),
		 "redis %s: EVALSHA: qosdeny: damaged: qosdeny:{qd}:user:alice "
		 "is not a usage hash (v, t)",
		 srv.addr);
	cr_expect(!strncmp(err, want, strlen(want)), "%s", err);
	freeReplyObject(cmd("DEL qosdeny:{qd}:user:alice"));
	cr_expect_eq(apply(&r), 1);
}

/* value as a usage hash's v: a record of job j onto alice's gives
 * applied; the keys read then call collect calls times and skip skips. */
static void usage_value(const char *value, uint32_t j, int applied, int calls,
			size_t skips)
{
	time_t now = time(NULL);
	struct qd_usage_record r = rec(j, 1, now - 10, now);
	struct seen s = {0};

	freeReplyObject(cmd("HSET qosdeny:{qd}:user:alice v %s t 1", value));
	cr_expect_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), applied,
		     "v '%s': %s", value, err);
	freeReplyObject(cmd("HSET qosdeny:{qd}:account:research v %s t %lld",
			    value, (long long)now));
	memset(&skipped, 0, sizeof(skipped));
	cr_expect_eq(qd_redis_read_usage(rd, "qd", WEEK, collect, &s, &skipped,
					 err, sizeof(err)),
		     0, "%s", err);
	cr_expect(s.calls == calls && skipped.n == skips,
		  "v '%s': %d read, %zu skipped", value, s.calls, skipped.n);
	freeReplyObject(cmd("DEL qosdeny:{qd}:user:alice "
			    "qosdeny:{qd}:account:research"));
}

/* What Lua's tonumber takes and a reader does not (a sign, blanks, hex,
 * inf, nan, an overflow) is a damaged value to the script too: the readers
 * and the script agree on what a usage hash holds, so no record lands on a
 * value share and the site factor then skip for ever. */
Test(redis, script_and_readers_take_the_same_numbers)
{
	static const char *bad[] = {"-1", "inf",   "nan",  "0x10", " 5",
				    "5 ", "1e999", "1.5e", ".5",   ""};
	static const char *good[] = {"0",
				     "12.5",
				     "7.",
				     "1e-400",
				     "4.9406564584124654e-324",
				     "1.2345678901234567e+20"};
	uint32_t job = 1;

	plain();
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		usage_value(bad[i], job++, QD_REDIS_DAMAGED, 0, 1);
	/* The record wrote its account's and association's keys. */
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		usage_value(good[i], job++, 1, 2, 0);
}

Test(redis, number_parse_is_all_or_nothing)
{
	double v = -1;

	cr_expect_eq(qd_usage_number_parse("12.5", 4, &v), 0);
	cr_expect_eq(v, 12.5);
	/* A NUL inside: what follows it is not ignored. */
	cr_expect_eq(qd_usage_number_parse("5\0009", 3, &v), -1);
	cr_expect_eq(qd_usage_number_parse("5e", 2, &v), -1);
	cr_expect_eq(qd_usage_number_parse("", 0, &v), -1);
	cr_expect_eq(v, 12.5, "untouched when refused");
}

Test(redis, refuses_open_record)
{
	struct qd_usage_record r = rec(1, 1, 1700000000, 1700000001);
	char want[256];

	rd = handle("127.0.0.1:1", NULL, 100);
	r.end = 0;
	r.mgpu_seconds = 0;
	cr_expect_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), -1);
	snprintf(want, sizeof(want),
		 "redis 127.0.0.1:1: apply: record of job "
		 "1 on n1 is still open");
	cr_expect_str_eq(err, want);
}

/* Writes a password file with the given text, owner and mode. */
static const char *password_file(const char *text, uid_t uid, mode_t mode)
{
	static char path[160];
	FILE *f;

	server_dir(&srv);
	snprintf(path, sizeof(path), "%s/pass", srv.dir);
	unlink(path);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	cr_assert_eq(chmod(path, mode), 0);
	cr_assert_eq(chown(path, uid, 0), 0);
	return path;
}

static const char *const requirepass[] = {"--requirepass", "s3cret", NULL};

Test(redis, auth_with_password)
{
	time_t now = time(NULL);
	struct qd_usage_record r = rec(1, 1, now - 10, now);

	srv.password = "s3cret";
	start_fresh(&srv, requirepass);
	rd = handle(srv.addr, password_file("s3cret\n", 0, 0640), 2000);
	cr_expect_eq(apply(&r), 1);
}

/* Whether any job could write the store: a server without a password
 * answers a client without one; one with a password, or none at all,
 * does not count as open. */
Test(redis, open_to_anyone)
{
	struct qd_redis_config cfg = {.timeout_ms = 2000};

	start_fresh(&srv, NULL);
	cfg.addr = srv.addr;
	cr_expect(qd_redis_open_to_anyone(&cfg), "no requirepass");
	server_cleanup(&srv);
	memset(&srv, 0, sizeof(srv));
	srv.password = "s3cret";
	start_fresh(&srv, requirepass);
	cfg.addr = srv.addr;
	cfg.password_file = password_file("s3cret\n", 0, 0600);
	cr_expect_not(qd_redis_open_to_anyone(&cfg), "requirepass");
	cfg.addr = "127.0.0.1:1";
	cr_expect_not(qd_redis_open_to_anyone(&cfg), "nobody there");
}

/* Two lines: an ACL user and its password. */
Test(redis, auth_with_acl_user)
{
	static const char *const acl[] = {"--user", "qd", "on",	   ">pw",
					  "~*",	    "&*", "+@all", NULL};
	time_t now = time(NULL);
	struct qd_usage_record r = rec(1, 1, now - 10, now);
	char want[256];

	start_fresh(&srv, acl);
	rd = handle(srv.addr, password_file("qd\npw\n", 0, 0600), 2000);
	cr_expect_eq(apply(&r), 1);
	qd_redis_free(rd);
	rd = handle(srv.addr, password_file("qd\r\nwrong\r\n", 0, 0600), 2000);
	cr_expect_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), -1);
	snprintf(want, sizeof(want),
		 "redis %s: AUTH: WRONGPASS invalid username-password pair or "
		 "user is disabled.",
		 srv.addr);
	cr_expect_str_eq(err, want);
}

/*
 * The least a production ACL user needs (docs/gpu-and-usage.md): the script
 * commands, the reads of `share` (+hgetall: running jobs), and, since a
 * script runs with its caller's rights, the commands the scripts call (the
 * site factor's publication of running jobs: +del +zremrangebyscore); keys
 * under qosdeny: only.
 */
Test(redis, least_privileged_acl_user)
{
	static const char *const acl[] = {"--user",
					  "qd",
					  "on",
					  ">pw",
					  "~qosdeny:*",
					  "resetchannels",
					  "-@all",
					  "+evalsha",
					  "+eval",
					  "+script|load",
					  "+scan",
					  "+hmget",
					  "+time",
					  "+set",
					  "+hset",
					  "+type",
					  "+hdel",
					  "+zscore",
					  "+zadd",
					  "+hgetall",
					  "+hget",
					  "+del",
					  "+zremrangebyscore",
					  NULL};
	time_t now = time(NULL);
	struct qd_usage_record r = rec(1, 1, now - 10, now);
	struct seen s = {0};

	start_fresh(&srv, acl);
	rd = handle(srv.addr, password_file("qd\npw\n", 0, 0600), 2000);
	cr_expect_eq(apply(&r), 1);
	cr_expect_eq(apply(&r), 0);
	freeReplyObject(cmd("SCRIPT FLUSH"));
	r.job_id = 2;
	cr_expect_eq(apply(&r), 1, "EVAL after NOSCRIPT");
	cr_assert_eq(qd_redis_read_usage(rd, "qd", WEEK, collect, &s, &skipped,
					 err, sizeof(err)),
		     0, "%s", err);
	cr_expect(NEAR(s.account[0], 20), "%f", s.account[0]);
}

Test(redis, auth_failure_reported)
{
	time_t now = time(NULL);
	struct qd_usage_record r = rec(1, 1, now - 10, now);
	char want[256];

	srv.password = "s3cret";
	start_fresh(&srv, requirepass);
	rd = handle(srv.addr, password_file("wrong\n", 0, 0600), 2000);
	cr_expect_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), -1);
	snprintf(want, sizeof(want),
		 "redis %s: AUTH: WRONGPASS invalid username-password pair or "
		 "user is disabled.",
		 srv.addr);
	cr_expect_str_eq(err, want);
	/* Still refused on the next call: it connects again. */
	cr_expect_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), -1);
	cr_expect_str_eq(err, want);
}

Test(redis, missing_password_reported)
{
	time_t now = time(NULL);
	struct qd_usage_record r = rec(1, 1, now - 10, now);
	char want[256];

	srv.password = "s3cret";
	start_fresh(&srv, requirepass);
	rd = handle(srv.addr, NULL, 2000);
	cr_expect_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), -1);
	snprintf(want, sizeof(want),
		 "redis %s: EVALSHA: NOAUTH Authentication required (the "
		 "server answered: ERR Protocol error: unauthenticated "
		 "multibulk length); set redis_password_file=",
		 srv.addr);
	cr_expect_str_eq(err, want);
}

static void new_fails(const char *addr, const char *pw, const char *want)
{
	struct qd_redis_config cfg = {
	    .addr = addr, .password_file = pw, .timeout_ms = 100};

	cr_expect_null(qd_redis_new(&cfg, err, sizeof(err)), "%s", addr);
	cr_expect_str_eq(err, want);
}

/* The password file must be root's and kept from others. */
Test(redis, password_file_checks)
{
	char want[512];
	const char *p;

	p = password_file("pw\n", 0, 0644);
	snprintf(want, sizeof(want),
		 "redis_password_file %s: mode 0644 lets others read it, or "
		 "group or others change it: refused (chmod 0600 or 0640)",
		 p);
	new_fails(NULL, p, want);
	p = password_file("pw\n", 0, 0660);
	snprintf(want, sizeof(want),
		 "redis_password_file %s: mode 0660 lets others read it, or "
		 "group or others change it: refused (chmod 0600 or 0640)",
		 p);
	new_fails(NULL, p, want);
	p = password_file("pw\n", 65534, 0600);
	snprintf(want, sizeof(want),
		 "redis_password_file %s: owned by uid 65534, must be owned by "
		 "root: refused",
		 p);
	new_fails(NULL, p, want);
	p = password_file("", 0, 0600);
	snprintf(want, sizeof(want),
		 "redis_password_file %s: expected one line (the password) or "
		 "two (a user name, then its password), without empty lines "
		 "or NUL bytes",
		 p);
	new_fails(NULL, p, want);
	p = password_file("a\nb\nc\n", 0, 0600);
	new_fails(NULL, p, want);
	p = password_file("\npw\n", 0, 0600);
	new_fails(NULL, p, want);
	new_fails(NULL, "/nonexistent/pass",
		  "redis_password_file /nonexistent/pass: No such file or "
		  "directory");
	p = password_file("pw", 0, 0640);
	rd = handle(NULL, p, 100);
}

Test(redis, bad_addresses)
{
	static const char *const bad[] = {
	    "localhost",  "host:",    "host:0",	    "host:65536",
	    ":6379",	  "host:63x", "unix:rel/x", "[::1:6379",
	    "host:+6379", "a b:1",    "a:b:6379",   "a,b:1"};
	char want[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want), "redis address '%s': expected %s",
			 bad[i],
			 strncmp(bad[i], "unix:", 5)
			     ? "HOST:PORT, [IPV6]:PORT, unix:/PATH or "
			       "sentinel:HOST:PORT[,HOST:PORT...]/NAME"
			     : "an absolute path");
		new_fails(bad[i], NULL, want);
	}
	rd = handle("[::1]:6379", NULL, 100);
	cr_expect_str_eq(qd_redis_label(rd), "redis [::1]:6379");
	qd_redis_free(rd);
	rd = handle(NULL, NULL, 0);
	cr_expect_str_eq(qd_redis_label(rd), "redis 127.0.0.1:6379");
}

/* What a sentinel names as the primary is held to a configured address's
 * rules: it reaches the connection code only whole and well formed. */
Test(redis, endpoint_named_by_a_sentinel)
{
#define S(x) x, sizeof(x) - 1 /* a string literal's bytes, NULs and all */
	static const struct {
		const char *host;
		size_t hostlen;
		const char *port;
		size_t portlen;
	} bad[] = {
	    {S("10.0.0.1"), S("0")},
	    {S("10.0.0.1"), S("65536")},
	    {S("10.0.0.1"), S("6379x")},
	    {S("10.0.0.1"), S(" 6379")},
	    {S("10.0.0.1"), S("+6379")},
	    {S("10.0.0.1"), S("")},
	    {S("10.0.0.1"), S("63\00079")},
	    {S(""), S("6379")},
	    {S("a b"), S("6379")},
	    {S("a\tb"), S("6379")},
	    {S("a/b"), S("6379")},
	    {S("a,b"), S("6379")},
	    {S("10.0.0.1\0evil"), S("6379")},
	};
#undef S
	struct qd_redis_endpoint e = {"untouched", 1};
	char longest[QD_REDIS_HOST_MAX + 1];

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		cr_expect_eq(
		    qd_redis_endpoint_named(bad[i].host, bad[i].hostlen,
					    bad[i].port, bad[i].portlen, &e),
		    -1, "bad[%zu]", i);
	cr_expect_str_eq(e.host, "untouched");
	cr_expect_eq(e.port, 1);
	memset(longest, 'h', sizeof(longest));
	cr_expect_eq(
	    qd_redis_endpoint_named(longest, QD_REDIS_HOST_MAX, "1", 1, &e),
	    -1);
	cr_expect_eq(
	    qd_redis_endpoint_named(longest, QD_REDIS_HOST_MAX - 1, "1", 1, &e),
	    0);
	cr_expect_eq(strlen(e.host), QD_REDIS_HOST_MAX - 1);
	cr_expect_eq(qd_redis_endpoint_named("fe80::1", 7, "26379", 5, &e), 0);
	cr_expect_str_eq(e.host, "fe80::1");
	cr_expect_eq(e.port, 26379);
}

Test(redis, unix_socket)
{
	time_t now = time(NULL);
	struct qd_usage_record r = rec(1, 1, now - 10, now);
	char addr[160];

	start_fresh(&srv, NULL);
	snprintf(addr, sizeof(addr), "unix:%s", srv.sock);
	rd = handle(addr, NULL, 2000);
	cr_expect_eq(apply(&r), 1);
}

Test(redis, connection_refused)
{
	time_t now = time(NULL);
	struct qd_usage_record r = rec(1, 1, now - 10, now);
	char addr[32], want[128];

	snprintf(addr, sizeof(addr), "127.0.0.1:%d", free_port());
	rd = handle(addr, NULL, 500);
	cr_expect_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "redis %s: connect: Connection refused",
		 addr);
	cr_expect_str_eq(err, want);
}

/* A listening socket that never accepts, on a free loopback port. */
static int listener(int backlog, int *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(fd, backlog), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

static void expect_timeout(const char *addr, const char *pw, const char *step)
{
	time_t now = time(NULL);
	struct qd_usage_record r = rec(1, 1, now - 10, now);
	char want[160];
	int64_t t0, took;

	rd = handle(addr, pw, 300);
	t0 = qd_now_ms();
	cr_expect_eq(qd_redis_apply(rd, &r, WEEK, err, sizeof(err)), -1);
	took = qd_now_ms() - t0;
	snprintf(want, sizeof(want), "redis %s: %s: timed out after 300 ms",
		 addr, step);
	cr_expect_str_eq(err, want);
	/* Within one timeout, with room for a busy host (make check's lanes,
	 * ASan): two of the call's steps each taking the whole 300 ms would
	 * be 600, three 900. */
	cr_expect(took >= 250 && took < 300 + 500, "took %lld ms",
		  (long long)took);
}

/* The server's accept queue is full, so the handshake never completes:
 * the connect timeout fires. */
Test(redis, connect_timeout)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	int port, lfd = listener(0, &port), fill[4];
	char addr[32];

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons(port);
	/* backlog 0 holds one connection; the next SYNs are dropped */
	for (int i = 0; i < 4; i++) {
		fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		connect(fill[i], (struct sockaddr *)&a, sizeof(a));
		usleep(20000);
	}
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	expect_timeout(addr, NULL, "connect");
	for (int i = 0; i < 4; i++)
		close(fill[i]);
	close(lfd);
}

/* Connected, but no reply ever comes: the command timeout fires, and the
 * whole call, connect and AUTH included, stays within timeout_ms. */
Test(redis, command_timeout)
{
	int port, lfd = listener(16, &port);
	char addr[32];

	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	expect_timeout(addr, NULL, "EVALSHA");
	qd_redis_free(rd);
	expect_timeout(addr, password_file("pw\n", 0, 0600), "AUTH");
	close(lfd);
}

/* redis-server's options for the tests that make it sleep (DEBUG SLEEP). */
static const char *const debug_command[] = {"--enable-debug-command", "yes",
					    NULL};

/* A server that is slow to answer the script: the reply it sends too late
 * is not taken for the next command's, since the connection is dropped. */
Test(redis, slow_server_then_recovers)
{
	time_t now = time(NULL);
	struct qd_usage_record a = rec(1, 1, now - 10, now),
			       b = rec(2, 1, now - 10, now);
	redisContext *c;

	start_fresh(&srv, debug_command);
	rd = handle(srv.addr, NULL, 300);
	cr_expect_eq(apply(&a), 1);
	c = admin(&srv);
	redisAppendCommand(c, "DEBUG SLEEP 0.6");
	redisBufferWrite(c, &(int){0});
	usleep(50000);
	cr_expect_eq(qd_redis_apply(rd, &b, WEEK, err, sizeof(err)), -1);
	cr_expect(strstr(err, "timed out after 300 ms"), "%s", err);
	redisFree(c);
	usleep(700000);
	/* Counted or not the first time (the reply was lost), once now. */
	cr_expect_geq(qd_redis_apply(rd, &b, WEEK, err, sizeof(err)), 0, "%s",
		      err);
	cr_expect_eq(apply(&b), 0);
	cr_expect(NEAR(stored("qosdeny:{qd}:account:research"), 20));
}

/* DEBUG SLEEP on the server, sent from another connection. */
static redisContext *sleep_server(const char *secs)
{
	redisContext *c = admin(&srv);

	redisAppendCommand(c, "DEBUG SLEEP %s", secs);
	redisBufferWrite(c, &(int){0});
	usleep(50000);
	return c;
}

/* qd_redis_budget: two calls that each fit in timeout_ms, but not both
 * together: the second ends when the budget does. */
Test(redis, budget_bounds_the_calls_together)
{
	time_t now = time(NULL);
	struct qd_usage_record a = rec(1, 1, now - 10, now),
			       b = rec(2, 1, now - 10, now),
			       c = rec(3, 1, now - 10, now);
	redisContext *sleeper;
	int64_t t0;

	start_fresh(&srv, debug_command);
	rd = handle(srv.addr, NULL, 700);
	cr_expect_eq(apply(&a), 1);
	t0 = qd_now_ms();
	qd_redis_budget(rd);
	sleeper = sleep_server("0.4");
	cr_expect_eq(qd_redis_apply(rd, &b, WEEK, err, sizeof(err)), 1, "%s",
		     err);
	redisFree(sleeper);
	sleeper = sleep_server("0.4");
	cr_expect_eq(qd_redis_apply(rd, &c, WEEK, err, sizeof(err)), -1);
	/* That it failed is the budget's doing (alone, the call fits in its
	 * timeout); the bound leaves a busy host room. */
	cr_expect(qd_now_ms() - t0 <= 700 + 300, "took %lld ms",
		  (long long)(qd_now_ms() - t0));
	cr_expect(strstr(err, "timed out"), "%s", err);
	redisFree(sleeper);
}

/* stop_ms: 0 changes nothing; once set, the call in progress ends by it
 * (Redis sleeping, within timeout_ms), and a call begun after it fails at
 * once, without waiting for Redis (the site factor's stop). */
Test(redis, stop_ends_the_calls)
{
	time_t now = time(NULL);
	struct qd_usage_record a = rec(1, 1, now - 10, now),
			       b = rec(2, 1, now - 10, now);
	struct qd_redis_config cfg = {.timeout_ms = 5000};
	redisContext *sleeper;
	int64_t stop = 0, t0;

	start_fresh(&srv, debug_command);
	cfg.addr = srv.addr;
	cfg.stop_ms = &stop;
	rd = qd_redis_new(&cfg, err, sizeof(err));
	cr_assert_not_null(rd, "%s", err);
	cr_expect_eq(apply(&a), 1);
	/* Redis sleeps 3 s, the timeout is 5: a call that ends within a
	 * second ended by stop_ms, with room for a busy host. */
	sleeper = sleep_server("3");
	t0 = qd_now_ms();
	stop = t0 + 200;
	cr_expect_eq(qd_redis_apply(rd, &b, WEEK, err, sizeof(err)), -1);
	cr_expect(qd_now_ms() - t0 <= 200 + 800, "took %lld ms",
		  (long long)(qd_now_ms() - t0));
	cr_expect(strstr(err, "timed out"), "%s", err);
	redisFree(sleeper);
	t0 = qd_now_ms();
	cr_expect_eq(qd_redis_apply(rd, &b, WEEK, err, sizeof(err)), -1);
	cr_expect(qd_now_ms() - t0 <= 800, "took %lld ms",
		  (long long)(qd_now_ms() - t0));
}

/* Redis restarted: the handle connects again by itself. */
Test(redis, reconnects_after_restart)
{
	time_t now = time(NULL);
	struct qd_usage_record a = rec(1, 1, now - 10, now),
			       b = rec(2, 1, now - 10, now);

	plain();
	cr_expect_eq(apply(&a), 1);
	stop(&srv);
	cr_expect_eq(qd_redis_apply(rd, &b, WEEK, err, sizeof(err)), -1);
	cr_assert_eq(start(&srv, NULL), 0);
	cr_expect_eq(apply(&b), 1, "new server, empty data, script reloaded");
	cr_expect_eq(apply(&b), 0);
}

static int send_redis(const struct qd_usage_record *r, void *arg, char *e,
		      size_t elen)
{
	return qd_redis_apply(arg, r, WEEK, e, elen);
}

static void ignore(const char *msg, void *arg)
{
	(void)msg;
	(void)arg;
}

/* The spool replayed into Redis: one record already counted (its reply
 * was lost) counts once; with Redis down everything stays. */
Test(redis, spool_replay)
{
	time_t now = time(NULL);
	struct qd_usage_record a = rec(1, 1, now - 100, now),
			       b = rec(2, 2, now - 100, now),
			       c = rec(3, 1, now - 100, 0 + now);
	struct qd_spool_stats st;
	char dir[160];

	plain();
	snprintf(dir, sizeof(dir), "%s/spool", srv.dir);
	cr_assert_eq(qd_spool_write(dir, &a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(qd_spool_write(dir, &b, err, sizeof(err)), 0);
	cr_assert_eq(qd_spool_write(dir, &c, err, sizeof(err)), 0);
	cr_expect_eq(apply(&a), 1);
	stop(&srv);
	cr_expect_eq(
	    qd_spool_replay(dir, time(NULL), send_redis, rd, ignore, NULL, &st),
	    -1);
	cr_expect_eq(st.left, 3);
	cr_assert_eq(start(&srv, NULL), 0);
	cr_expect_eq(apply(&a), 1, "a fresh server");
	cr_expect_eq(
	    qd_spool_replay(dir, time(NULL), send_redis, rd, ignore, NULL, &st),
	    0);
	cr_expect_eq(st.sent, 2);
	cr_expect_eq(st.already, 1);
	cr_expect_eq(st.left, 0);
	cr_expect(NEAR(stored("qosdeny:{qd}:account:research"), 400), "%f",
		  stored("qosdeny:{qd}:account:research"));
}

/* A record refused for a damaged usage hash (anything a job could write
 * where Redis has no password) stays in the spool, said; the records after
 * it are sent. Before, the first refusal stopped the replay, so one
 * damaged account held back every node's records behind it. */
Test(redis, spool_replay_passes_a_refused_record)
{
	time_t now = time(NULL);
	struct qd_usage_record a = rec(1, 1, now - 100, now),
			       b = rec(2, 2, now - 100, now),
			       c = rec(3, 1, now - 100, now);
	struct qd_spool_stats st;
	char dir[160];

	plain();
	snprintf(b.account, sizeof(b.account), "physics");
	snprintf(dir, sizeof(dir), "%s/spool", srv.dir);
	cr_assert_eq(qd_spool_write(dir, &a, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(qd_spool_write(dir, &b, err, sizeof(err)), 0);
	cr_assert_eq(qd_spool_write(dir, &c, err, sizeof(err)), 0);
	freeReplyObject(cmd("HSET qosdeny:{qd}:account:physics v 1 t oops"));
	cr_expect_eq(
	    qd_spool_replay(dir, time(NULL), send_redis, rd, ignore, NULL, &st),
	    -1);
	cr_expect_eq(st.sent, 2);
	cr_expect_eq(st.left, 1);
	cr_expect(NEAR(stored("qosdeny:{qd}:account:research"), 200), "%f",
		  stored("qosdeny:{qd}:account:research"));
	/* Repaired: the kept record is counted, once. */
	freeReplyObject(cmd("DEL qosdeny:{qd}:account:physics"));
	cr_expect_eq(
	    qd_spool_replay(dir, time(NULL), send_redis, rd, ignore, NULL, &st),
	    0);
	cr_expect_eq(st.sent, 1);
	cr_expect_eq(st.left, 0);
	cr_expect(NEAR(stored("qosdeny:{qd}:account:physics"), 200), "%f",
		  stored("qosdeny:{qd}:account:physics"));
	cr_expect(NEAR(stored("qosdeny:{qd}:user:alice"), 400), "%f",
		  stored("qosdeny:{qd}:user:alice"));
}

/* TIME's reply is read as digits only: a reply that is not (a proxy, a
 * port taken by something else) fails the call, never decays usage to 0
 * or NaN. */
Test(redis, time_reply_is_digits_only)
{
	double now = -1;

	cr_expect_eq(qd_redis_time_parse("1796000000", 10, "250000", 6, &now),
		     0);
	cr_expect(fabs(now - 1796000000.25) < 1e-6, "%f", now);
	cr_expect_eq(qd_redis_time_parse("", 0, "0", 1, &now), -1);
	cr_expect_eq(qd_redis_time_parse("nan", 3, "0", 1, &now), -1);
	cr_expect_eq(qd_redis_time_parse("-1", 2, "0", 1, &now), -1);
	cr_expect_eq(qd_redis_time_parse("1e9", 3, "0", 1, &now), -1);
	cr_expect_eq(qd_redis_time_parse("17 ", 3, "0", 1, &now), -1);
	cr_expect_eq(qd_redis_time_parse("1796000000", 10, "1000000", 7, &now),
		     -1, "a microsecond count of 7 digits");
	/* Not NUL-bounded: the length decides. */
	cr_expect_eq(qd_redis_time_parse("17x", 2, "5", 1, &now), 0);
	cr_expect(fabs(now - 17.000005) < 1e-9, "%f", now);
}
