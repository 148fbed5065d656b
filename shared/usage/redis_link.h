/* SPDX-License-Identifier: GPL-2.0-or-later
 * The handle's fields, and its link to one server (redis_link.c): open a
 * connection, with TLS and AUTH, and run commands on it once each, with the
 * rule that a context which saw any I/O error is thrown away (a hiredis
 * context is unusable after one, and a reply may be half read). The lowest
 * of the redis_*.c layers: Sentinel discovery (redis_sentinel.c) and the
 * commands that connect as the address says (redis_conn.c) call it, never
 * the other way. Internal to redis_*.c.
 */
#ifndef QD_REDIS_LINK_H
#define QD_REDIS_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "hiredis_lib.h"

struct ssl_ctx_st; /* OpenSSL's SSL_CTX */

#include "redis_addr.h"
#include "redis_usage.h"

struct qd_redis {
	redisContext *c; /* NULL: connect at the next command */
	char label[320]; /* "redis ADDR" */
	struct qd_redis_addr addr;
	/* Sentinel: the primary last found, kept for when no sentinel
	 * answers, and the sentinel that answered last, asked first. */
	struct qd_redis_endpoint primary;
	size_t next_sentinel;
	bool closed; /* the last I/O error: the server closed the connection */
	struct ssl_ctx_st *tls; /* NULL: no TLS (redis_tls.c) */
	char *user;		/* NULL: AUTH with the password alone */
	char *password;		/* NULL: no AUTH */
	int timeout_ms;
	int64_t until_ms; /* 0, or when every call must end (qd_redis_budget) */
	/* qd_redis_config's stop_ms: NULL, or read atomically */
	const int64_t *stop_ms;
	int replicas; /* WAIT for this many after each record; 0: none */
	qd_redis_warn_fn warn;
	void *warn_arg;
	/* The scripts' SHA-1, computed at their first run and kept across
	 * reconnects: the text, hence the SHA, never changes. */
	char sha[41];	      /* qd_usage_script */
	char sha_running[41]; /* qd_running_script */
};

/* A call's deadline: timeout_ms from now, or the budget's end or the
 * owner's stop if sooner. */
int64_t qd_redis_deadline(const struct qd_redis *r);

/*
 * Connects to one server (host and port, or a unix socket path when host is
 * NULL) as the handle's connection, and sends AUTH when the handle has a
 * password. Returns 0, or -1 with err and no connection.
 */
int qd_redis_open(struct qd_redis *r, const char *host, int port,
		  const char *path, int64_t deadline_ms, char *err,
		  size_t errlen);

/*
 * Runs one command on the connection open now (r->c), before deadline_ms,
 * sent once: no new connection, no second try. Returns the reply, which may
 * be an error reply, or NULL with err "LABEL: STEP: cause"; then the
 * connection was dropped.
 */
redisReply *qd_redis_link_command(struct qd_redis *r, int64_t deadline_ms,
				  const char *step, int argc, const char **argv,
				  const size_t *argvlen, char *err,
				  size_t errlen);

/*
 * A pipeline on the connection open now: sends n commands of argc
 * arguments each (argv[i * argc + k]), then reads n replies into
 * replies[]. Returns 0, or -1 with err, the connection dropped and no
 * replies kept.
 */
int qd_redis_link_pipeline(struct qd_redis *r, int64_t deadline_ms,
			   const char *step, size_t n, int argc,
			   const char **argv, redisReply **replies, char *err,
			   size_t errlen);

/* Passes one line to the handle's warn (qd_redis_config), if any. */
void qd_redis_warn(const struct qd_redis *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Drops the connection; the next command connects again. */
void qd_redis_drop(struct qd_redis *r);

/* err = "LABEL: STEP: what". Returns -1. */
int qd_redis_fail(const struct qd_redis *r, char *err, size_t errlen,
		  const char *step, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* TLS (redis_tls.c): the context for cfg's redis_tls_* (none when not
 * given), or -1 with err; refused by a build without TLS. */
int qd_redis_tls_new(struct qd_redis *r, const struct qd_redis_config *cfg,
		     char *err, size_t errlen);

/* The TLS handshake on a new connection to host, which the server's
 * certificate must name. Returns 0, or -1 with why. */
int qd_redis_tls_start(struct qd_redis *r, redisContext *c, const char *host,
		       char *why, size_t whylen);

void qd_redis_tls_free(struct qd_redis *r);

#endif
