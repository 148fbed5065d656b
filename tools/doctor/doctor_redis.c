/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny doctor's Redis check, as the plugins reach it (docs/gpu-and-usage.md,
 * Redis for production): the connection and AUTH (a password file, or a user
 * and password for an ACL user), TIME's round trip, SCRIPT LOAD of the usage
 * script that every job's record runs (shared/usage/usage_script.c: does it
 * compile on this server) and the rights to run it as the plugins do, EVALSHA
 * and EVAL; and, for a TCP port on the loopback without TLS, who listens on
 * it: a port above 1023 is any user's to take where Redis does not run or
 * has stopped, and a job there is sent the password.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "doctor.h"
#include "now_ms.h"
#include "redis_addr.h"
#include "redis_conn.h"
#include "textfile.h"

/* Where the kernel lists TCP sockets, and login users begin. */
#define PROC_NET_TCP  "/proc/net/tcp"
#define PROC_NET_TCP6 "/proc/net/tcp6"
#define LOGIN_DEFS    "/etc/login.defs"

static bool loopback_host(const char *host)
{
	return !strncmp(host, "127.", 4) || !strcmp(host, "::1") ||
	       !strcmp(host, "localhost") || !strcmp(host, "::ffff:127.0.0.1");
}

/*
 * The uid listening on the loopback port of cfg's address, when that is a
 * TCP port on the loopback without TLS and the uid is a login user's
 * (UID_MIN or more): a job may be posing as Redis. -1 otherwise.
 */
static long posing_uid(const struct qd_redis_config *cfg)
{
	struct qd_redis_addr a;
	char why[256];
	long uid = -1, min;
	char *text, *defs;

	if (cfg->tls_ca ||
	    qd_redis_addr_parse(cfg->addr ? cfg->addr : QD_REDIS_DEFAULT_ADDR,
				&a, why, sizeof(why)) ||
	    a.kind != QD_REDIS_TCP || !loopback_host(a.tcp.host))
		return -1;
	for (int i = 0; i < 2; i++) {
		long u;

		text = qd_read_file(i ? PROC_NET_TCP6 : PROC_NET_TCP, NULL, why,
				    sizeof(why));
		u = text ? qd_doctor_loopback_listener_uid(text, a.tcp.port)
			 : -1;
		if (u > uid)
			uid = u;
		free(text);
	}
	defs = qd_read_file(LOGIN_DEFS, NULL, why, sizeof(why));
	min = qd_doctor_uid_min(defs);
	free(defs);
	return uid >= min ? uid : -1;
}

/* One command within timeout_ms; 0, or -1 with err. */
static int run(struct qd_redis *r, int timeout_ms, const char *step, int argc,
	       const char **argv, char *err, size_t errlen)
{
	redisReply *reply = qd_redis_command(r, qd_now_ms() + timeout_ms, step,
					     argc, argv, NULL, err, errlen);
	int rv = 0;

	if (!reply)
		return -1;
	if (reply->type == REDIS_REPLY_ERROR)
		rv = qd_redis_fail(r, err, errlen, step, "%s", reply->str);
	qd_hiredis.freeReplyObject(reply);
	return rv;
}

/*
 * Whether the ACL lets the user run a command, by a call that the server
 * refuses after the ACL check, so that nothing runs: where allowed, the
 * reply is the error that starts with want, where not NOPERM.
 */
static int may_run(struct qd_redis *r, int timeout_ms, const char **argv,
		   const char *want, char *err, size_t errlen)
{
	redisReply *reply = qd_redis_command(
	    r, qd_now_ms() + timeout_ms, argv[0], 3, argv, NULL, err, errlen);
	int rv = 0;

	if (!reply)
		return -1;
	if (reply->type != REDIS_REPLY_ERROR ||
	    strncmp(reply->str, want, strlen(want)))
		rv = qd_redis_fail(r, err, errlen, argv[0], "%s",
				   reply->type == REDIS_REPLY_ERROR
				       ? reply->str
				       : "unexpected reply");
	qd_hiredis.freeReplyObject(reply);
	return rv;
}

