/* SPDX-License-Identifier: GPL-2.0-or-later
 * redis=sentinel:... and redis_replicas= (docs/high-availability.md)
 * against real servers started by each test: a primary, a replica
 * (replicaof) and three sentinels (redis-server --sentinel) on loopback,
 * with down-after-milliseconds 1000, so a killed primary is replaced within
 * seconds.
 */
#include <poll.h>
#include <pthread.h>
#include <time.h>

#include <criterion/criterion.h>
#include <hiredis/hiredis.h>

#include "now_ms.h"
#include "redis_link.h" /* qd_redis_open, qd_redis_drop */
#include "redis_usage.h"
#include "running_usage.h"
#include "spool.h"
#include "test_redis_server.h"
#include "usage_fixture.h"

/* Entries the readers skipped (qd_usage_skipped). */
static struct qd_usage_skipped skipped;

#define WEEK	  (7 * 86400)
#define NSENT	  3
#define MASTER	  "qd"
#define SLACK_MS  150 /* the scheduler's, on a loaded test machine */
#define SETTLE_MS 30000

static struct server primary, replica, sentinel[NSENT];
static struct server *p, *rp; /* primary and replica now */
static pid_t fake_pid;
static struct qd_redis *rd;
static char err[QD_REDIS_ERR_MAX], warned[QD_REDIS_ERR_MAX];
static char sentinel_conf[NSENT][512];
static char spool_dir[64];
static int64_t t_start; /* the records' start */

static void setup(void)
{
	memset(&primary, 0, sizeof(primary));
	memset(&replica, 0, sizeof(replica));
	memset(sentinel, 0, sizeof(sentinel));
	p = &primary;
	rp = &replica;
	fake_pid = 0;
	rd = NULL;
	err[0] = warned[0] = spool_dir[0] = '\0';
	t_start = time(NULL) - 60;
}

static void teardown(void)
{
	char cmd[96];

	qd_redis_free(rd);
	if (fake_pid > 0) {
		kill(fake_pid, SIGKILL);
		waitpid(fake_pid, NULL, 0);
	}
	for (int i = 0; i < NSENT; i++) {
		if (sentinel[i].pid > 0)
			kill(sentinel[i].pid, SIGCONT);
		server_cleanup(&sentinel[i]);
	}
	if (replica.pid > 0)
		kill(replica.pid, SIGCONT);
	server_cleanup(&replica);
	server_cleanup(&primary);
	if (spool_dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", spool_dir);
		cr_expect_eq(system(cmd), 0);
	}
}

TestSuite(sentinel, .init = setup, .fini = teardown, .timeout = 90);

/* Polls a condition every 20 ms until it holds or ms pass. */
#define WAIT_FOR(cond, ms)                                                     \
	do {                                                                   \
		int64_t until_ = qd_now_ms() + (ms);                           \
		while (!(cond) && qd_now_ms() < until_)                        \
			usleep(20000);                                         \
		cr_assert((cond), "not within %d ms: %s", (int)(ms), #cond);   \
	} while (0)

/* A reply's text, or "" (copied, so that the reply can be freed). */
static bool reply_has(redisReply *r, const char *want)
{
	bool has = false;

	if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS ||
	    r->type == REDIS_REPLY_ERROR)
		has = strstr(r->str, want) != NULL;
	for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; i++)
		has |= reply_has(r->element[i], want);
	return has;
}

/* The server's reply to one command as its admin, or NULL where the
 * server did not answer (down, stopped, or our connection killed). */
static redisReply *try_cmdv(const struct server *s, const char *fmt, va_list ap)
{
	redisContext *c = admin(s);
	redisReply *r = NULL;

	if (c && !c->err)
		r = redisvCommand(c, fmt, ap);
	if (c)
		redisFree(c);
	return r;
}

static redisReply *try_cmd(const struct server *s, const char *fmt, ...)
{
	redisReply *r;
	va_list ap;

	va_start(ap, fmt);
	r = try_cmdv(s, fmt, ap);
	va_end(ap);
	return r;
}

/* Whether the server's reply to the command mentions want. */
static bool says(const struct server *s, const char *want, const char *fmt, ...)
{
	redisReply *r;
	bool has;
	va_list ap;

	va_start(ap, fmt);
	r = try_cmdv(s, fmt, ap);
	va_end(ap);
	has = r && reply_has(r, want);
	freeReplyObject(r);
	return has;
}

