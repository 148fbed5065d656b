/* SPDX-License-Identifier: GPL-2.0-or-later
 * The server's clock: usage is decayed to Redis's now, so that one clock
 * serves every node, whatever the nodes' own clocks say.
 */
#include <stdlib.h>

#include "redis_conn.h"

int qd_redis_time(struct qd_redis *r, double *now, char *err, size_t errlen)
{
	const char *argv[] = {"TIME"};
	redisReply *reply;
	int rv = -1;

	reply = qd_redis_command(r, qd_redis_deadline(r), "TIME", 1, argv, NULL,
				 err, errlen);
	if (!reply)
		return -1;
	if (reply->type == REDIS_REPLY_ERROR) {
		qd_redis_fail(r, err, errlen, "TIME", "%s", reply->str);
		goto fail;
	}
	if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2 ||
	    reply->element[0]->type != REDIS_REPLY_STRING ||
	    reply->element[1]->type != REDIS_REPLY_STRING) {
		qd_redis_fail(r, err, errlen, "TIME", "unexpected reply");
		goto fail;
	}
	*now = strtod(reply->element[0]->str, NULL) +
	       strtod(reply->element[1]->str, NULL) / 1e6;
	rv = 0;
fail:
	qd_hiredis.freeReplyObject(reply);
	return rv;
}
