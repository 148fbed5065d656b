/* SPDX-License-Identifier: GPL-2.0-or-later
 * Whether the usage store lets in a client without a password: asked by
 * qosdeny doctor's redis check, slurmd's plugin at its start and the site
 * factor when it connects, each of which says so (docs/gpu-and-usage.md,
 * "Redis for production").
 */
#include "redis_conn.h"

bool qd_redis_open_to_anyone(const struct qd_redis_config *cfg)
{
	struct qd_redis_config anon = *cfg;
	const char *time_cmd[] = {"TIME"};
	char err[QD_REDIS_ERR_MAX];
	redisReply *reply;
	struct qd_redis *r;
	bool open;

	anon.password_file = NULL;
	anon.user = NULL;
	anon.warn = NULL;
	r = qd_redis_new(&anon, err, sizeof(err));
	if (!r)
		return false;
	/* TIME, not PING: the ACL of docs/gpu-and-usage.md has no +ping. */
	reply = qd_redis_command(r, qd_redis_deadline(r), "TIME", 1, time_cmd,
				 NULL, err, sizeof(err));
	open = reply && reply->type != REDIS_REPLY_ERROR;
	if (reply)
		qd_hiredis.freeReplyObject(reply);
	qd_redis_free(r);
	return open;
}
