/* SPDX-License-Identifier: GPL-2.0-or-later
 * Running jobs' usage: published by site_factor/qosdeny, read with the
 * completed usage by fair share (running_usage.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redis_conn.h"
#include "running_usage.h"

/* "ACCOUNT USER GPU_SECONDS START NODES SEEN", at most. */
#define ENTRY_MAX (2 * QD_NAME_MAX + 96)
/* One job's arguments: id, start, nodes, "ACCOUNT USER GPU_SECONDS". */
#define ARG_ID	  16
#define ARG_START 24
#define ARG_NODES 16
#define ARG_SIZE  (ARG_ID + ARG_START + ARG_NODES + ENTRY_MAX)

int qd_running_keys(const char *cluster, char *running, char *ended)
{
	int a = snprintf(running, QD_REDIS_KEY_MAX, "qosdeny:{%s}:running",
			 cluster);
	int b =
	    snprintf(ended, QD_REDIS_KEY_MAX, "qosdeny:{%s}:ended", cluster);

	return a < 0 || a >= QD_REDIS_KEY_MAX || b < 0 || b >= QD_REDIS_KEY_MAX
		   ? -1
		   : 0;
}

long qd_redis_publish_running(struct qd_redis *r, const char *cluster,
			      const struct qd_running_job *jobs, size_t n,
			      char *err, size_t errlen)
{
	char running[QD_REDIS_KEY_MAX], ended[QD_REDIS_KEY_MAX], keep[24];
	const char **argv = calloc(6 + 4 * n, sizeof(*argv));
	char *text = calloc(n ? n : 1, ARG_SIZE);
	redisReply *reply = NULL;
	long rv = -1;
	int argc = 2;

	if (!argv || !text) {
		qd_redis_fail(r, err, errlen, "publish", "out of memory");
		goto fail;
	}
	if (!qd_usage_name_ok(cluster) ||
	    qd_running_keys(cluster, running, ended)) {
		qd_redis_fail(r, err, errlen, "publish",
			      "invalid cluster name '%s'", cluster);
		goto fail;
	}
	snprintf(keep, sizeof(keep), "%d", QD_RUNNING_KEEP_S);
	argv[argc++] = "2";
	argv[argc++] = running;
	argv[argc++] = ended;
	argv[argc++] = keep;
	for (size_t i = 0; i < n; i++) {
		char *id = text + i * ARG_SIZE, *start = id + ARG_ID,
		     *nodes = start + ARG_START, *entry = nodes + ARG_NODES;
		const struct qd_running_job *j = &jobs[i];

		if (!qd_usage_name_ok(j->account) ||
		    !qd_usage_name_ok(j->user)) {
			qd_redis_fail(r, err, errlen, "publish",
				      "job %" PRIu32 ": invalid name",
				      j->job_id);
			goto fail;
		}
		/* The reader refuses such an entry: it would fail every read
		 * until the job ends. */
		if (j->start < 0) {
			qd_redis_fail(r, err, errlen, "publish",
				      "job %" PRIu32 ": start before 1970",
				      j->job_id);
			goto fail;
		}
		snprintf(id, ARG_ID, "%" PRIu32, j->job_id);
		snprintf(start, ARG_START, "%" PRId64, j->start);
		snprintf(nodes, ARG_NODES, "%" PRIu32, j->nodes ? j->nodes : 1);
		/* Redis's Lua counts in doubles: exact up to 2^53. */
		snprintf(entry, ENTRY_MAX, "%s %s %" PRIu64, j->account,
			 j->user,
			 j->gpu_seconds > QD_RUNNING_GS_MAX ? QD_RUNNING_GS_MAX
							    : j->gpu_seconds);
		argv[argc++] = id;
		argv[argc++] = start;
		argv[argc++] = nodes;
		argv[argc++] = entry;
	}
	reply = qd_redis_eval(r, qd_running_script, r->sha_running,
			      qd_redis_deadline(r), argc, argv, err, errlen);
	if (!reply)
		goto fail;
	if (reply->type == REDIS_REPLY_ERROR)
		qd_redis_fail(r, err, errlen, "publish", "%s", reply->str);
	else if (qd_redis_script_reply(r, reply, &rv) || rv < 0)
		qd_redis_fail(r, err, errlen, "publish",
			      "unexpected reply from the script");
fail:
	if (reply)
		qd_hiredis.freeReplyObject(reply);
	free(text);
	free(argv);
	return rv;
}

