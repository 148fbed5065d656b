/*
 * qd_redis handles: the address, the connection, and the deadlines.
 *
 * Debian 12's hiredis is 0.14, which has no redisConnectWithOptions: the
 * connect timeout is redisConnect*WithTimeout's; replies are waited for
 * with poll() until the caller's deadline, so a call never blocks longer
 * than timeout_ms however many round trips it needs. (SO_RCVTIMEO, hiredis'
 * own command timeout, ends a few percent late: the kernel's timer wheel
 * rounds long timeouts up.) Writes keep SO_SNDTIMEO, set to what is left. A
 * host name is resolved without a timeout: give an address.
 *
 * hiredis writes with write(2): a server that closed the connection would
 * raise SIGPIPE, which kills a process that has not ignored it (slurmstepd
 * is one). SIGPIPE is blocked in the calling thread around each exchange,
 * and one it raised is consumed.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "redis_conn.h"

int64_t qd_redis_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t qd_redis_deadline(const struct qd_redis *r)
{
	int64_t d = qd_redis_now_ms() + r->timeout_ms;
	int64_t stop =
	    r->stop_ms ? __atomic_load_n(r->stop_ms, __ATOMIC_ACQUIRE) : 0;

	if (r->until_ms && r->until_ms < d)
		d = r->until_ms;
	return stop && stop < d ? stop : d;
}

void qd_redis_budget(struct qd_redis *r)
{
	r->until_ms = qd_redis_now_ms() + r->timeout_ms;
}

int qd_redis_fail(const struct qd_redis *r, char *err, size_t errlen,
		  const char *step, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s: %s: ", r->label, step);

	if (n >= 0 && (size_t)n < errlen) {
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

void qd_redis_drop(struct qd_redis *r)
{
	if (r->c)
		qd_hiredis.redisFree(r->c);
	r->c = NULL;
}

struct sigpipe_guard {
	sigset_t old;
	bool was_pending;
};

static void sigpipe_block(struct sigpipe_guard *g)
{
	sigset_t set, pending;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigpending(&pending);
	g->was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, &g->old);
}

static void sigpipe_restore(struct sigpipe_guard *g)
{
	static const struct timespec zero;
	sigset_t set, pending;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigpending(&pending);
	if (!g->was_pending && sigismember(&pending, SIGPIPE))
		sigtimedwait(&set, NULL, &zero);
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

/* What is left until deadline; -1 when nothing is. */
static int remaining(int64_t deadline_ms, struct timeval *tv)
{
	int64_t left = deadline_ms - qd_redis_now_ms();

	if (left <= 0)
		return -1;
	tv->tv_sec = left / 1000;
	tv->tv_usec = (left % 1000) * 1000;
	return 0;
}

static bool is_timeout(const char *errstr)
{
	return !strcmp(errstr, strerror(EAGAIN)) ||
	       !strcmp(errstr, strerror(ETIMEDOUT)) ||
	       !strcmp(errstr, strerror(EINPROGRESS));
}

/* The error of a context that failed, then drops it. */
static int io_error(struct qd_redis *r, redisContext *c, const char *step,
		    char *err, size_t errlen)
{
	r->closed = c && c->err == REDIS_ERR_EOF;
	if (!c || !c->err)
		qd_redis_fail(r, err, errlen, step, "out of memory");
	else if (c->err == REDIS_ERR_IO && is_timeout(c->errstr))
		qd_redis_fail(r, err, errlen, step, "timed out after %d ms",
			      r->timeout_ms);
	else
		qd_redis_fail(r, err, errlen, step, "%s", c->errstr);
	if (c && c != r->c)
		qd_hiredis.redisFree(c);
	qd_redis_drop(r);
	return -1;
}

static int timed_out(struct qd_redis *r, const char *step, char *err,
		     size_t errlen)
{
	qd_redis_drop(r);
	return qd_redis_fail(r, err, errlen, step, "timed out after %d ms",
			     r->timeout_ms);
}

