/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_redis_keep_name and qd_redis_find_name (redis_names.h), and `qosdeny
 * share`'s rows that only the usage gives (qd_fs_read_usage with add),
 * against a real redis-server started by each test (test_redis_server.h).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <hiredis/hiredis.h>

#include "fairshare_usage.h"
#include "names.h"
#include "redis_names.h"
#include "test_redis_server.h"

static struct server srv;
static struct qd_redis *rd;
static char err[QD_REDIS_ERR_MAX];
/* 100 colons: 300 characters escaped, so stored hashed. */
static char colons[101], stored[QD_NAME_MAX], key[128];

static void setup(void)
{
	struct qd_redis_config cfg = {.timeout_ms = 2000};

	memset(&srv, 0, sizeof(srv));
	start_fresh(&srv, NULL);
	cfg.addr = srv.addr;
	rd = qd_redis_new(&cfg, err, sizeof(err));
	cr_assert_not_null(rd, "%s", err);
	memset(colons, ':', 100);
	colons[100] = '\0';
	cr_assert_eq(qd_name_store(colons, stored), 0);
	cr_assert_eq(stored[0], '~');
	snprintf(key, sizeof(key), "qosdeny:{qd}:name:%s", stored);
}

static void teardown(void)
{
	qd_redis_free(rd);
	server_cleanup(&srv);
}

TestSuite(redis_names, .init = setup, .fini = teardown, .timeout = 60);

#define cmd(...) admin_cmd(&srv, __VA_ARGS__)

/* The name find gives for stored, "" for none. */
static char *found(void)
{
	char *name;

	cr_assert_eq(
	    qd_redis_find_name(rd, "qd", stored, &name, err, sizeof(err)), 0,
	    "%s", err);
	return name ? name : strdup("");
}

Test(redis_names, kept_and_found)
{
	redisReply *r;
	char *name;

	cr_assert_eq(qd_redis_keep_name(rd, "qd", colons, err, sizeof(err)), 0,
		     "%s", err);
	r = cmd("GET %s", key);
	cr_assert_eq(r->type, REDIS_REPLY_STRING);
	cr_expect_eq(r->len, 300);
	cr_expect(!strncmp(r->str, "%3A%3A", 6), "escaped: %s", r->str);
	freeReplyObject(r);
	name = found();
	cr_expect_str_eq(name, colons);
	free(name);
	/* What a job wrote there is put right by the next job of the name. */
	freeReplyObject(cmd("SET %s bob", key));
	cr_assert_eq(qd_redis_keep_name(rd, "qd", colons, err, sizeof(err)), 0,
		     "%s", err);
	name = found();
	cr_expect_str_eq(name, colons);
	free(name);
	r = cmd("DBSIZE");
	cr_expect_eq(r->integer, 1);
	freeReplyObject(r);
}

Test(redis_names, plain_names_not_kept)
{
	redisReply *r;

	cr_assert_eq(qd_redis_keep_name(rd, "qd", "alice", err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(qd_redis_keep_name(rd, "qd", "x:y lab", err, sizeof(err)),
		     0, "%s", err);
	r = cmd("DBSIZE");
	cr_expect_eq(r->integer, 0, "escaped names need no mapping");
	freeReplyObject(r);
}

/* What a job wrote where Redis has no password: none of it is a name
 * whose SHA-1 is the key's, so none of it is shown. */
Test(redis_names, forged_or_broken_entries_give_none)
{
	static const char *const values[] = {
	    "bob",    /* another name */
	    "%3A%3a", /* lower-case escape */
	    "%00",    /* NUL */
	    "a b",    /* unescaped */
	    "",	      /* empty */
	};
	char *name;

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		freeReplyObject(cmd("SET %s %s", key, values[i]));
		name = found();
		cr_expect_str_eq(name, "", "%s", values[i]);
		free(name);
	}
	freeReplyObject(cmd("SET %s %b", key, "%3A\0x", (size_t)5));
	name = found();
	cr_expect_str_eq(name, "", "a NUL in the value");
	free(name);
	freeReplyObject(cmd("DEL %s", key));
	freeReplyObject(cmd("HSET %s v 1", key));
	name = found();
	cr_expect_str_eq(name, "", "not a string");
	free(name);
	freeReplyObject(cmd("DEL %s", key));
	name = found();
	cr_expect_str_eq(name, "", "none kept");
	free(name);
}

/* Without slurmdbd the rows come from the usage: a hashed account is
 * printed whole where the store keeps its name, and as stored where not. */
Test(redis_names, share_rows_from_usage)
{
	struct qd_fs_table t = {0};
	struct qd_usage_skipped skipped = {0};
	const char *clusters[] = {"qd"};
	char user_key[256];

	snprintf(user_key, sizeof(user_key), "qosdeny:{qd}:assoc:%s:alice",
		 stored);
	freeReplyObject(
	    cmd("HSET %s v 10 t %lld", user_key, (long long)time(NULL)));
	cr_assert_eq(qd_fs_read_usage(&t, rd, clusters, 1, 86400, true,
				      &skipped, err, sizeof(err)),
		     0, "%s", err);
	cr_expect_str_eq(qd_fs_shown(&t, stored), stored, "none kept yet");
	qd_fs_free(&t);
	cr_assert_eq(qd_redis_keep_name(rd, "qd", colons, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(qd_fs_read_usage(&t, rd, clusters, 1, 86400, true,
				      &skipped, err, sizeof(err)),
		     0, "%s", err);
	cr_expect_eq(strlen(qd_fs_shown(&t, stored)), 300);
	cr_expect(!strncmp(qd_fs_shown(&t, stored), "%3A%3A", 6));
	qd_fs_free(&t);
}
