/* SPDX-License-Identifier: GPL-2.0-or-later
 * GPU usage in Redis (docs/gpu-and-usage.md, "Usage reporting"), through
 * hiredis.
 *
 * Key layout, per Slurm cluster C (the "{C}" is a Redis Cluster hash tag, so
 * every key the script touches for one cluster is in one slot):
 *
 *   qosdeny:{C}:rec:JOB:NODE:START  string, the record as applied; set once
 *                                   (SET NX), expires after 90 days
 *   qosdeny:{C}:user:U              hash v, t: usage of user U
 *   qosdeny:{C}:account:A           hash v, t: usage of account A
 *   qosdeny:{C}:assoc:A:U           hash v, t: usage of user U in account A
 *   qosdeny:{C}:qos:Q               hash v, t: usage of QoS Q
 *
 * v is decayed GPU-seconds as of t (Unix time with microseconds, the Redis
 * server's clock); its value now is v * 2^(-(now - t) / UsageHalfLife).
 * Names cannot contain ':', so keys split back unambiguously. A record
 * without an account (Slurm without accounting) has A = "": its usage is
 * in qosdeny:{C}:account: and qosdeny:{C}:assoc::U, so `qosdeny share`
 * shows the user under an account with an empty name.
 *
 * A handle is not thread-safe. It connects on first use and, after any
 * error, drops the connection and connects again on the next call.
 */
#ifndef QD_REDIS_USAGE_H
#define QD_REDIS_USAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spool.h"
#include "usage_skipped.h"
#include "usage_record.h"

#define QD_REDIS_DEFAULT_ADDR	    "127.0.0.1:6379"
#define QD_REDIS_DEFAULT_TIMEOUT_MS 500
#define QD_REDIS_ERR_MAX	    512
#define QD_REDIS_REPLICAS_MAX	    64

/* Why redis_tls_* are refused by a build without TLS
 * (docs/high-availability.md, "TLS"). */
#define QD_REDIS_NO_TLS                                                        \
	"this qosdeny was built without TLS: its hiredis has no hiredis_ssl "  \
	"(Debian 12's is 0.14; TLS needs hiredis 1.0 or later, as Debian "     \
	"13's)"

/* Whether this build speaks TLS to Redis. */
bool qd_redis_tls_built(void);

/*
 * How long a record's id is remembered: a record sent again within this
 * time counts once. A spool never sends one that ended longer ago than a
 * day less (spool.h QD_SPOOL_REPLAY_MAX_S): it sets it aside instead.
 */
#define QD_RECORD_ID_TTL_S (QD_SPOOL_ID_DAYS * 86400)

/* A warning that is no error: the call still succeeds (one line). */
typedef void (*qd_redis_warn_fn)(const char *msg, void *arg);

struct qd_redis_config {
	const char *addr;	   /* redis_addr.h's forms;
				      NULL: QD_REDIS_DEFAULT_ADDR */
	const char *password_file; /* NULL: no AUTH */
	int timeout_ms;		   /* <= 0: QD_REDIS_DEFAULT_TIMEOUT_MS */
	const char *user;	   /* redis_user=: NULL: none, or the
				      password file's first line */
	int replicas;		   /* redis_replicas=, when replicas_given */
	bool replicas_given;	   /* else 0, or 1 for sentinel: */
	const char *tls_ca;	   /* redis_tls_ca=: NULL: no TLS */
	const char *tls_cert;	   /* redis_tls_cert=, redis_tls_key= */
	const char *tls_key;
	qd_redis_warn_fn warn; /* NULL: warnings are dropped */
	void *warn_arg;
	/* NULL, or the caller's stop time (CLOCK_MONOTONIC, in ms), read at
	 * each call: 0 until its owner stops; then every call begun after it
	 * fails at once, so that a stop waits for the call in progress alone
	 * (the site factor's thread, docs/fair-share.md, "GPU fair share
	 * in job priority"). */
	const int64_t *stop_ms;
};

struct qd_redis;

/*
 * A handle: parses the address and reads the password file, but does not
 * connect. The password file must be a regular file owned by root, neither
 * readable nor writable by others nor writable by group (qosdeny(1),
 * PLUGSTACK.CONF OPTIONS: group-readable is allowed, so a group of
 * administrators may run `qosdeny share`). It holds one line, the password
 * (AUTH password), or two, a user name then its password (AUTH user password,
 * for a Redis ACL user); cfg->user names the user instead of the file. Under
 * Sentinel the same AUTH goes to the sentinels, and each connection asks them
 * for the primary first (redis_sentinel.c). Returns NULL with err filled.
 */
struct qd_redis *qd_redis_new(const struct qd_redis_config *cfg, char *err,
			      size_t errlen);

void qd_redis_free(struct qd_redis *r);

/* "redis ADDR", as errors name the server. */
const char *qd_redis_label(const struct qd_redis *r);

