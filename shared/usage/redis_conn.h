/* SPDX-License-Identifier: GPL-2.0-or-later
 * What the redis_*.c files above the link to one server (redis_link.h)
 * share: keys, scripts, the commands that connect as the handle's address
 * says (redis_conn.c), the server's clock, the password file. Internal to
 * redis_*.c.
 */
#ifndef QD_REDIS_CONN_H
#define QD_REDIS_CONN_H

#include "redis_link.h"

/* Longest key: "qosdeny:{C}:KIND:A:B". */
#define QD_REDIS_KEY_MAX (32 + 3 * QD_NAME_MAX + 48)

/* buf = "qosdeny:{cluster}:kind:a[:b]". Returns 0, or -1 when too long. */
int qd_redis_key(char *buf, const char *cluster, const char *kind,
		 const char *a, const char *b);

/*
 * Runs a Lua script by its SHA (sha: the handle's slot for it, "" until
 * its first run computes it from the text): EVALSHA, and EVAL with the
 * text when the server does not have it (its first run there, a restart,
 * SCRIPT FLUSH), which also caches it there for the next EVALSHA.
 * argv[0] and argv[1] are set here (EVALSHA, the SHA); the caller fills
 * argv[2..argc-1] (numkeys, keys, arguments). Returns the reply, which may
 * be an error reply, or NULL with err.
 */
redisReply *qd_redis_eval(struct qd_redis *r, const char *script, char *sha,
			  int64_t deadline_ms, int argc, const char **argv,
			  char *err, size_t errlen);

/*
 * A script's non-error reply, {VALUE, then a line for each bookkeeping key
 * of the wrong type it met (running_script.c, usage_script.c)}: *value =
 * VALUE, and each line said through the handle's warn. Returns 0, or -1
 * when the reply has another shape.
 */
int qd_redis_script_reply(const struct qd_redis *r, const redisReply *reply,
			  long *value);

/*
 * Runs one command, connecting (and AUTH) first when needed, all before
 * deadline_ms. Returns the reply, which may be an error reply, or NULL with
 * err "LABEL: STEP: cause"; then the connection was dropped.
 */
redisReply *qd_redis_command(struct qd_redis *r, int64_t deadline_ms,
			     const char *step, int argc, const char **argv,
			     const size_t *argvlen, char *err, size_t errlen);

/*
 * A pipeline, connecting first when needed: sends n commands of argc
 * arguments each (argv[i * argc + k]), then reads n replies into
 * replies[]. Returns 0, or -1 with err, the connection dropped and no
 * replies kept.
 */
int qd_redis_pipeline(struct qd_redis *r, int64_t deadline_ms, const char *step,
		      size_t n, int argc, const char **argv,
		      redisReply **replies, char *err, size_t errlen);

/* The server's clock, in seconds: usage is decayed to its now, and one
 * clock serves every node. Returns 0, or -1 with err. */
int qd_redis_time(struct qd_redis *r, double *now, char *err, size_t errlen);

/* TIME's two fields, seconds and microseconds, as the reply holds them
 * (not NUL-bounded): decimal digits only, at most 12 and 6. Returns 0, or
 * -1 for anything else (a reply not checked would decay usage to 0 or
 * NaN). */
int qd_redis_time_parse(const char *sec, size_t sec_len, const char *usec,
			size_t usec_len, double *now);

/*
 * Reads a password file (see qd_redis_new): *user is NULL for a one-line
 * file. Returns 0, or -1 with err naming the file and what is wrong.
 */
int qd_redis_read_password(const char *path, char **user, char **password,
			   char *err, size_t errlen);

/*
 * The user and password of a configuration: the password file (see
 * qd_redis_read_password) and redis_user=. Returns 0 (*password NULL: no
 * AUTH), or -1 with err.
 */
int qd_redis_credentials(const struct qd_redis_config *cfg, char **user,
			 char **password, char *err, size_t errlen);

#endif
