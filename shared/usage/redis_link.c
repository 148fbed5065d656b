/* SPDX-License-Identifier: GPL-2.0-or-later
 * The link to one Redis server under a qd_redis handle (redis_link.h): the
 * connection, its TLS and AUTH, one command or a pipeline on it, and the
 * deadlines every call keeps.
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
#include <string.h>
#include <time.h>

#include "now_ms.h"
#include "redis_link.h"

int64_t qd_redis_deadline(const struct qd_redis *r)
{
	int64_t d = qd_now_ms() + r->timeout_ms;
	int64_t stop =
	    r->stop_ms ? __atomic_load_n(r->stop_ms, __ATOMIC_ACQUIRE) : 0;

	if (r->until_ms && r->until_ms < d)
		d = r->until_ms;
	return stop && stop < d ? stop : d;
}

void qd_redis_budget(struct qd_redis *r)
{
	r->until_ms = qd_now_ms() + r->timeout_ms;
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

void qd_redis_warn(const struct qd_redis *r, const char *fmt, ...)
{
	char msg[QD_REDIS_ERR_MAX];
	va_list ap;

	if (!r->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->warn(msg, r->warn_arg);
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
	int64_t left = deadline_ms - qd_now_ms();

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

/* Bounds the next exchange on the open connection by the deadline. */
static int arm(struct qd_redis *r, int64_t deadline_ms, const char *step,
	       char *err, size_t errlen)
{
	struct timeval tv;

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
		left = deadline_ms - qd_now_ms();
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

redisReply *qd_redis_link_command(struct qd_redis *r, int64_t deadline_ms,
				  const char *step, int argc, const char **argv,
				  const size_t *argvlen, char *err,
				  size_t errlen)
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

int qd_redis_link_pipeline(struct qd_redis *r, int64_t deadline_ms,
			   const char *step, size_t n, int argc,
			   const char **argv, redisReply **replies, char *err,
			   size_t errlen)
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

static int auth(struct qd_redis *r, int64_t deadline_ms, char *err,
		size_t errlen)
{
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
	reply = qd_redis_link_command(r, deadline_ms, "AUTH", argc, argv,
				      argvlen, err, errlen);
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