static int auth(struct qd_redis *r, int64_t deadline_ms, char *err,
		size_t errlen)
{
	bool was = r->connecting;
	const char *argv[3] = {"AUTH"};
	size_t argvlen[3] = {4};
	int argc = 1, rv = -1;
	redisReply *reply;

	if (r->user) {
		argv[argc] = r->user;
		argvlen[argc++] = strlen(r->user);
	}
	argv[argc] = r->password;
	argvlen[argc++] = strlen(r->password);
	r->connecting = true;
	reply = qd_redis_command(r, deadline_ms, "AUTH", argc, argv, argvlen,
				 err, errlen);
	r->connecting = was;
	if (!reply)
		return -1;
	if (reply->type == REDIS_REPLY_ERROR) {
		qd_redis_fail(r, err, errlen, "AUTH", "%s", reply->str);
		qd_redis_drop(r);
		goto fail;
	}
	rv = 0;
fail:
	qd_hiredis.freeReplyObject(reply);
	return rv;
}

/* The handshake, bounded by what is left (SO_RCVTIMEO: hiredis' TLS
 * handshake blocks on the socket); c is freed when it fails. */
static int start_tls(struct qd_redis *r, redisContext *c, const char *host,
		     int port, int64_t deadline_ms, char *err, size_t errlen)
{
	char why[QD_REDIS_ERR_MAX];
	struct sigpipe_guard g;
	struct timeval tv;
	int rv;

	if (remaining(deadline_ms, &tv) ||
	    qd_hiredis.redisSetTimeout(c, tv) != REDIS_OK) {
		qd_hiredis.redisFree(c);
		return timed_out(r, "TLS", err, errlen);
	}
	sigpipe_block(&g);
	rv = qd_redis_tls_start(r, c, host, why, sizeof(why));
	sigpipe_restore(&g);
	if (!rv)
		return 0;
	qd_hiredis.redisFree(c);
	return qd_redis_fail(r, err, errlen, "connect", "%s:%d: %s", host, port,
			     why);
}

int qd_redis_open(struct qd_redis *r, const char *host, int port,
		  const char *path, int64_t deadline_ms, char *err,
		  size_t errlen)
{
	struct sigpipe_guard g;
	struct timeval tv;
	redisContext *c;

	qd_redis_drop(r);
	if (remaining(deadline_ms, &tv))
		return timed_out(r, "connect", err, errlen);
	sigpipe_block(&g);
	if (host)
		c = qd_hiredis.redisConnectWithTimeout(host, port, tv);
	else
		c = qd_hiredis.redisConnectUnixWithTimeout(path, tv);
	sigpipe_restore(&g);
	if (!c || c->err)
		return io_error(r, c, "connect", err, errlen);
	if (r->tls && start_tls(r, c, host, port, deadline_ms, err, errlen))
		return -1;
	r->c = c;
	return r->password ? auth(r, deadline_ms, err, errlen) : 0;
}

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

/* Connects if needed, and bounds the next exchange by the deadline. */
static int arm(struct qd_redis *r, int64_t deadline_ms, const char *step,
	       char *err, size_t errlen)
{
	struct timeval tv;

	if (!r->c && connect_at(r, deadline_ms, err, errlen))
		return -1;
	if (remaining(deadline_ms, &tv))
		return timed_out(r, step, err, errlen);
	if (qd_hiredis.redisSetTimeout(r->c, tv) != REDIS_OK)
		return io_error(r, r->c, step, err, errlen);
	return 0;
}

/*
 * redisGetReply for a blocking context, but waiting for each read with
 * poll() against the deadline. A timeout leaves c in error as hiredis'
 * own would (ETIMEDOUT), for io_error.
 */