static bool is_primary(const struct server *s)
{
	return says(s, "master", "ROLE") && !says(s, "slave", "ROLE");
}

/* The replica is linked to its primary, and the primary holds it online:
 * only then does a WAIT count it (the replica's side comes up first, and
 * the primary's only with its first acknowledgement, up to a second
 * later on a loaded machine). */
static bool in_sync(const struct server *r, const struct server *p)
{
	char online[64];

	snprintf(online, sizeof(online), "port=%d,state=online", r->port);
	return says(r, "master_link_status:up", "INFO replication") &&
	       says(p, online, "INFO replication");
}

/* Asked twice: a failover kills the promoted server's client connections
 * (the sentinels' CLIENT KILL TYPE normal), the test's own too if one is
 * open at that moment. */
static bool holds(const struct server *s, uint32_t job)
{
	for (int i = 0; i < 2; i++) {
		redisReply *r = try_cmd(s, "EXISTS qosdeny:{qd}:rec:%u:n1:%lld",
					job, (long long)t_start);
		bool yes;

		if (!r)
			continue;
		yes = r->type == REDIS_REPLY_INTEGER && r->integer == 1;
		freeReplyObject(r);
		return yes;
	}
	cr_assert_fail("EXISTS at %s: no answer, twice", s->addr);
	return false;
}

static struct qd_usage_record rec(uint32_t job)
{
	return test_record(job, 2, t_start, t_start + 10);
}

static void start_replica(struct server *r, const struct server *of)
{
	char port[16];
	const char *extra[] = {"--replicaof", "127.0.0.1", port, NULL};

	snprintf(port, sizeof(port), "%d", of->port);
	start_fresh(r, extra);
}

static void start_sentinels(const char *extra_lines)
{
	for (int i = 0; i < NSENT; i++) {
		snprintf(sentinel_conf[i], sizeof(sentinel_conf[i]),
			 "sentinel monitor " MASTER " 127.0.0.1 %d 2\n"
			 "sentinel down-after-milliseconds " MASTER " 1000\n"
			 "sentinel failover-timeout " MASTER " 5000\n%s",
			 primary.port, extra_lines ? extra_lines : "");
		sentinel[i].sentinel_conf = sentinel_conf[i];
		start_fresh(&sentinel[i], NULL);
	}
}

/* "sentinel:S1,S2,S3/qd" */
static void sentinel_addr(char *buf, size_t len, const char *first)
{
	int n = snprintf(buf, len, "sentinel:%s%s", first ? first : "",
			 first ? "," : "");

	for (int i = 0; i < NSENT; i++)
		n +=
		    snprintf(buf + n, len - (size_t)n, "%s%s", sentinel[i].addr,
			     i < NSENT - 1 ? "," : "/" MASTER);
}

static void note_warning(const char *msg, void *arg)
{
	(void)arg;
	snprintf(warned, sizeof(warned), "%s", msg);
}

static struct qd_redis *handle(const char *addr, int timeout_ms,
			       const char *password_file, const char *user)
{
	struct qd_redis_config cfg = {.addr = addr,
				      .password_file = password_file,
				      .timeout_ms = timeout_ms,
				      .user = user,
				      .warn = note_warning};
	struct qd_redis *r = qd_redis_new(&cfg, err, sizeof(err));

	cr_assert_not_null(r, "%s", err);
	return r;
}

/* A primary, its replica in sync, and three sentinels watching. */
static void cluster(void)
{
	start_fresh(&primary, NULL);
	start_replica(&replica, &primary);
	WAIT_FOR(in_sync(&replica, &primary), SETTLE_MS);
	start_sentinels(NULL);
}

/* The sentinels know the replica and each other: a failover can happen. */
static void sentinels_ready(void)
{
	for (int i = 0; i < NSENT; i++) {
		WAIT_FOR(says(&sentinel[i], replica.addr,
			      "SENTINEL REPLICAS " MASTER),
			 SETTLE_MS);
		WAIT_FOR(says(&sentinel[i], "OK 3 usable",
			      "SENTINEL CKQUORUM " MASTER),
			 SETTLE_MS);
	}
}