/*
 * Whether the server at cfg's address runs a command (TIME) for a client
 * that gives no password: then any process on a node, every job's
 * included, can write the usage store. Within timeout_ms; false when it
 * cannot be reached either.
 */
bool qd_redis_open_to_anyone(const struct qd_redis_config *cfg);

/* The one line that says so, for LABEL ("redis ADDR"). */
#define QD_REDIS_OPEN_TEXT                                                     \
	"%s answers without AUTH: any job on a node can write the usage "      \
	"store; set requirepass (or ACL users) in redis.conf and "             \
	"redis_password_file= on the plugstack.conf line, a root-owned file "  \
	"(docs/gpu-and-usage.md, Redis for production)"

/*
 * From now on the handle's calls, all of them together, end within its
 * timeout_ms: a job start or end that sends a spool's records one by one is
 * delayed no longer than that however many there are; those it has no time
 * left for stay spooled (docs/high-availability.md).
 */
void qd_redis_budget(struct qd_redis *r);

/*
 * Under Sentinel, for a handle kept open across rounds (the site factor's):
 * asks the sentinels which server is the primary now, and drops the
 * connection when it is another, so that the next command goes there. A
 * failover whose old primary still answers (a partition) leaves that server
 * serving the clients it had, stale, until the sentinels demote it, 8 s or
 * more later, and only then closes them. No sentinel answering keeps the
 * connection (docs/high-availability.md). Within timeout_ms; nothing to do
 * for a plain redis= or an unconnected handle.
 */
void qd_redis_follow(struct qd_redis *r);

/*
 * Applies a closed record with the server-side script: atomically, and only
 * the first time its id is seen, adds its GPU-seconds, decayed from the
 * record's end to now, to the usage of its user, account, user in account
 * and QoS, each decayed to now first; then, with redis_replicas=N, WAIT
 * for N replicas to hold it. The whole call, connecting included, takes at
 * most timeout_ms. Returns 1 when counted now, 0 when counted before,
 * QD_REDIS_DAMAGED when a usage hash it would add to is damaged (another
 * type, or values that are no numbers: this record alone cannot be
 * counted, and the next one may), -1 with err: "redis ADDR: STEP: cause",
 * where the cause is the server's error reply, the system error, "timed
 * out after N ms", or too few replicas (the record must stay in the spool
 * then, even though applied). Bookkeeping keys of the wrong type are said
 * through the handle's warn and left alone (usage_script.c).
 */
#define QD_REDIS_DAMAGED QD_SPOOL_REFUSED /* a sender returns it as is */
/* How the script's error for a damaged usage hash begins. */
#define QD_REDIS_DAMAGED_TEXT "qosdeny: damaged:"
int qd_redis_apply(struct qd_redis *r, const struct qd_usage_record *rec,
		   uint64_t half_life_s, char *err, size_t errlen);

enum qd_usage_kind { QD_USAGE_ACCOUNT, QD_USAGE_ASSOC };

/*
 * A usage key's name, klen bytes as SCAN gave it and a NUL after them (as
 * hiredis ends every string), under prefix
 * ("qosdeny:{C}:"): "account:ACCOUNT" (kind QD_USAGE_ACCOUNT; ACCOUNT may
 * be empty, usage without one) or "assoc:ACCOUNT:USER" (QD_USAGE_ASSOC),
 * each name as qd_usage_name_ok takes it, into account and user
 * (QD_NAME_MAX each; user "" for an account). 0, or -1 when it is not one.
 */
int qd_usage_key_parse(const char *prefix, const char *k, size_t klen,
		       enum qd_usage_kind *kind, char *account, char *user);

/*
 * A usage hash's value (v or t), len bytes as HMGET gave it and a NUL after
 * them, as the script writes it (%.17g, %.6f): digits, a fraction, an
 * exponent; nothing else (no sign, blank, NUL, hex, inf or nan), and not
 * too large for a double. The script reads a value by the same rule
 * (usage_script.c). 0 with *out, or -1.
 */
int qd_usage_number_parse(const char *s, size_t len, double *out);

/* Called per usage key read; user is "" for an account. Nonzero stops. */
typedef int (*qd_redis_usage_fn)(enum qd_usage_kind kind, const char *account,
				 const char *user, double usage, void *arg);

/*
 * Reads a cluster's account and user-in-account usage with SCAN (never
 * KEYS, which blocks the server), each decayed to the server's time now.
 * Each command takes at most timeout_ms. SCAN may return a key twice: fn
 * must set the usage it is given, not add it up. A key whose value is not
 * a usage hash (v, t: numbers, finite, not negative) is skipped into
 * skipped, not read as a zero. Returns 0, or -1 with err when Redis
 * itself failed.
 */
int qd_redis_read_usage(struct qd_redis *r, const char *cluster,
			uint64_t half_life_s, qd_redis_usage_fn fn, void *arg,
			struct qd_usage_skipped *skipped, char *err,
			size_t errlen);

/* The Lua script qd_redis_apply runs (shared/usage/usage_script.c). */
extern const char qd_usage_script[];

#endif
