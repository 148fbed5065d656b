/* SPDX-License-Identifier: GPL-2.0-or-later
 * Usage records into Redis, and usage back out for `qosdeny share`.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decay.h"
#include "now_ms.h"
#include "redis_conn.h"
#include "running_usage.h"

#define SCAN_COUNT "1000"
/* A SCAN whose cursor has not come back to 0 after this many batches (a
 * hundred million keys, far more than any usage store holds) is a broken
 * or hostile reply, not a store: the loop ends with an error. Its test
 * (test_redis_scan.c) builds this file with a smaller bound. */
#ifndef SCAN_BATCHES_MAX
#define SCAN_BATCHES_MAX 100000
#endif

static int script_result(struct qd_redis *r, redisReply *reply,
			 const char *step, char *err, size_t errlen)
{
	long counted;

	if (reply->type == REDIS_REPLY_ERROR) {
		qd_redis_fail(r, err, errlen, step, "%s", reply->str);
		return strncmp(reply->str, QD_REDIS_DAMAGED_TEXT,
			       strlen(QD_REDIS_DAMAGED_TEXT))
			   ? -1
			   : QD_REDIS_DAMAGED;
	}
	if (qd_redis_script_reply(r, reply, &counted) ||
	    (counted != 0 && counted != 1))
		return qd_redis_fail(r, err, errlen, step,
				     "unexpected reply from the script");
	return (int)counted;
}

/*
 * redis_replicas=N (docs/high-availability.md): replication is
 * asynchronous, so a record the primary applied is lost at a failover until
 * a replica holds it; it stays in the spool until WAIT saw N replicas hold
 * it, within what is left of the call's timeout_ms.
 */
static int wait_replicas(struct qd_redis *r, int64_t deadline, char *err,
			 size_t errlen)
{
	char n[16], ms[24];
	const char *argv[] = {"WAIT", n, ms};
	int64_t left = deadline - qd_now_ms();
	redisReply *reply;
	int rv = -1;

	/* The server ends a WAIT at its next tick (hz 10: up to 100 ms
	 * late): keep that margin for its answer, and never ask for 0,
	 * which waits forever. */
	int64_t margin = left / 2 < 150 ? left / 2 : 150;

	snprintf(n, sizeof(n), "%d", r->replicas);
	snprintf(ms, sizeof(ms), "%lld",
		 left - margin > 1 ? (long long)(left - margin) : 1LL);
	reply =
	    qd_redis_command(r, deadline, "WAIT", 3, argv, NULL, err, errlen);
	if (!reply)
		return -1;
	if (reply->type == REDIS_REPLY_ERROR)
		qd_redis_fail(r, err, errlen, "WAIT", "%s", reply->str);
	else if (reply->type != REDIS_REPLY_INTEGER)
		qd_redis_fail(r, err, errlen, "WAIT", "unexpected reply");
	else if (reply->integer < r->replicas)
		qd_redis_fail(r, err, errlen, "WAIT",
			      "%lld of the %d replicas redis_replicas= asks "
			      "for hold the record after %d ms: kept in the "
			      "spool",
			      reply->integer, r->replicas, r->timeout_ms);
	else
		rv = 0;
	qd_hiredis.freeReplyObject(reply);
	return rv;
}

int qd_redis_apply(struct qd_redis *r, const struct qd_usage_record *rec,
		   uint64_t half_life_s, char *err, size_t errlen)
{
	char text[QD_RECORD_MAX], rec_err[QD_RECORD_ERR_MAX];
	char keys[7][QD_REDIS_KEY_MAX], id[2 * QD_NAME_MAX], nkeys[4];
	char gs[32], end[24], hl[24], ttl[24], job[16];
	const char *argv[3 + 7 + 7];
	int argc = 0, nk = 6, rv = -1;
	redisReply *reply = NULL;
	int64_t deadline;

	if (qd_usage_record_encode(rec, text, sizeof(text), rec_err,
				   sizeof(rec_err)) < 0)
		return qd_redis_fail(r, err, errlen, "apply", "%s", rec_err);
	if (qd_usage_record_is_open(rec))
		return qd_redis_fail(r, err, errlen, "apply",
				     "record of job %" PRIu32
				     " on %s is still open",
				     rec->job_id, rec->node);
	if (!half_life_s)
		return qd_redis_fail(r, err, errlen, "apply",
				     "the half-life must be positive");
	snprintf(id, sizeof(id), "%" PRIu32 ":%s:%" PRId64, rec->job_id,
		 rec->node, rec->start);
	if (qd_redis_key(keys[0], rec->cluster, "rec", id, NULL) ||
	    qd_running_keys(rec->cluster, keys[1], keys[2]) ||
	    qd_redis_key(keys[3], rec->cluster, "user", rec->user, NULL) ||
	    qd_redis_key(keys[4], rec->cluster, "account", rec->account,
			 NULL) ||
	    qd_redis_key(keys[5], rec->cluster, "assoc", rec->account,
			 rec->user) ||
	    (rec->qos[0] &&
	     qd_redis_key(keys[nk++], rec->cluster, "qos", rec->qos, NULL)))
		return qd_redis_fail(r, err, errlen, "apply", "key too long");
	snprintf(nkeys, sizeof(nkeys), "%d", nk);
	qd_milli_text(rec->mgpu_seconds, gs, sizeof(gs));
	snprintf(end, sizeof(end), "%" PRId64, rec->end);
	snprintf(hl, sizeof(hl), "%" PRIu64, half_life_s);
	snprintf(ttl, sizeof(ttl), "%d", QD_RECORD_ID_TTL_S);
	snprintf(job, sizeof(job), "%" PRIu32, rec->job_id);

	deadline = qd_redis_deadline(r);
	argc = 2; /* EVALSHA and the SHA, set by qd_redis_eval */
	argv[argc++] = nkeys;
	for (int i = 0; i < nk; i++)
		argv[argc++] = keys[i];
	argv[argc++] = gs;
	argv[argc++] = end;
	argv[argc++] = hl;
	argv[argc++] = ttl;
	argv[argc++] = text;
	argv[argc++] = job;
	argv[argc++] = r->replicas ? "1" : "0";
	reply = qd_redis_eval(r, qd_usage_script, r->sha, deadline, argc, argv,
			      err, errlen);
	if (!reply)
		return -1;
	rv = script_result(r, reply, argv[0], err, errlen);
	qd_hiredis.freeReplyObject(reply);
	if (rv >= 0 && r->replicas && wait_replicas(r, deadline, err, errlen))
		return -1;
	return rv;
}