static int apply_timed(struct qd_redis *r, uint32_t job, int64_t *took_ms)
{
	struct qd_usage_record x = rec(job);
	int64_t t0 = qd_now_ms();
	int k = qd_redis_apply(r, &x, WEEK, err, sizeof(err));

	*took_ms = qd_now_ms() - t0;
	return k;
}

static int apply(struct qd_redis *r, uint32_t job)
{
	int64_t took;

	return apply_timed(r, job, &took);
}

Test(sentinel, finds_the_primary_and_waits_for_its_replica)
{
	char addr[512];

	cluster();
	sentinel_addr(addr, sizeof(addr), NULL);
	rd = handle(addr, 2000, NULL, NULL);
	cr_assert_eq(apply(rd, 1), 1, "%s", err);
	cr_expect(holds(&primary, 1));
	/* redis_replicas defaults to 1 under Sentinel: WAIT saw the
	 * replica hold the record before apply returned. */
	cr_expect(holds(&replica, 1));
	cr_expect_eq(apply(rd, 1), 0, "%s", err);
	cr_expect_str_eq(warned, "");
}

/* A sentinel paused (SIGSTOP) accepts connections and never answers. */
Test(sentinel, sentinels_down_or_silent_cost_no_more_than_timeout_ms)
{
	char addr[512];
	int64_t took;

	cluster();
	sentinel_addr(addr, sizeof(addr), NULL);
	stop(&sentinel[0]);
	kill(sentinel[1].pid, SIGSTOP);
	rd = handle(addr, 600, NULL, NULL);
	cr_expect_eq(apply_timed(rd, 1, &took), 1, "%s", err);
	cr_expect_leq(took, 600 + SLACK_MS, "%lld ms", (long long)took);
	qd_redis_free(rd);

	/* None answers and none answered before: an error, on time. */
	kill(sentinel[2].pid, SIGSTOP);
	rd = handle(addr, 600, NULL, NULL);
	cr_expect_eq(apply_timed(rd, 2, &took), -1);
	cr_expect_leq(took, 600 + SLACK_MS, "%lld ms", (long long)took);
	cr_expect(strstr(err, ": sentinel: sentinel 127.0.0.1:"), "%s", err);
	cr_expect(!strstr(err + 1, "redis sentinel:"), "the address once: %s",
		  err);
	cr_expect(!holds(&primary, 2));
}

Test(sentinel, all_sentinels_down_the_primary_found_before_is_used)
{
	char addr[512];

	cluster();
	sentinel_addr(addr, sizeof(addr), NULL);
	rd = handle(addr, 1000, NULL, NULL);
	cr_assert_eq(apply(rd, 1), 1, "%s", err);
	for (int i = 0; i < NSENT; i++)
		stop(&sentinel[i]);
	qd_redis_drop(rd); /* the next call connects again */
	cr_expect_eq(apply(rd, 2), 1, "%s", err);
	cr_expect(holds(&primary, 2));
	cr_expect(strstr(warned, "no sentinel answered"), "'%s'", warned);
	cr_expect(strstr(warned, primary.addr), "'%s'", warned);
}

/* A stand-in sentinel that names 127.0.0.1 and port (the text of its
 * reply's second string, as it likes) as the master. */
static void fake_sentinel(struct server *s, const char *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	char reply[128];

	snprintf(reply, sizeof(reply),
		 "*2\r\n$9\r\n127.0.0.1\r\n$%zu\r\n%s\r\n", strlen(port), port);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(fd, 8), 0);
	socklen_t len = sizeof(a);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	s->port = ntohs(a.sin_port);
	snprintf(s->addr, sizeof(s->addr), "127.0.0.1:%d", s->port);
	fake_pid = fork();
	cr_assert_geq(fake_pid, 0);
	if (!fake_pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;) {
			int c = accept(fd, NULL, NULL);
			char buf[4096];

			if (c < 0)
				continue;
			while (read(c, buf, sizeof(buf)) > 0)
				if (write(c, reply, strlen(reply)) < 0)
					break;
			close(c);
		}
	}
	close(fd);
}

/* A sentinel naming port as the master's is not followed, err says why;
 * the next sentinel in the list is asked then. */
