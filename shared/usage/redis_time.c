/* SPDX-License-Identifier: GPL-2.0-or-later
 * The server's clock: usage is decayed to Redis's now, so that one clock
 * serves every node, whatever the nodes' own clocks say.
 */
#include <stdlib.h>

#include "redis_conn.h"

/* The len bytes at s, decimal digits only, at most max_digits of them (so
 * that the value fits). */
static int digits(const char *s, size_t len, size_t max_digits, long long *v)
{
	if (!len || len > max_digits)
		return -1;
	*v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (s[i] - '0');
	}
	return 0;
}

int qd_redis_time_parse(const char *sec, size_t sec_len, const char *usec,
			size_t usec_len, double *now)
{
	long long s, us;

	if (digits(sec, sec_len, 12, &s) || digits(usec, usec_len, 6, &us))
		return -1;
	*now = (double)s + (double)us / 1e6;
	return 0;
}

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
	    reply->element[1]->type != REDIS_REPLY_STRING ||
	    qd_redis_time_parse(reply->element[0]->str, reply->element[0]->len,
				reply->element[1]->str, reply->element[1]->len,
				now)) {
		qd_redis_fail(r, err, errlen, "TIME", "unexpected reply");
		goto fail;
	}
	rv = 0;
fail:
	qd_hiredis.freeReplyObject(reply);
	return rv;
}