/* A decimal number, nothing else; -1 when not one. */
static int number(const char *s, uint64_t *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return *end || errno ? -1 : 0;
}

int qd_running_entry_parse(const char *s, size_t len, char *account, char *user,
			   uint64_t *gs, uint64_t *seen)
{
	char buf[ENTRY_MAX], *save = NULL, *f[6];
	uint64_t start, nodes;
	int n = 0;

	if (len >= sizeof(buf) || memchr(s, '\0', len))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	for (char *t = strtok_r(buf, " ", &save); t;
	     t = strtok_r(NULL, " ", &save))
		if (n < 6)
			f[n++] = t;
		else
			return -1;
	if (n != 6 || !qd_usage_name_ok(f[0]) || !qd_usage_name_ok(f[1]) ||
	    number(f[2], gs) || number(f[3], &start) || number(f[4], &nodes) ||
	    number(f[5], seen))
		return -1;
	snprintf(account, QD_NAME_MAX, "%s", f[0]);
	snprintf(user, QD_NAME_MAX, "%s", f[1]);
	return 0;
}

int qd_redis_read_running(struct qd_redis *r, const char *cluster,
			  qd_redis_usage_fn fn, void *arg,
			  struct qd_usage_skipped *skipped, char *err,
			  size_t errlen)
{
	char running[QD_REDIS_KEY_MAX], ended[QD_REDIS_KEY_MAX];
	const char *argv[] = {"HGETALL", running};
	redisReply *reply;
	double now;
	int rv = -1;

	if (!qd_usage_name_ok(cluster) ||
	    qd_running_keys(cluster, running, ended))
		return qd_redis_fail(r, err, errlen, "HGETALL",
				     "invalid cluster name '%s'", cluster);
	if (qd_redis_time(r, &now, err, errlen))
		return -1;
	reply = qd_redis_command(r, qd_redis_deadline(r), "HGETALL", 2, argv,
				 NULL, err, errlen);
	if (!reply)
		return -1;
	/* Another type written under the key (by hand, or by a job where
	 * Redis has no password): one entry skipped, not every report
	 * failed; the next publication replaces it (running_script.c). */
	if (reply->type == REDIS_REPLY_ERROR &&
	    !strncmp(reply->str, "WRONGTYPE", 9)) {
		qd_usage_skip(skipped, "%s: %.80s", running, reply->str);
		rv = 0;
		goto fail;
	}
	if (reply->type == REDIS_REPLY_ERROR) {
		qd_redis_fail(r, err, errlen, "HGETALL", "%s: %s", running,
			      reply->str);
		goto fail;
	}
	if (reply->type != REDIS_REPLY_ARRAY || reply->elements % 2) {
		qd_redis_fail(r, err, errlen, "HGETALL", "unexpected reply");
		goto fail;
	}
	for (size_t i = 0; i < reply->elements; i += 2) {
		const redisReply *job = reply->element[i],
				 *v = reply->element[i + 1];
		char account[QD_NAME_MAX], user[QD_NAME_MAX];
		uint64_t gs, seen;

		if (job->type != REDIS_REPLY_STRING ||
		    v->type != REDIS_REPLY_STRING ||
		    qd_running_entry_parse(v->str, v->len, account, user, &gs,
					   &seen)) {
			qd_usage_skip(skipped,
				      "%s: job %.20s: not a running entry "
				      "(ACCOUNT USER GPU_SECONDS START NODES "
				      "SEEN)",
				      running,
				      job->type == REDIS_REPLY_STRING ? job->str
								      : "?");
			continue;
		}
		/* Left by a site factor that stopped publishing. */
		if (now - (double)seen >= QD_RUNNING_KEEP_S)
			continue;
		if (fn(QD_USAGE_ASSOC, account, user, (double)gs, arg)) {
			qd_redis_fail(r, err, errlen, "HGETALL",
				      "stopped by the caller");
			goto fail;
		}
	}
	rv = 0;
fail:
	qd_hiredis.freeReplyObject(reply);
	return rv;
}