static void misled(const char *port, const char *why)
{
	struct server fake = {0};
	char addr[512], two[512];

	fake_sentinel(&fake, port);
	snprintf(addr, sizeof(addr), "sentinel:%s/" MASTER, fake.addr);
	rd = handle(addr, 1000, NULL, NULL);
	cr_expect_eq(apply(rd, 1), -1);
	cr_expect(strstr(err, why), "%s", err);
	cr_expect_not(holds(&primary, 1));
	qd_redis_free(rd);
	sentinel_addr(two, sizeof(two), fake.addr);
	rd = handle(two, 1000, NULL, NULL);
	cr_expect_eq(apply(rd, 1), 1, "%s", err);
	cr_expect(holds(&primary, 1));
}

Test(sentinel, a_replica_named_as_master_is_never_written_to)
{
	char port[16], why[256];

	cluster();
	snprintf(port, sizeof(port), "%d", replica.port);
	snprintf(why, sizeof(why),
		 "%s, named by the sentinels as master '" MASTER
		 "', is not a primary (ROLE): not written to",
		 replica.addr);
	misled(port, why);
}

/* A sentinel's reply out of shape (here the primary's port with more after
 * it, which strtol would have read as the port) is not followed. */
Test(sentinel, a_reply_out_of_shape_is_not_followed)
{
	char port[32];

	cluster();
	snprintf(port, sizeof(port), "%dx", primary.port);
	misled(port, "does not know master '" MASTER "'");
}

Test(sentinel, the_next_write_goes_to_the_new_primary_after_a_kill)
{
	char addr[512];
	int64_t took, t0;
	int k;

	cluster();
	sentinels_ready();
	sentinel_addr(addr, sizeof(addr), NULL);
	rd = handle(addr, 500, NULL, NULL);
	cr_assert_eq(apply(rd, 1), 1, "%s", err);
	kill(primary.pid, SIGKILL);
	waitpid(primary.pid, NULL, 0);
	primary.pid = 0;
	t0 = qd_now_ms();
	/* As a node would: the record stays spooled until a call works;
	 * no call takes longer than timeout_ms meanwhile. The new primary
	 * applies it at once, but has no replica for WAIT to count. */
	while (!holds(&replica, 2) && qd_now_ms() - t0 < SETTLE_MS) {
		k = apply_timed(rd, 2, &took);
		cr_expect_eq(k, -1);
		cr_expect_leq(took, 500 + SLACK_MS, "%lld ms", (long long)took);
		if (!holds(&replica, 2))
			usleep(100000);
	}
	cr_assert(holds(&replica, 2), "%s", err);
	cr_log_info("failover: a write reached the new primary %lld ms after "
		    "the kill",
		    (long long)(qd_now_ms() - t0));
	cr_expect(is_primary(&replica));
	cr_expect(holds(&replica, 1), "the record WAIT confirmed survived");
	cr_expect(strstr(err, "WAIT: 0 of the 1 replicas"), "%s", err);
	/* The old primary returns as the new one's replica, and the record,
	 * sent again, is confirmed and counted once. It is started as a
	 * replica rather than left to the sentinels: they convert a returning
	 * primary only after it has reported that role for 8 s, and not at all
	 * for 30 s after a stall of 2 s (TILT), which a loaded machine gives.
	 */
	start_replica(&primary, &replica);
	WAIT_FOR(in_sync(&primary, &replica), SETTLE_MS);
	/* As the next job ends would, until WAIT sees it (the new replica's
	 * first acknowledgement may take a moment on a loaded machine). */
	WAIT_FOR((k = apply(rd, 2)) >= 0, SETTLE_MS);
	cr_expect_eq(k, 0, "counted once");
	cr_expect(holds(&primary, 2));
}

Test(sentinel, readonly_from_a_demoted_primary_leads_to_the_new_one)
{
	char addr[512];
	redisReply *r;

	cluster();
	sentinels_ready();
	sentinel_addr(addr, sizeof(addr), NULL);
	rd = handle(addr, 2000, NULL, NULL);
	cr_assert_eq(apply(rd, 1), 1, "%s", err);
	r = admin_cmd(&sentinel[0], "SENTINEL FAILOVER " MASTER);
	cr_assert_eq(r->type, REDIS_REPLY_STATUS, "%s", r->str);
	freeReplyObject(r);
	WAIT_FOR(is_primary(&replica), SETTLE_MS);
	WAIT_FOR(in_sync(&primary, &replica), SETTLE_MS);
	/* The sentinels closed the old primary's clients: the handle asks
	 * them again and writes to the new primary, in the same call. */
	cr_expect_eq(apply(rd, 2), 1, "%s", err);
	cr_expect(holds(&replica, 2));
	/* A connection made to the old primary just before it was demoted
	 * (not closed by the sentinels): READONLY, then the new primary,
	 * in one call. */
	cr_assert_eq(qd_redis_open(rd, "127.0.0.1", primary.port, NULL,
				   qd_now_ms() + 1000, err, sizeof(err)),
		     0, "%s", err);
	cr_expect_eq(apply(rd, 3), 1, "%s", err);
	cr_expect(holds(&replica, 3));
}

