/* SPDX-License-Identifier: GPL-2.0-or-later
 * The names stored hashed, kept in Redis (redis_names.c).
 */
#ifndef QD_REDIS_NAMES_H
#define QD_REDIS_NAMES_H

#include "redis_usage.h"

/*
 * Keeps in Redis the name that name's stored form stands for, where that
 * form is hashed (names.h), over whatever was there; nothing for other
 * names. Returns 0, or -1 with err when Redis failed.
 */
int qd_redis_keep_name(struct qd_redis *r, const char *cluster,
		       const char *name, char *err, size_t errlen);

/*
 * The name the hashed stored name stands for, as qd_redis_keep_name kept
 * it in cluster's store: *name a heap string, or NULL where none is kept or
 * what is there is not a name whose SHA-1 is stored's (a value of another
 * type included: one bad entry stops no one's `share`). Returns 0, or -1
 * with err when Redis failed (no connection, no reply).
 */
int qd_redis_find_name(struct qd_redis *r, const char *cluster,
		       const char *stored, char **name, char *err,
		       size_t errlen);

#endif
