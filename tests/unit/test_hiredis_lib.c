/* SPDX-License-Identifier: GPL-2.0-or-later
 * hiredis and its TLS half loaded when a process makes its first Redis
 * handle, not when it loads qosdeny (shared/usage/hiredis_lib.h). This test
 * links neither (the Makefile's TEST_LIBS), as the plugins and the tool do.
 */
#include <stdio.h>
#include <string.h>

#include <stdbool.h>

#include <criterion/criterion.h>

#include "redis_conn.h"

/* Whether a library of that soname is mapped in this process. */
static bool mapped(const char *soname)
{
	char line[4096];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	cr_assert(f, "cannot read /proc/self/maps");
	while (!found && fgets(line, sizeof(line), f)) {
		const char *base = strrchr(line, '/');

		found = base && !strncmp(base + 1, soname, strlen(soname));
	}
	fclose(f);
	return found;
}

static struct qd_redis *handle(const char *tls_ca, char *err, size_t errlen)
{
	struct qd_redis_config cfg = {.addr = "127.0.0.1:1", .tls_ca = tls_ca};

	return qd_redis_new(&cfg, err, errlen);
}

Test(hiredis_lib, loaded_at_the_first_handle_not_before)
{
	char err[QD_REDIS_ERR_MAX] = "";
	struct qd_redis *r;

	cr_assert_not(mapped(QD_HIREDIS_SONAME), "%s mapped before any handle",
		      QD_HIREDIS_SONAME);
	r = handle(NULL, err, sizeof(err));
	cr_assert(r, "%s", err);
	cr_expect(mapped(QD_HIREDIS_SONAME));
#define QD_TEST_RESOLVED(f) cr_expect(qd_hiredis.f, #f " not resolved");
	QD_HIREDIS_CALLS(QD_TEST_RESOLVED)
	qd_redis_free(r);
}

Test(hiredis_lib, a_second_load_is_the_first)
{
	char err[QD_REDIS_ERR_MAX] = "";
	void (*first)(redisContext *);

	cr_assert_eq(qd_hiredis_load(err, sizeof(err)), 0, "%s", err);
	first = qd_hiredis.redisFree;
	cr_assert_eq(qd_hiredis_load(err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(qd_hiredis.redisFree, first);
}

#ifdef QD_HAVE_TLS
#define SSL_NAME	 QD_SSL_SONAME
#define HIREDIS_SSL_NAME QD_HIREDIS_SSL_SONAME
#else
#define SSL_NAME	 "libssl.so"
#define HIREDIS_SSL_NAME "libhiredis_ssl.so"
#endif

/* libssl counts only where the test's own libraries did not map it
 * already (Debian testing's Criterion brings it). */
Test(hiredis_lib, a_handle_without_tls_leaves_openssl_unloaded)
{
	char err[QD_REDIS_ERR_MAX] = "";
	bool ssl_before = mapped(SSL_NAME);
	struct qd_redis *r = handle(NULL, err, sizeof(err));

	cr_assert(r, "%s", err);
	cr_expect_not(mapped(HIREDIS_SSL_NAME));
	cr_expect(ssl_before || !mapped(SSL_NAME), "%s loaded by the handle",
		  SSL_NAME);
	qd_redis_free(r);
}

#ifdef QD_HAVE_TLS
Test(hiredis_lib, a_tls_handle_loads_openssl)
{
	char err[QD_REDIS_ERR_MAX] = "";
	struct qd_redis *r = handle("/nonexistent/ca.pem", err, sizeof(err));

	/* Loaded, then the CA refused with OpenSSL's reason. */
	cr_expect_null(r);
	cr_expect(strstr(err, "redis_tls_ca /nonexistent/ca.pem: "), "%s", err);
	cr_expect(mapped(QD_HIREDIS_SSL_SONAME));
	cr_expect(mapped(QD_SSL_SONAME));
#define QD_TEST_TLS_RESOLVED(f) cr_expect(qd_tls.f, #f " not resolved");
	QD_HIREDIS_SSL_CALLS(QD_TEST_TLS_RESOLVED)
	QD_OPENSSL_CALLS(QD_TEST_TLS_RESOLVED)
}
#endif