/* A forced failover while the old primary runs: the sentinels demote it
 * 8 s later only, and meanwhile it serves the connections it had. */
Test(sentinel, follow_leaves_a_primary_the_sentinels_no_longer_name)
{
	struct qd_redis_config cfg = {
	    .addr = NULL, .timeout_ms = 2000, .replicas_given = true};
	char addr[512];
	redisReply *r;

	cluster();
	sentinels_ready();
	sentinel_addr(addr, sizeof(addr), NULL);
	cfg.addr = addr;
	rd = qd_redis_new(&cfg, err, sizeof(err));
	cr_assert_not_null(rd, "%s", err);
	cr_assert_eq(apply(rd, 1), 1, "%s", err);
	qd_redis_follow(rd); /* the same primary: the connection stays */
	cr_assert_eq(apply(rd, 2), 1, "%s", err);
	r = admin_cmd(&sentinel[0], "SENTINEL FAILOVER " MASTER);
	cr_assert_eq(r->type, REDIS_REPLY_STATUS, "%s", r->str);
	freeReplyObject(r);
	WAIT_FOR(is_primary(&replica) &&
		     says(&sentinel[0], replica.addr + strlen("127.0.0.1:"),
			  "SENTINEL GET-MASTER-ADDR-BY-NAME " MASTER),
		 SETTLE_MS);
	qd_redis_follow(rd);
	cr_expect_eq(apply(rd, 3), 1, "%s", err);
	cr_assert(is_primary(&primary), "the old primary was demoted already");
	cr_expect(holds(&replica, 3), "written to the new primary");
	cr_expect(!holds(&primary, 3), "not to the old one");
}

/* redis_replicas=1 with the replica away: the record stays in the spool
 * and is counted once when it goes again. */
static int send_rec(const struct qd_usage_record *x, void *arg, char *e,
		    size_t elen)
{
	return qd_redis_apply(arg, x, WEEK, e, elen);
}

static void no_report(const char *msg, void *arg)
{
	(void)arg;
	snprintf(err, sizeof(err), "%s", msg);
}

static double usage_of(const struct server *s, const char *user)
{
	redisReply *r = admin_cmd(s, "HGET qosdeny:{qd}:user:%s v", user);
	double v = r->type == REDIS_REPLY_STRING ? strtod(r->str, NULL) : -1;

	freeReplyObject(r);
	return v;
}