void qd_doctor_redis(struct qd_doctor *d, const struct qd_redis_config *given)
{
	/* TIME, not PING: the ACL of docs/gpu-and-usage.md has no +ping. */
	const char *time_cmd[] = {"TIME"};
	const char *load[] = {"SCRIPT", "LOAD", qd_usage_script};
	/* The plugins run a script by EVALSHA, and by EVAL where the server
	 * does not have it yet: a script no server has, and one key named
	 * but none given. */
	const char *evalsha[] = {
	    "EVALSHA", "0000000000000000000000000000000000000000", "0"};
	const char *eval[] = {"EVAL", "return 0", "1"};
	struct qd_redis_config cfg = *given;
	char err[QD_REDIS_ERR_MAX];
	struct qd_redis *r;
	int64_t t0, rtt_us;
	struct timespec ts;
	long uid;

	if (cfg.timeout_ms <= 0)
		cfg.timeout_ms = QD_REDIS_DEFAULT_TIMEOUT_MS;
	r = qd_redis_new(&cfg, err, sizeof(err));
	if (!r) {
		qd_doctor_line(d, QD_DOC_FAIL, "redis", err,
			       "correct redis= or redis_password_file= on "
			       "the plugstack line");
		return;
	}
	/* Before the first command sends it the password. */
	uid = posing_uid(&cfg);
	if (uid >= 0) {
		struct passwd *pw = getpwuid((uid_t)uid);

		qd_doctor_linef(
		    d, QD_DOC_FAIL, "redis",
		    "stop that process; give redis= as unix:/PATH in a "
		    "directory only Redis and root can write, or use TLS "
		    "(docs/gpu-and-usage.md, Redis for production)",
		    "%s: a TCP port on the loopback, listened on by %s (uid "
		    "%ld), a login user, not Redis's system account: a job "
		    "may be posing as Redis to be sent the password; not "
		    "connected",
		    qd_redis_label(r), pw ? pw->pw_name : "?", uid);
		qd_redis_free(r);
		return;
	}
	/* The first TIME connects (and AUTHs); the second is timed alone. */
	if (run(r, cfg.timeout_ms, "TIME", 1, time_cmd, err, sizeof(err)))
		goto fail;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
	if (run(r, cfg.timeout_ms, "TIME", 1, time_cmd, err, sizeof(err)))
		goto fail;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	rtt_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 - t0;
	if (run(r, cfg.timeout_ms, "SCRIPT LOAD", 3, load, err, sizeof(err)) ||
	    may_run(r, cfg.timeout_ms, evalsha, "NOSCRIPT", err, sizeof(err)) ||
	    may_run(r, cfg.timeout_ms, eval, "ERR Number of keys", err,
		    sizeof(err)))
		goto fail;
	if (qd_redis_open_to_anyone(&cfg))
		qd_doctor_linef(
		    d, QD_DOC_WARN, "redis",
		    "set requirepass (or ACL users) in redis.conf and "
		    "redis_password_file= on the plugstack line, a root-owned "
		    "file (docs/gpu-and-usage.md, Redis for production)",
		    "%s: answers without AUTH: any job on a node can write "
		    "the usage store; usage script loaded, EVAL allowed, "
		    "EVALSHA allowed, round trip %.2f ms",
		    qd_redis_label(r), (double)rtt_us / 1000.0);
	else
		qd_doctor_linef(d, QD_DOC_OK, "redis", NULL,
				"%s: AUTH accepted, usage script loaded, EVAL "
				"allowed, EVALSHA allowed, round trip %.2f ms",
				qd_redis_label(r), (double)rtt_us / 1000.0);
	qd_redis_free(r);
	return;
fail:
	qd_doctor_line(d, QD_DOC_FAIL, "redis", err,
		       "start Redis or correct redis=; a refused AUTH or "
		       "command: the password file or the ACL user's rights "
		       "(docs/gpu-and-usage.md, Redis for production)");
	qd_redis_free(r);
}
