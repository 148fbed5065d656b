/* SPDX-License-Identifier: GPL-2.0-or-later
 * Redis Sentinel discovery (docs/high-availability.md): hiredis has none,
 * so the handle asks the sentinels in turn for the master's address
 * (SENTINEL get-master-addr-by-name), connects there and checks with ROLE
 * that the server is the primary: a sentinel that lags or lies never gets
 * us to write to a replica. Each sentinel gets a share of what is left of
 * the caller's deadline, so sentinels that are down or silent cannot make
 * the call outlast timeout_ms. When none answers, the primary found last
 * keeps being used (a warning says so): an outage of the sentinels alone
 * stops nothing.
 *
 * Over the link to one server (redis_link.c), each command sent once;
 * redis_conn.c calls this for a Sentinel address, and nothing here calls
 * back up.
 */
#include <string.h>

#include "errmsg.h"
#include "now_ms.h"
#include "redis_sentinel.h"

/* A cause without the handle's own "redis ADDR: " in front, which the
 * final error has once. */
static const char *bare(const struct qd_redis *r, const char *cause)
{
	size_t n = strlen(r->label);

	return !strncmp(cause, r->label, n) && !strncmp(cause + n, ": ", 2)
		   ? cause + n + 2
		   : cause;
}

/* What is left of the deadline, shared out among `ways` more attempts. */
static int64_t share(int64_t deadline_ms, size_t ways)
{
	int64_t now = qd_now_ms();

	return deadline_ms <= now ? now
				  : now + (deadline_ms - now) / (int64_t)ways;
}

/* Connects to e as the handle's connection and runs one command there:
 * the reply, or NULL with why naming e as what ("sentinel", "primary"). */
static redisReply *endpoint_command(struct qd_redis *r, const char *what,
				    const struct qd_redis_endpoint *e,
				    int64_t deadline_ms, int argc,
				    const char **argv, char *why, size_t whylen)
{
	char cause[QD_REDIS_ERR_MAX];
	redisReply *reply = NULL;

	if (!qd_redis_open(r, e->host, e->port, NULL, deadline_ms, cause,
			   sizeof(cause)))
		reply = qd_redis_link_command(r, deadline_ms, argv[0], argc,
					      argv, NULL, cause, sizeof(cause));
	if (!reply)
		qd_errf(why, whylen, "%s %s:%d: %s", what, e->host, e->port,
			bare(r, cause));
	return reply;
}

/* Asks one sentinel. Returns 0 with *primary, or -1 with why. */
static int ask(struct qd_redis *r, const struct qd_redis_endpoint *s,
	       int64_t deadline_ms, struct qd_redis_endpoint *primary,
	       char *why, size_t whylen)
{
	const char *argv[] = {"SENTINEL", "get-master-addr-by-name",
			      r->addr.master};
	redisReply *reply;
	int rv = -1;

	reply = endpoint_command(r, "sentinel", s, deadline_ms, 3, argv, why,
				 whylen);
	qd_redis_drop(r);
	if (!reply)
		return -1;
	if (reply->type == REDIS_REPLY_ERROR)
		qd_errf(why, whylen, "sentinel %s:%d: %s", s->host, s->port,
			reply->str);
	else if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2 ||
		 reply->element[0]->type != REDIS_REPLY_STRING ||
		 reply->element[1]->type != REDIS_REPLY_STRING ||
		 qd_redis_endpoint_named(
		     reply->element[0]->str, reply->element[0]->len,
		     reply->element[1]->str, reply->element[1]->len, primary))
		qd_errf(why, whylen,
			"sentinel %s:%d: does not know master '%s'", s->host,
			s->port, r->addr.master);
	else
		rv = 0;
	qd_hiredis.freeReplyObject(reply);
	return rv;
}

/* Connects to what a sentinel named, if ROLE says it is the primary.
 * Returns 0 connected, or -1 with why and no connection. */
static int open_primary(struct qd_redis *r, const struct qd_redis_endpoint *p,
			int64_t deadline_ms, char *why, size_t whylen)
{
	const char *argv[] = {"ROLE"};
	redisReply *reply;
	bool master;

	reply = endpoint_command(r, "primary", p, deadline_ms, 1, argv, why,
				 whylen);
	if (!reply)
		return -1;
	master = reply->type == REDIS_REPLY_ARRAY && reply->elements &&
		 reply->element[0]->type == REDIS_REPLY_STRING &&
		 reply->element[0]->len == 6 &&
		 !memcmp(reply->element[0]->str, "master", 6);
	if (!master)
		qd_errf(why, whylen,
			"%s:%d, named by the sentinels as master '%s', is not "
			"a primary (ROLE): not written to",
			p->host, p->port, r->addr.master);
	qd_hiredis.freeReplyObject(reply);
	if (!master) {
		qd_redis_drop(r);
		return -1;
	}
	r->primary = *p;
	return 0;
}

int qd_sentinel_connect(struct qd_redis *r, int64_t deadline_ms, char *err,
			size_t errlen)
{
	size_t n = r->addr.n_sentinels;
	char why[QD_REDIS_ERR_MAX] = "no time left";
	bool answered = false;

	for (size_t i = 0; i < n; i++) {
		size_t k = (r->next_sentinel + i) % n;
		struct qd_redis_endpoint p;

		/* One share for each sentinel not asked yet, one for the
		 * primary. */
		if (ask(r, &r->addr.sentinels[k], share(deadline_ms, n - i + 1),
			&p, why, sizeof(why)))
			continue;
		answered = true;
		r->next_sentinel = k;
		if (!open_primary(r, &p, share(deadline_ms, n - i), why,
				  sizeof(why)))
			return 0;
	}
	if (!answered && r->primary.host[0]) {
		qd_redis_warn(
		    r,
		    "%s: no sentinel answered (last: %s): using the primary "
		    "found before, %s:%d",
		    r->label, why, r->primary.host, r->primary.port);
		if (!open_primary(r, &r->primary, deadline_ms, why,
				  sizeof(why)))
			return 0;
	}
	return qd_redis_fail(r, err, errlen, "sentinel", "%s", why);
}

void qd_redis_follow(struct qd_redis *r)
{
	int64_t deadline_ms = qd_redis_deadline(r);
	size_t n = r->addr.n_sentinels;
	redisContext *kept = r->c;
	char why[QD_REDIS_ERR_MAX];
	struct qd_redis_endpoint p;
	bool answered = false;

	if (r->addr.kind != QD_REDIS_SENTINEL || !kept)
		return;
	/* ask() connects the handle to the sentinel: the primary's
	 * connection is set aside meanwhile. */
	r->c = NULL;
	for (size_t i = 0; i < n && !answered; i++) {
		size_t k = (r->next_sentinel + i) % n;

		answered =
		    !ask(r, &r->addr.sentinels[k], share(deadline_ms, n - i),
			 &p, why, sizeof(why));
		if (answered)
			r->next_sentinel = k;
	}
	qd_redis_drop(r);
	r->c = kept;
	if (answered &&
	    (strcmp(p.host, r->primary.host) || p.port != r->primary.port))
		qd_redis_drop(r);
}
