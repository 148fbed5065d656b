/* SPDX-License-Identifier: GPL-2.0-or-later
 * What a name stored hashed stands for (names.h: a name whose escaped form
 * is over 63 characters is stored as "~" and its SHA-1), kept in Redis
 * beside the usage: qosdeny:{C}:name:~SHA1 holds the name escaped. The job
 * prolog and epilog of a job with such a user or account keep it;
 * `qosdeny share` prints it where no association of Slurm's names the row,
 * once its SHA-1 is checked: a job may write the store where Redis has no
 * password, but it cannot make a row show a name that is not the row's.
 */
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "redis_conn.h"
#include "redis_names.h"

int qd_redis_keep_name(struct qd_redis *r, const char *cluster,
		       const char *name, char *err, size_t errlen)
{
	char stored[QD_NAME_MAX], key[QD_REDIS_KEY_MAX];
	/* SET, not SET NX: what a job wrote there first is put right. */
	const char *argv[3] = {"SET", key, NULL};
	redisReply *reply;
	int rv = -1;

	if (qd_name_store(name, stored) || stored[0] != '~')
		return 0;
	if (qd_redis_key(key, cluster, "name", stored, NULL))
		return qd_redis_fail(r, err, errlen, "SET", "key too long");
	argv[2] = qd_name_shown(name);
	if (!argv[2])
		return qd_redis_fail(r, err, errlen, "SET", "out of memory");
	reply = qd_redis_command(r, qd_redis_deadline(r), "SET", 3, argv, NULL,
				 err, errlen);
	free((char *)argv[2]);
	if (!reply)
		return -1;
	if (reply->type == REDIS_REPLY_ERROR)
		qd_redis_fail(r, err, errlen, "SET", "%s", reply->str);
	else
		rv = 0;
	qd_hiredis.freeReplyObject(reply);
	return rv;
}

int qd_redis_find_name(struct qd_redis *r, const char *cluster,
		       const char *stored, char **name, char *err,
		       size_t errlen)
{
	char key[QD_REDIS_KEY_MAX], again[QD_NAME_MAX];
	const char *argv[2] = {"GET", key};
	redisReply *reply;
	int rv = -1;

	*name = NULL;
	if (qd_redis_key(key, cluster, "name", stored, NULL))
		return qd_redis_fail(r, err, errlen, "GET", "key too long");
	reply = qd_redis_command(r, qd_redis_deadline(r), "GET", 2, argv, NULL,
				 err, errlen);
	if (!reply)
		return -1;
	rv = 0;
	/* Not kept, not text (an error reply: WRONGTYPE, what a job wrote
	 * there), or below, not this name's: none, and the stored form is
	 * printed. A name's text is never longer than its escaped form. */
	if (reply->type != REDIS_REPLY_STRING ||
	    strlen(reply->str) != reply->len)
		goto done;
	*name = malloc(reply->len + 1);
	if (!*name) {
		rv = qd_redis_fail(r, err, errlen, "GET", "out of memory");
		goto done;
	}
	if (qd_name_unescape(reply->str, *name, reply->len + 1) ||
	    qd_name_store(*name, again) || strcmp(again, stored)) {
		free(*name);
		*name = NULL;
	}
done:
	qd_hiredis.freeReplyObject(reply);
	return rv;
}
