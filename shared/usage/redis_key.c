/* SPDX-License-Identifier: GPL-2.0-or-later
 * Every qosdeny key in Redis, one form: the cluster in braces, a Redis
 * hash tag, so that one cluster's keys stay together for its scripts.
 */
#include <stdio.h>

#include "redis_conn.h"

int qd_redis_key(char *buf, const char *cluster, const char *kind,
		 const char *a, const char *b)
{
	int n = snprintf(buf, QD_REDIS_KEY_MAX, "qosdeny:{%s}:%s:%s%s%s",
			 cluster, kind, a, b ? ":" : "", b ? b : "");

	return n < 0 || n >= QD_REDIS_KEY_MAX ? -1 : 0;
}
