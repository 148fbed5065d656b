/* SPDX-License-Identifier: GPL-2.0-or-later
 * Sentinel discovery (redis_sentinel.c), over the link to one server
 * (redis_link.h). Internal to redis_*.c.
 */
#ifndef QD_REDIS_SENTINEL_H
#define QD_REDIS_SENTINEL_H

#include "redis_link.h"

/*
 * Asks the sentinels for the primary and connects to it, each step on a
 * connection just made, sent once. Returns 0, or -1 with err and no
 * connection.
 */
int qd_sentinel_connect(struct qd_redis *r, int64_t deadline_ms, char *err,
			size_t errlen);

#endif