/* One of a usage hash's values, v or t (HMGET). */
static int stored_number(const redisReply *e, double *out)
{
	return e->type == REDIS_REPLY_STRING
		   ? qd_usage_number_parse(e->str, e->len, out)
		   : -1;
}

/* How many digits s[*i..len) begins with; *i moved past them. */
static size_t digits(const char *s, size_t len, size_t *i)
{
	size_t from = *i;

	while (*i < len && isdigit((unsigned char)s[*i]))
		(*i)++;
	return *i - from;
}

int qd_usage_number_parse(const char *s, size_t len, double *out)
{
	size_t i = 0;
	char *end;
	double v;

	if (!digits(s, len, &i))
		return -1;
	if (i < len && s[i] == '.') {
		i++;
		digits(s, len, &i);
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		if (++i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		if (!digits(s, len, &i))
			return -1;
	}
	if (i != len) /* something else, a NUL among it */
		return -1;
	/* An underflow (ERANGE) is a tiny usage, long decayed: read as it is;
	 * an overflow is no number. */
	v = strtod(s, &end);
	if (end != s + len || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

struct scan {
	struct qd_redis *r;
	const char *prefix; /* "qosdeny:{C}:" */
	uint64_t half_life_s;
	double now;
	qd_redis_usage_fn fn;
	void *arg;
	struct qd_usage_skipped *skipped;
};

/* An account in a key: a name, or "" for usage without one. */
static bool account_ok(const char *account)
{
	return !account[0] || qd_usage_name_ok(account);
}

int qd_usage_key_parse(const char *prefix, const char *k, size_t klen,
		       enum qd_usage_kind *kind, char *account, char *user)
{
	size_t plen = strlen(prefix);
	const char *rest = k + plen, *colon;

	account[0] = user[0] = '\0';
	/* MATCH asked for the prefix; a reply is not trusted to have it, nor
	 * to be free of NULs (a key cut at one reads another's hash). */
	if (klen < plen || memchr(k, '\0', klen) || strncmp(k, prefix, plen))
		return -1;
	if (!strncmp(rest, "account:", 8)) {
		*kind = QD_USAGE_ACCOUNT;
		snprintf(account, QD_NAME_MAX, "%s", rest + 8);
		return account_ok(rest + 8) && strlen(rest + 8) < QD_NAME_MAX
			   ? 0
			   : -1;
	}
	if (strncmp(rest, "assoc:", 6))
		return -1;
	rest += 6;
	colon = strchr(rest, ':');
	if (!colon || colon - rest >= QD_NAME_MAX ||
	    strlen(colon + 1) >= QD_NAME_MAX)
		return -1;
	*kind = QD_USAGE_ASSOC;
	memcpy(account, rest, colon - rest);
	account[colon - rest] = '\0';
	snprintf(user, QD_NAME_MAX, "%s", colon + 1);
	return account_ok(account) && qd_usage_name_ok(user) ? 0 : -1;
}

/* Named as a usage key is (qd_usage_key_parse may still refuse it). */
static bool usage_key_name(const char *prefix, const char *k)
{
	size_t plen = strlen(prefix);

	return !strncmp(k, prefix, plen) &&
	       (!strncmp(k + plen, "account:", 8) ||
		!strncmp(k + plen, "assoc:", 6));
}

/* Reads the usage hashes of one SCAN batch, pipelined. */
static int read_batch(struct scan *s, redisReply *keys, char *err,
		      size_t errlen)
{
	size_t n = keys->elements;
	const char **argv = calloc(n * 4 + 1, sizeof(*argv));
	redisReply **replies = calloc(n + 1, sizeof(*replies));
	int rv = -1;

	if (!argv || !replies) {
		qd_redis_fail(s->r, err, errlen, "SCAN", "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		if (keys->element[i]->type != REDIS_REPLY_STRING) {
			qd_redis_fail(s->r, err, errlen, "SCAN",
				      "unexpected reply");
			goto fail;
		}
		argv[i * 4] = "HMGET";
		argv[i * 4 + 1] = keys->element[i]->str;
		argv[i * 4 + 2] = "v";
		argv[i * 4 + 3] = "t";
	}
	if (qd_redis_pipeline(s->r, qd_redis_deadline(s->r), "HMGET", n, 4,
			      argv, replies, err, errlen)) {
		n = 0; /* no replies kept */
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		const char *k = keys->element[i]->str;
		char account[QD_NAME_MAX], user[QD_NAME_MAX];
		enum qd_usage_kind kind;
		redisReply *h = replies[i];
		double v, t;

		if (qd_usage_key_parse(s->prefix, k, keys->element[i]->len,
				       &kind, account, user)) {
			/* A usage key's name that no record makes (written
			 * by hand or by a job), or another tool's key. */
			if (usage_key_name(s->prefix, k))
				qd_usage_skip(s->skipped,
					      "%.200s: not a usage key's name",
					      k);
			continue;
		}
		/* WRONGTYPE: a string or list written under a usage key. */
		if (h->type == REDIS_REPLY_ERROR) {
			qd_usage_skip(s->skipped, "%s: %.80s", k, h->str);
			continue;
		}
		if (h->type != REDIS_REPLY_ARRAY || h->elements != 2 ||
		    stored_number(h->element[0], &v) ||
		    stored_number(h->element[1], &t)) {
			qd_usage_skip(s->skipped, "%s: not a usage hash (v, t)",
				      k);
			continue;
		}
		if (s->fn(kind, account, user,
			  qd_decay(v, s->now - t, s->half_life_s), s->arg)) {
			qd_redis_fail(s->r, err, errlen, "SCAN",
				      "stopped by the caller");
			goto fail;
		}
	}
	rv = 0;
fail:
	for (size_t i = 0; replies && i < n; i++)
		qd_hiredis.freeReplyObject(replies[i]);
	free(replies);
	free(argv);
	return rv;
}

int qd_redis_read_usage(struct qd_redis *r, const char *cluster,
			uint64_t half_life_s, qd_redis_usage_fn fn, void *arg,
			struct qd_usage_skipped *skipped, char *err,
			size_t errlen)
{
	char prefix[QD_REDIS_KEY_MAX], pattern[QD_REDIS_KEY_MAX + 2],
	    cursor[32] = "0";
	struct scan s = {r, prefix, half_life_s, 0, fn, arg, skipped};
	redisReply *reply = NULL;
	int rv = -1, batches = 0;

	if (!qd_usage_name_ok(cluster))
		return qd_redis_fail(r, err, errlen, "SCAN",
				     "invalid cluster name '%s'", cluster);
	snprintf(prefix, sizeof(prefix), "qosdeny:{%s}:", cluster);
	/* account:* and assoc:*; names hold no glob characters. */
	snprintf(pattern, sizeof(pattern), "%sa*", prefix);
	if (qd_redis_time(r, &s.now, err, errlen))
		return -1;
	do {
		const char *argv[] = {"SCAN",  cursor,	"MATCH",
				      pattern, "COUNT", SCAN_COUNT};

		if (++batches > SCAN_BATCHES_MAX) {
			qd_redis_fail(r, err, errlen, "SCAN",
				      "no end after %d batches",
				      SCAN_BATCHES_MAX);
			goto fail;
		}

		reply = qd_redis_command(r, qd_redis_deadline(r), "SCAN", 6,
					 argv, NULL, err, errlen);
		if (!reply)
			goto fail;
		if (reply->type == REDIS_REPLY_ERROR) {
			qd_redis_fail(r, err, errlen, "SCAN", "%s", reply->str);
			goto fail;
		}
		if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2 ||
		    reply->element[0]->type != REDIS_REPLY_STRING ||
		    reply->element[0]->len >= sizeof(cursor) ||
		    reply->element[1]->type != REDIS_REPLY_ARRAY) {
			qd_redis_fail(r, err, errlen, "SCAN",
				      "unexpected reply");
			goto fail;
		}
		if (reply->element[1]->elements &&
		    read_batch(&s, reply->element[1], err, errlen))
			goto fail;
		snprintf(cursor, sizeof(cursor), "%s", reply->element[0]->str);
		qd_hiredis.freeReplyObject(reply);
		reply = NULL;
	} while (strcmp(cursor, "0"));
	rv = 0;
fail:
	if (reply)
		qd_hiredis.freeReplyObject(reply);
	return rv;
}
