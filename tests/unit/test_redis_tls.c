/* SPDX-License-Identifier: GPL-2.0-or-later
 * redis_tls_ca=, redis_tls_cert=, redis_tls_key= (docs/high-availability.md,
 * "TLS"). Where hiredis has TLS: against redis-server and a
 * sentinel on TLS ports, with a private CA that openssl makes in the test;
 * elsewhere (hiredis 0.14, Debian 12): refused, saying why.
 */
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "redis_usage.h"
#include "spool.h"
#include "test_redis_server.h"
#include "usage_fixture.h"

#define WEEK (7 * 86400)

static struct server srv, sent;
static struct qd_redis *rd;
static char err[QD_REDIS_ERR_MAX], pki[64], spool_dir[64];
static int64_t t_start;

static void setup(void)
{
	memset(&srv, 0, sizeof(srv));
	memset(&sent, 0, sizeof(sent));
	rd = NULL;
	err[0] = pki[0] = spool_dir[0] = '\0';
	t_start = time(NULL) - 60;
}

static void teardown(void)
{
	char cmd[160];

	qd_redis_free(rd);
	server_cleanup(&sent);
	server_cleanup(&srv);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", pki, spool_dir);
	if (pki[0] || spool_dir[0])
		cr_expect_eq(system(cmd), 0);
}

TestSuite(tls, .init = setup, .fini = teardown, .timeout = 60);

static struct qd_redis *handle(const char *addr, const char *ca,
			       const char *cert, const char *key)
{
	struct qd_redis_config cfg = {.addr = addr,
				      .timeout_ms = 2000,
				      .tls_ca = ca,
				      .tls_cert = cert,
				      .tls_key = key};

	return qd_redis_new(&cfg, err, sizeof(err));
}

Test(tls, refused_where_not_built)
{
	if (qd_redis_tls_built())
		cr_skip_test("this build has TLS");
	cr_expect_null(handle("127.0.0.1:6379", "/etc/ssl/ca.pem", NULL, NULL));
	cr_expect_str_eq(err, "redis_tls_*: " QD_REDIS_NO_TLS);
	cr_expect_null(handle("127.0.0.1:6379", NULL, "/c.pem", "/k.pem"));
}

/* pki/NAME.pem and NAME.key: a CA (ca, other-ca), a server certificate
 * for 127.0.0.1 (server), a client's (client), each signed by ca. */
static void make_pki(void)
{
	char cmd[2048];

	if (system("command -v openssl >/dev/null 2>&1"))
		cr_skip_test("openssl not installed (make deps installs it)");
	snprintf(pki, sizeof(pki), "/tmp/qd-tls-test.XXXXXX");
	cr_assert_not_null(mkdtemp(pki));
	snprintf(
	    cmd, sizeof(cmd),
	    "set -e; cd %s; q='-batch -nodes -newkey rsa:2048 -days 2';"
	    "for ca in ca other-ca; do openssl req -x509 $q -subj /CN=$ca "
	    "-keyout $ca.key -out $ca.pem 2>/dev/null; done;"
	    "openssl req $q -subj /CN=127.0.0.1 -keyout server.key "
	    "-out server.csr 2>/dev/null;"
	    "printf 'subjectAltName=IP:127.0.0.1\\n' > san;"
	    "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key "
	    "-CAcreateserial -days 2 -extfile san -out server.pem 2>/dev/null;"
	    "openssl req $q -subj /CN=qosdeny -keyout client.key "
	    "-out client.csr 2>/dev/null;"
	    "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key "
	    "-CAcreateserial -days 2 -out client.pem 2>/dev/null",
	    pki);
	cr_assert_eq(system(cmd), 0, "openssl failed");
}

static const char *in_pki(const char *name)
{
	static char paths[8][128];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, 128, "%s/%s", pki, name);
	return p;
}

/* The server's TCP port speaks TLS only; its unix socket, the test's
 * own way in, stays plain. */
static void start_tls(struct server *s, const char *clients)
{
	char port[16];
	const char *extra[] = {"--tls-port",
			       port,
			       "--port",
			       "0",
			       "--tls-cert-file",
			       in_pki("server.pem"),
			       "--tls-key-file",
			       in_pki("server.key"),
			       "--tls-ca-cert-file",
			       in_pki("ca.pem"),
			       "--tls-auth-clients",
			       clients,
			       "--tls-replication",
			       "yes",
			       NULL};

	server_dir(s);
	if (!s->port)
		s->port = free_port();
	snprintf(port, sizeof(port), "%d", s->port);
	start_fresh(s, extra);
}

static int apply(uint32_t job)
{
	struct qd_usage_record r = test_record(job, 1, t_start, t_start + 10);

	return qd_redis_apply(rd, &r, WEEK, err, sizeof(err));
}

Test(tls, verified_server)
{
	if (!qd_redis_tls_built())
		cr_skip_test("built without TLS");
	make_pki();
	start_tls(&srv, "no");
	rd = handle(srv.addr, in_pki("ca.pem"), NULL, NULL);
	cr_assert_not_null(rd, "%s", err);
	cr_expect_eq(apply(1), 1, "%s", err);
	cr_expect_eq(apply(1), 0, "%s", err);
}

static int send_rec(const struct qd_usage_record *x, void *arg, char *e,
		    size_t elen)
{
	return qd_redis_apply(arg, x, WEEK, e, elen);
}

