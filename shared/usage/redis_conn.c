/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_redis handles: made from their configuration, connected to whatever
 * the address says (one server, or the primary the sentinels name), and
 * the commands that connect when needed and, under Sentinel, follow a
 * failover (docs/high-availability.md). Above the link to one server
 * (redis_link.c) and Sentinel discovery (redis_sentinel.c), which call
 * nothing here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redis_conn.h"
#include "redis_sentinel.h"
#include "sha1.h"

static int connect_at(struct qd_redis *r, int64_t deadline_ms, char *err,
		      size_t errlen)
{
	switch (r->addr.kind) {
	case QD_REDIS_TCP:
		return qd_redis_open(r, r->addr.tcp.host, r->addr.tcp.port,
				     NULL, deadline_ms, err, errlen);
	case QD_REDIS_UNIX:
		return qd_redis_open(r, NULL, 0, r->addr.path, deadline_ms, err,
				     errlen);
	case QD_REDIS_SENTINEL:
		break;
	}
	return qd_sentinel_connect(r, deadline_ms, err, errlen);
}

/* One command, on a connection made first when there is none. */
static redisReply *exchange(struct qd_redis *r, int64_t deadline_ms,
			    const char *step, int argc, const char **argv,
			    const size_t *argvlen, char *err, size_t errlen)
{
	if (!r->c && connect_at(r, deadline_ms, err, errlen))
		return NULL;
	return qd_redis_link_command(r, deadline_ms, step, argc, argv, argvlen,
				     err, errlen);
}

/* A server that is a replica now (a failover demoted it) refuses writes
 * with READONLY: nothing was applied. */
static bool is_readonly(const redisReply *reply)
{
	return reply->type == REDIS_REPLY_ERROR &&
	       !strncmp(reply->str, "READONLY", 8);
}

/*
 * A connection made before this command that the server closed: after a
 * failover the sentinels close every client of the old primary (CLIENT
 * KILL). Not WAIT: it counts the replicas of this connection's last write,
 * which a new connection has not made.
 */
static bool closed_by_failover(const struct qd_redis *r, bool reused,
			       const char *step)
{
	return reused && r->addr.kind == QD_REDIS_SENTINEL &&
	       strcmp(step, "WAIT") && r->closed;
}

redisReply *qd_redis_command(struct qd_redis *r, int64_t deadline_ms,
			     const char *step, int argc, const char **argv,
			     const size_t *argvlen, char *err, size_t errlen)
{
	bool reused = r->c != NULL;
	redisReply *reply =
	    exchange(r, deadline_ms, step, argc, argv, argvlen, err, errlen);

	if (!reply && closed_by_failover(r, reused, step))
		return exchange(r, deadline_ms, step, argc, argv, argvlen, err,
				errlen);
	if (!reply || !is_readonly(reply))
		return reply;
	/* Under Sentinel the primary moved: ask again and send the command
	 * once more to the new one, within the same deadline. */
	qd_redis_drop(r);
	if (r->addr.kind != QD_REDIS_SENTINEL)
		return reply;
	qd_hiredis.freeReplyObject(reply);
	return exchange(r, deadline_ms, step, argc, argv, argvlen, err, errlen);
}

int qd_redis_pipeline(struct qd_redis *r, int64_t deadline_ms, const char *step,
		      size_t n, int argc, const char **argv,
		      redisReply **replies, char *err, size_t errlen)
{
	if (!r->c && connect_at(r, deadline_ms, err, errlen))
		return -1;
	return qd_redis_link_pipeline(r, deadline_ms, step, n, argc, argv,
				      replies, err, errlen);
}