Test(sentinel, wait_keeps_a_record_spooled_until_the_replica_holds_it)
{
	struct qd_redis_config cfg = {
	    .timeout_ms = 400, .replicas = 1, .replicas_given = true};
	struct qd_usage_record x;
	struct qd_spool_stats st;
	char perr[QD_SPOOL_ERR_MAX];
	int k;

	start_fresh(&primary, NULL);
	start_replica(&replica, &primary);
	WAIT_FOR(in_sync(&replica, &primary), SETTLE_MS);
	cfg.addr = primary.addr;
	rd = qd_redis_new(&cfg, err, sizeof(err));
	cr_assert_not_null(rd, "%s", err);
	snprintf(spool_dir, sizeof(spool_dir), "/tmp/qd-spool-test.XXXXXX");
	cr_assert_not_null(mkdtemp(spool_dir));
	x = rec(7);
	cr_assert_eq(qd_spool_write(spool_dir, &x, perr, sizeof(perr)), 0, "%s",
		     perr);
	kill(replica.pid, SIGSTOP);
	cr_assert_eq(qd_spool_replay(spool_dir, time(NULL), send_rec, rd,
				     no_report, NULL, &st),
		     -1);
	cr_expect_eq(st.left, 1);
	cr_expect_eq(st.sent, 0);
	/* The server's answer, or, where a loaded host delays it past the
	 * margin WAIT leaves it, the call's own timeout (run 35, 24.11's
	 * unit tests beside a Slurm build): kept in the spool either way. */
	cr_expect(strstr(err, "WAIT: 0 of the 1 replicas") ||
		      strstr(err, "WAIT: timed out after 400 ms"),
		  "%s", err);
	cr_expect(holds(&primary, 7), "applied, but not yet safe");
	kill(replica.pid, SIGCONT);
	/* As the node's next replays would, until WAIT sees the replica:
	 * woken, it may take longer than WAIT's 400 ms to answer on a
	 * loaded machine. */
	for (int64_t until = qd_now_ms() + SETTLE_MS;
	     (k = qd_spool_replay(spool_dir, time(NULL), send_rec, rd,
				  no_report, NULL, &st)) != 0 &&
	     qd_now_ms() < until;)
		usleep(20000);
	cr_assert_eq(k, 0, "%s", err);
	cr_expect_eq(st.already, 1);
	cr_expect_eq(st.left, 0);
	cr_expect(holds(&replica, 7));
	/* 2 GPUs x 10 s, decayed a little: counted once, not twice. */
	cr_expect(usage_of(&primary, "alice") > 19 &&
		      usage_of(&primary, "alice") <= 20,
		  "%f", usage_of(&primary, "alice"));
}

Test(sentinel, plain_redis_waits_for_no_replica_by_default)
{
	start_fresh(&primary, NULL);
	rd = handle(primary.addr, 500, NULL, NULL);
	cr_expect_eq(apply(rd, 1), 1, "%s", err);
}

/* redis_user=: AUTH user password, at the sentinels as at the primary. */
static char *password_file(const char *text)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/qd-pass-test.XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	cr_assert_eq(chown(path, 0, 0), 0);
	return path;
}

Test(sentinel, acl_user_at_the_sentinels_and_the_primary)
{
	static const char *const acl[] = {"--user", "default", "off", "--user",
					  "qd",	    "on",      ">pw", "~*",
					  "&*",	    "+@all",   NULL};
	char addr[512];
	char *pw;

	primary.user = "qd";
	primary.password = "pw";
	start_fresh(&primary, acl);
	for (int i = 0; i < NSENT; i++) {
		sentinel[i].user = "qd";
		sentinel[i].password = "pw";
	}
	start_sentinels("sentinel auth-user " MASTER " qd\n"
			"sentinel auth-pass " MASTER " pw\n"
			"user default off\n"
			"user qd on >pw ~* &* +@all\n");
	sentinel_addr(addr, sizeof(addr), NULL);
	pw = password_file("pw\n");
	{
		struct qd_redis_config cfg = {.addr = addr,
					      .password_file = pw,
					      .timeout_ms = 1000,
					      .user = "qd",
					      .replicas_given = true};

		rd = qd_redis_new(&cfg, err, sizeof(err));
		cr_assert_not_null(rd, "%s", err);
	}
	cr_expect_eq(apply(rd, 1), 1, "%s", err);
	cr_expect(holds(&primary, 1));
	qd_redis_free(rd);
	rd = handle(addr, 1000, pw, "someone");
	cr_expect_eq(apply(rd, 2), -1);
	cr_expect(strstr(err, "WRONGPASS"), "%s", err);
	unlink(pw);
}

Test(sentinel, redis_user_needs_a_password_file)
{
	struct qd_redis_config cfg = {.addr = "127.0.0.1:1", .user = "qd"};

	cr_expect_null(qd_redis_new(&cfg, err, sizeof(err)));
	cr_expect_str_eq(err, "redis_user=qd needs redis_password_file= (its "
			      "password)");
}

/*
 * The least ACL of each component, as docs/gpu-and-usage.md gives them
 * ("Redis for production"), under Sentinel with a replica: the nodes and
 * `qosdeny flush` write records (WAIT, ROLE), slurmctld's site factor
 * publishes running jobs and reads, `qosdeny share` only reads.
 */
#define NODE_ACL                                                               \
	"~qosdeny:*", "resetchannels", "-@all", "+evalsha", "+eval",           \
	    "+script|load", "+time", "+type", "+hmget", "+hget", "+set",       \
	    "+expire", "+hset", "+hdel", "+zscore", "+zadd",                   \
	    "+zremrangebyscore", "+wait", "+role"