static void note(const char *msg, void *arg)
{
	(void)arg;
	snprintf(err, sizeof(err), "%s", msg);
}

Test(tls, a_certificate_that_does_not_verify_is_refused_records_stay)
{
	struct qd_usage_record r = test_record(5, 1, t_start, t_start + 10);
	char perr[QD_SPOOL_ERR_MAX];
	struct qd_spool_stats st;

	if (!qd_redis_tls_built())
		cr_skip_test("built without TLS");
	make_pki();
	start_tls(&srv, "no");
	rd = handle(srv.addr, in_pki("other-ca.pem"), NULL, NULL);
	cr_assert_not_null(rd, "%s", err);
	snprintf(spool_dir, sizeof(spool_dir), "/tmp/qd-spool-test.XXXXXX");
	cr_assert_not_null(mkdtemp(spool_dir));
	cr_assert_eq(qd_spool_write(spool_dir, &r, perr, sizeof(perr)), 0, "%s",
		     perr);
	cr_expect_eq(qd_spool_replay(spool_dir, time(NULL), send_rec, rd, note,
				     NULL, &st),
		     -1);
	cr_expect_eq(st.left, 1);
	cr_expect(strstr(err, "certificate does not verify against "
			      "redis_tls_ca: "),
		  "%s", err);
	cr_expect(strstr(err, "refused"), "%s", err);
}

Test(tls, client_certificate)
{
	if (!qd_redis_tls_built())
		cr_skip_test("built without TLS");
	make_pki();
	start_tls(&srv, "yes");
	rd = handle(srv.addr, in_pki("ca.pem"), NULL, NULL);
	cr_assert_not_null(rd, "%s", err);
	cr_expect_eq(apply(1), -1, "no client certificate: refused");
	qd_redis_free(rd);
	rd = handle(srv.addr, in_pki("ca.pem"), in_pki("client.pem"),
		    in_pki("client.key"));
	cr_assert_not_null(rd, "%s", err);
	cr_expect_eq(apply(1), 1, "%s", err);
	qd_redis_free(rd);
	rd = handle(srv.addr, in_pki("ca.pem"), in_pki("client.pem"), NULL);
	cr_expect_null(rd);
	cr_expect_str_eq(err, "redis_tls_cert= and redis_tls_key= go together");
}

/* The client key is a secret as the password file is: root's, and no one
 * else's to read, or any job on the node could read it. */
Test(tls, client_key_checked_as_a_secret)
{
	char want[512];

	if (!qd_redis_tls_built())
		cr_skip_test("built without TLS");
	make_pki();
	cr_assert_eq(chmod(in_pki("client.key"), 0644), 0);
	cr_expect_null(handle("127.0.0.1:6379", in_pki("ca.pem"),
			      in_pki("client.pem"), in_pki("client.key")));
	snprintf(want, sizeof(want),
		 "redis_tls_key %s: mode 0644 lets others read it, or group "
		 "or others change it: refused (chmod 0600 or 0640)",
		 in_pki("client.key"));
	cr_expect_str_eq(err, want);
	cr_assert_eq(chmod(in_pki("client.key"), 0640), 0);
	cr_assert_eq(chown(in_pki("client.key"), 1, (gid_t)-1), 0);
	cr_expect_null(handle("127.0.0.1:6379", in_pki("ca.pem"),
			      in_pki("client.pem"), in_pki("client.key")));
	cr_expect(strstr(err, "owned by uid 1, must be owned by root"), "%s",
		  err);
	cr_assert_eq(chown(in_pki("client.key"), 0, (gid_t)-1), 0);
	rd = handle("127.0.0.1:6379", in_pki("ca.pem"), in_pki("client.pem"),
		    in_pki("client.key"));
	cr_expect_not_null(rd, "0640, root's: %s", err);
}

Test(tls, sentinel_and_primary_over_tls)
{
	char conf[1024], addr[128];

	if (!qd_redis_tls_built())
		cr_skip_test("built without TLS");
	make_pki();
	start_tls(&srv, "no");
	snprintf(conf, sizeof(conf),
		 "sentinel monitor qd 127.0.0.1 %d 1\n"
		 "tls-replication yes\n"
		 "tls-cert-file %s/server.pem\n"
		 "tls-key-file %s/server.key\n"
		 "tls-ca-cert-file %s/ca.pem\n"
		 "tls-auth-clients no\n",
		 srv.port, pki, pki, pki);
	sent.sentinel_conf = conf;
	start_tls(&sent, "no");
	snprintf(addr, sizeof(addr), "sentinel:%s/qd", sent.addr);
	{
		struct qd_redis_config cfg = {.addr = addr,
					      .timeout_ms = 2000,
					      .replicas_given = true,
					      .tls_ca = in_pki("ca.pem")};

		rd = qd_redis_new(&cfg, err, sizeof(err));
	}
	cr_assert_not_null(rd, "%s", err);
	cr_expect_eq(apply(1), 1, "%s", err);
	qd_redis_free(rd);
	/* The sentinel's certificate checked too. */
	rd = handle(addr, in_pki("other-ca.pem"), NULL, NULL);
	cr_assert_not_null(rd, "%s", err);
	cr_expect_eq(apply(2), -1);
	cr_expect(strstr(err, "sentinel 127.0.0.1:"), "%s", err);
	cr_expect(strstr(err, "does not verify"), "%s", err);
}
