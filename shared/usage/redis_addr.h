/* SPDX-License-Identifier: GPL-2.0-or-later
 * The one reading of a Redis address (plugstack.conf redis=, the tool's
 * --redis; qosdeny(1), PLUGSTACK.CONF OPTIONS): HOST:PORT, [IPv6]:PORT,
 * unix:/PATH, or sentinel:HOST:PORT[,HOST:PORT...]/NAME (Redis Sentinel: the
 * sentinels to ask, and the name of the master they watch). Strict: anything
 * else is an error naming what is wrong, never a guess.
 */
#ifndef QD_REDIS_ADDR_H
#define QD_REDIS_ADDR_H

#include <stddef.h>

#define QD_SENTINELS_MAX	 16
#define QD_REDIS_HOST_MAX	 256
#define QD_REDIS_MASTER_NAME_MAX 64
#define QD_REDIS_UNIX_MAX	 108 /* sun_path */

struct qd_redis_endpoint {
	char host[QD_REDIS_HOST_MAX]; /* without the brackets of [IPv6] */
	int port;
};

enum qd_redis_addr_kind {
	QD_REDIS_TCP,
	QD_REDIS_UNIX,
	QD_REDIS_SENTINEL,
};

struct qd_redis_addr {
	enum qd_redis_addr_kind kind;
	struct qd_redis_endpoint tcp; /* QD_REDIS_TCP */
	char path[QD_REDIS_UNIX_MAX]; /* QD_REDIS_UNIX */
	size_t n_sentinels;	      /* QD_REDIS_SENTINEL: */
	struct qd_redis_endpoint sentinels[QD_SENTINELS_MAX];
	char master[QD_REDIS_MASTER_NAME_MAX];
};

/*
 * Parses text into *a. Returns 0, or -1 with why: what is wrong, without
 * the text itself (the caller names the option or the address).
 */
int qd_redis_addr_parse(const char *text, struct qd_redis_addr *a, char *why,
			size_t whylen);

/*
 * The primary's address as a sentinel names it (SENTINEL
 * get-master-addr-by-name: the host and the port, two strings of hostlen
 * and portlen bytes; an IPv6 host bare, without brackets), held to the
 * rules of a configured one and, as whoever reaches a sentinel may have
 * set it, no control character either: a host of 1 to QD_REDIS_HOST_MAX - 1
 * bytes with no NUL, control character, blank, '/' or ','; a port of
 * digits only, 1 to 65535. Returns 0 with *e, or -1 with *e untouched.
 */
int qd_redis_endpoint_named(const char *host, size_t hostlen, const char *port,
			    size_t portlen, struct qd_redis_endpoint *e);

#endif