#define CTLD_ACL                                                               \
	"~qosdeny:*", "resetchannels", "-@all", "+evalsha", "+eval",           \
	    "+script|load", "+scan", "+hmget", "+hgetall", "+time", "+type",   \
	    "+hset", "+del", "+zscore", "+zremrangebyscore", "+role"
#define SHARE_ACL                                                              \
	"%R~qosdeny:*", "resetchannels", "-@all", "+scan", "+hmget",           \
	    "+hgetall", "+time", "+role"

static int count_usage(enum qd_usage_kind kind, const char *account,
		       const char *user, double usage, void *arg)
{
	(void)kind;
	(void)account;
	(void)user;
	(void)usage;
	++*(int *)arg;
	return 0;
}

static void set_user(const char **argv, size_t argc)
{
	redisContext *c = admin(&primary);
	redisReply *r;

	cr_assert(c && !c->err);
	r = redisCommandArgv(c, (int)argc, argv, NULL);
	cr_assert(r && r->type == REDIS_REPLY_STATUS, "%s",
		  r ? r->str : c->errstr);
	freeReplyObject(r);
	redisFree(c);
}

static struct qd_redis *as(const char *addr, const char *user, const char *pw)
{
	struct qd_redis_config cfg = {.addr = addr,
				      .password_file = pw,
				      .timeout_ms = 2000,
				      .user = user};
	struct qd_redis *r = qd_redis_new(&cfg, err, sizeof(err));

	cr_assert_not_null(r, "%s", err);
	return r;
}

Test(sentinel, least_acl_of_each_component)
{
	static const char *node[] = {"ACL", "SETUSER", "qd-node",
				     "on",  ">pw",     NODE_ACL};
	static const char *ctld[] = {"ACL", "SETUSER", "qd-ctld",
				     "on",  ">pw",     CTLD_ACL};
	static const char *share_acl[] = {"ACL", "SETUSER", "qd-share",
					  "on",	 ">pw",	    SHARE_ACL};
	struct qd_running_job job = {.job_id = 9,
				     .start = t_start,
				     .account = "research",
				     .user = "bob",
				     .gpu_seconds = 30,
				     .nodes = 1};
	struct qd_redis *ctl, *share;
	char addr[512];
	int rows = 0;
	char *pw;

	start_fresh(&primary, NULL);
	set_user(node, sizeof(node) / sizeof(*node));
	set_user(ctld, sizeof(ctld) / sizeof(*ctld));
	set_user(share_acl, sizeof(share_acl) / sizeof(*share_acl));
	start_replica(&replica, &primary);
	WAIT_FOR(in_sync(&replica, &primary), SETTLE_MS);
	/* A sentinel's least ACL: one subcommand. */
	start_sentinels("user qd-node on >pw -@all "
			"+sentinel|get-master-addr-by-name\n"
			"user qd-ctld on >pw -@all "
			"+sentinel|get-master-addr-by-name\n"
			"user qd-share on >pw -@all "
			"+sentinel|get-master-addr-by-name\n");
	sentinel_addr(addr, sizeof(addr), NULL);
	pw = password_file("pw\n");
	rd = as(addr, "qd-node", pw);
	cr_expect_eq(apply(rd, 1), 1, "node: %s", err);
	ctl = as(addr, "qd-ctld", pw);
	cr_expect_geq(
	    qd_redis_publish_running(ctl, "qd", &job, 1, err, sizeof(err)), 0,
	    "site factor: %s", err);
	cr_expect_eq(qd_redis_read_usage(ctl, "qd", WEEK, count_usage, &rows,
					 &skipped, err, sizeof(err)),
		     0, "site factor: %s", err);
	share = as(addr, "qd-share", pw);
	cr_expect_eq(qd_redis_read_usage(share, "qd", WEEK, count_usage, &rows,
					 &skipped, err, sizeof(err)),
		     0, "share: %s", err);
	cr_expect_eq(rows, 4, "account and assoc rows, read twice");
	/* Read-only: share cannot write a record. */
	cr_expect_eq(apply(share, 2), -1);
	cr_expect(strstr(err, "NOPERM") || strstr(err, "permission"), "%s",
		  err);
	qd_redis_free(ctl);
	qd_redis_free(share);
	unlink(pw);
}