static int get_reply(redisContext *c, int64_t deadline_ms, void **reply)
{
	int done = 0;

	*reply = NULL;
	while (!done)
		if (qd_hiredis.redisBufferWrite(c, &done) != REDIS_OK)
			return REDIS_ERR;
	for (;;) {
		struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
		int64_t left;
		int k;

		if (qd_hiredis.redisGetReplyFromReader(c, reply) != REDIS_OK)
			return REDIS_ERR;
		if (*reply)
			return REDIS_OK;
		left = deadline_ms - qd_redis_now_ms();
		k = left > 0 ? poll(&pfd, 1, (int)left) : 0;
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			c->err = REDIS_ERR_IO;
			snprintf(c->errstr, sizeof(c->errstr), "%s",
				 strerror(k ? errno : ETIMEDOUT));
			return REDIS_ERR;
		}
		if (qd_hiredis.redisBufferRead(c) != REDIS_OK)
			return REDIS_ERR;
	}
}

static redisReply *exchange(struct qd_redis *r, int64_t deadline_ms,
			    const char *step, int argc, const char **argv,
			    const size_t *argvlen, char *err, size_t errlen)
{
	struct sigpipe_guard g;
	redisReply *reply;

	if (arm(r, deadline_ms, step, err, errlen))
		return NULL;
	sigpipe_block(&g);
	if (qd_hiredis.redisAppendCommandArgv(r->c, argc, argv, argvlen) !=
		REDIS_OK ||
	    get_reply(r->c, deadline_ms, (void **)&reply) != REDIS_OK)
		reply = NULL;
	sigpipe_restore(&g);
	if (!reply)
		io_error(r, r->c, step, err, errlen);
	return reply;
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
	return reused && !r->connecting && r->addr.kind == QD_REDIS_SENTINEL &&
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
	if (!reply || !is_readonly(reply) || r->connecting)
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
	struct sigpipe_guard g;
	size_t got = 0;
	int rv = -1;

	if (arm(r, deadline_ms, step, err, errlen))
		return -1;
	sigpipe_block(&g);
	for (size_t i = 0; i < n; i++) {
		if (qd_hiredis.redisAppendCommandArgv(
			r->c, argc, argv + i * argc, NULL) != REDIS_OK) {
			io_error(r, r->c, step, err, errlen);
			goto fail;
		}
	}
	for (got = 0; got < n; got++) {
		if (get_reply(r->c, deadline_ms, (void **)&replies[got]) !=
		    REDIS_OK) {
			io_error(r, r->c, step, err, errlen);
			goto fail;
		}
	}
	rv = 0;
fail:
	sigpipe_restore(&g);
	if (rv)
		for (size_t i = 0; i < got; i++)
			qd_hiredis.freeReplyObject(replies[i]);
	return rv;
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
	/* README "plugstack.conf": one replica by default under Sentinel,
	 * whose point is that a failover loses nothing. */
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

/* Loads a script once per handle; its SHA survives reconnects. */
static int load_script(struct qd_redis *r, const char *script, char *sha,
		       int64_t deadline, char *err, size_t errlen)
{
	const char *argv[] = {"SCRIPT", "LOAD", script};
	redisReply *reply;
	int rv = -1;

	if (sha[0])
		return 0;
	reply = qd_redis_command(r, deadline, "SCRIPT LOAD", 3, argv, NULL, err,
				 errlen);
	if (!reply)
		return -1;
	if (reply->type == REDIS_REPLY_ERROR) {
		qd_redis_fail(r, err, errlen, "SCRIPT LOAD", "%s", reply->str);
		goto fail;
	}
	if (reply->type != REDIS_REPLY_STRING || reply->len != 40) {
		qd_redis_fail(r, err, errlen, "SCRIPT LOAD",
			      "unexpected reply");
		goto fail;
	}
	memcpy(sha, reply->str, 40);
	sha[40] = '\0';
	rv = 0;
fail:
	qd_hiredis.freeReplyObject(reply);
	return rv;
}

redisReply *qd_redis_eval(struct qd_redis *r, const char *script, char *sha,
			  int64_t deadline_ms, int argc, const char **argv,
			  char *err, size_t errlen)
{
	redisReply *reply;

	if (load_script(r, script, sha, deadline_ms, err, errlen))
		return NULL;
	argv[0] = "EVALSHA";
	argv[1] = sha;
	reply = qd_redis_command(r, deadline_ms, "EVALSHA", argc, argv, NULL,
				 err, errlen);
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