struct qd_redis *qd_redis_new(const struct qd_redis_config *cfg, char *err,
			      size_t errlen)
{
	const char *addr = cfg->addr ? cfg->addr : QD_REDIS_DEFAULT_ADDR;
	struct qd_redis *r = calloc(1, sizeof(*r));
	char why[QD_REDIS_ERR_MAX];

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (qd_hiredis_load(err, errlen))
		goto fail;
	r->timeout_ms =
	    cfg->timeout_ms > 0 ? cfg->timeout_ms : QD_REDIS_DEFAULT_TIMEOUT_MS;
	r->warn = cfg->warn;
	r->warn_arg = cfg->warn_arg;
	r->stop_ms = cfg->stop_ms;
	snprintf(r->label, sizeof(r->label), "redis %.300s", addr);
	if (qd_redis_addr_parse(addr, &r->addr, why, sizeof(why))) {
		snprintf(err, errlen, "redis address '%s': %s", addr, why);
		goto fail;
	}
	/* qosdeny(1), PLUGSTACK.CONF OPTIONS: one replica by default under
	 * Sentinel, whose point is that a failover loses nothing. */
	r->replicas = cfg->replicas_given		  ? cfg->replicas
		      : r->addr.kind == QD_REDIS_SENTINEL ? 1
							  : 0;
	if (qd_redis_tls_new(r, cfg, err, errlen))
		goto fail;
	if (qd_redis_credentials(cfg, &r->user, &r->password, err, errlen))
		goto fail;
	return r;
fail:
	qd_redis_free(r);
	return NULL;
}

const char *qd_redis_label(const struct qd_redis *r)
{
	return r->label;
}

void qd_redis_free(struct qd_redis *r)
{
	if (!r)
		return;
	qd_redis_drop(r);
	qd_redis_tls_free(r);
	if (r->user)
		explicit_bzero(r->user, strlen(r->user));
	if (r->password)
		explicit_bzero(r->password, strlen(r->password));
	free(r->user);
	free(r->password);
	free(r);
}

/*
 * A server that wants a password answers a client that sent none with
 * NOAUTH, except for a command of more than 10 arguments (a script's run
 * is one): that gets "Protocol error: unauthenticated multibulk length",
 * and the connection is closed. Said as what it means.
 */
static redisReply *without_auth(struct qd_redis *r, redisReply *reply,
				const char *step, char *err, size_t errlen)
{
	if (!reply || reply->type != REDIS_REPLY_ERROR || r->password ||
	    !strstr(reply->str, "unauthenticated"))
		return reply;
	qd_redis_fail(r, err, errlen, step,
		      "NOAUTH Authentication required (the server answered: "
		      "%s); set redis_password_file=",
		      reply->str);
	qd_hiredis.freeReplyObject(reply);
	qd_redis_drop(r);
	return NULL;
}

redisReply *qd_redis_eval(struct qd_redis *r, const char *script, char *sha,
			  int64_t deadline_ms, int argc, const char **argv,
			  char *err, size_t errlen)
{
	redisReply *reply;

	/* The SHA Redis gives a script is its text's SHA-1: no SCRIPT LOAD
	 * (a round trip, and a compile on the server) for it. */
	if (!sha[0])
		qd_sha1_hex(script, strlen(script), sha);
	argv[0] = "EVALSHA";
	argv[1] = sha;
	reply = without_auth(r,
			     qd_redis_command(r, deadline_ms, "EVALSHA", argc,
					      argv, NULL, err, errlen),
			     "EVALSHA", err, errlen);
	if (reply && reply->type == REDIS_REPLY_ERROR &&
	    !strncmp(reply->str, "NOSCRIPT", 8)) {
		qd_hiredis.freeReplyObject(reply);
		argv[0] = "EVAL";
		argv[1] = script;
		reply = qd_redis_command(r, deadline_ms, "EVAL", argc, argv,
					 NULL, err, errlen);
	}
	return reply;
}

int qd_redis_script_reply(const struct qd_redis *r, const redisReply *reply,
			  long *value)
{
	if (reply->type != REDIS_REPLY_ARRAY || !reply->elements ||
	    reply->element[0]->type != REDIS_REPLY_INTEGER)
		return -1;
	for (size_t i = 1; i < reply->elements; i++)
		if (reply->element[i]->type != REDIS_REPLY_STRING)
			return -1;
	for (size_t i = 1; i < reply->elements; i++)
		qd_redis_warn(r, "%s: %.300s", r->label,
			      reply->element[i]->str);
	*value = reply->element[0]->integer;
	return 0;
}
