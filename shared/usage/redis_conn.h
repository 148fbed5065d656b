/*
 * The connection behind a qd_redis handle: address, password, deadlines,
 * and the rule that a context which saw any I/O error is thrown away (a
 * hiredis context is unusable after one, and a reply may be half read).
 * Internal to redis_*.c.
 */
#ifndef QD_REDIS_CONN_H
#define QD_REDIS_CONN_H

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
	bool connecting; /* AUTH, or Sentinel discovery: never sent again */
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
	/* The scripts' SHA1 once loaded, kept across reconnects: the text,
	 * hence the SHA, never changes. */
	char sha[41];	      /* qd_usage_script */
	char sha_running[41]; /* qd_running_script */
};

/* Longest key: "qosdeny:{C}:KIND:A:B". */
#define QD_REDIS_KEY_MAX (32 + 3 * QD_NAME_MAX + 48)

/* buf = "qosdeny:{cluster}:kind:a[:b]". Returns 0, or -1 when too long. */
int qd_redis_key(char *buf, const char *cluster, const char *kind,
		 const char *a, const char *b);

/*
 * Runs a Lua script by its SHA (sha: the handle's slot for it, "" until
 * loaded): SCRIPT LOAD first when this handle has not loaded it, and EVAL
 * with the text when the server lost its cache (restart, SCRIPT FLUSH).
 * argv[0] and argv[1] are set here (EVALSHA, the SHA); the caller fills
 * argv[2..argc-1] (numkeys, keys, arguments). Returns the reply, which may
 * be an error reply, or NULL with err.
 */
redisReply *qd_redis_eval(struct qd_redis *r, const char *script, char *sha,
			  int64_t deadline_ms, int argc, const char **argv,
			  char *err, size_t errlen);

/* Milliseconds on the monotonic clock. */
int64_t qd_redis_now_ms(void);

/* A call's deadline: timeout_ms from now, or the budget's end or the
 * owner's stop if sooner. */
int64_t qd_redis_deadline(const struct qd_redis *r);

/*
 * Runs one command, connecting (and AUTH) first when needed, all before
 * deadline_ms. Returns the reply, which may be an error reply, or NULL with
 * err "LABEL: STEP: cause"; then the connection was dropped.
 */
redisReply *qd_redis_command(struct qd_redis *r, int64_t deadline_ms,
			     const char *step, int argc, const char **argv,
			     const size_t *argvlen, char *err, size_t errlen);

/*
 * A pipeline: sends n commands of argc arguments each (argv[i * argc + k]),
 * then reads n replies into replies[]. Returns 0, or -1 with err, the
 * connection dropped and no replies kept.
 */
int qd_redis_pipeline(struct qd_redis *r, int64_t deadline_ms, const char *step,
		      size_t n, int argc, const char **argv,
		      redisReply **replies, char *err, size_t errlen);

/* The server's clock, in seconds: usage is decayed to its now, and one
 * clock serves every node. Returns 0, or -1 with err. */
int qd_redis_time(struct qd_redis *r, double *now, char *err, size_t errlen);

/*
 * Connects to one server (host and port, or a unix socket path when host is
 * NULL) as the handle's connection, and sends AUTH when the handle has a
 * password. Returns 0, or -1 with err and no connection.
 */
int qd_redis_open(struct qd_redis *r, const char *host, int port,
		  const char *path, int64_t deadline_ms, char *err,
		  size_t errlen);

/*
 * Sentinel: asks the sentinels for the primary and connects to it
 * (redis_sentinel.c). Returns 0, or -1 with err and no connection.
 */
int qd_sentinel_connect(struct qd_redis *r, int64_t deadline_ms, char *err,
			size_t errlen);

/* TLS (redis_tls.c): the context for cfg's redis_tls_* (none when not
 * given), or -1 with err; refused by a build without TLS. */
int qd_redis_tls_new(struct qd_redis *r, const struct qd_redis_config *cfg,
		     char *err, size_t errlen);

/* The TLS handshake on a new connection to host, which the server's
 * certificate must name. Returns 0, or -1 with why. */
int qd_redis_tls_start(struct qd_redis *r, redisContext *c, const char *host,
		       char *why, size_t whylen);

void qd_redis_tls_free(struct qd_redis *r);

/* Drops the connection; the next command connects again. */
void qd_redis_drop(struct qd_redis *r);

/* err = "LABEL: STEP: what". Returns -1. */
int qd_redis_fail(const struct qd_redis *r, char *err, size_t errlen,
		  const char *step, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/*
 * Reads a password file (see qd_redis_new): *user is NULL for a one-line
 * file. Returns 0, or -1 with err naming the file and what is wrong.
 */
int qd_redis_read_password(const char *path, char **user, char **password,
			   char *err, size_t errlen);

/*
 * The user and password of a configuration: the password file (see
 * qd_redis_read_password) and redis_user=. Returns 0 (*password NULL: no
 * AUTH), or -1 with err.
 */
int qd_redis_credentials(const struct qd_redis_config *cfg, char **user,
			 char **password, char *err, size_t errlen);

#endif
