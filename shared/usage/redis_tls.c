/* SPDX-License-Identifier: GPL-2.0-or-later
 * TLS to Redis and its sentinels (redis_tls_ca=, redis_tls_cert=,
 * redis_tls_key=; docs/high-availability.md, "TLS"). Built where hiredis has
 * hiredis_ssl (1.0 and later: the Makefile defines QD_HAVE_TLS); Debian
 * 12's hiredis 0.14 has none, and there these options are refused, never
 * ignored.
 *
 * The server's certificate must chain to redis_tls_ca and name the host or
 * IP address connected to: what a sentinel names is checked as well as
 * what the configuration names. The SSL object is ours, not hiredis', so
 * that a certificate that does not verify is reported with OpenSSL's reason.
 */
#include <string.h>

#include "errmsg.h"
#include "redis_link.h"

#ifdef QD_HAVE_TLS
#include <arpa/inet.h>
#include <errno.h>
#include <sys/stat.h>

#include "secret_file.h"

bool qd_redis_tls_built(void)
{
	return true;
}

static int tls_fail(char *err, size_t errlen, const char *what,
		    const char *path)
{
	unsigned long e = qd_tls.ERR_get_error();

	qd_tls.ERR_clear_error();
	return qd_errf(err, errlen, "%s %s: %s", what, path,
		       e ? qd_tls.ERR_reason_error_string(e)
			 : "cannot be used");
}

int qd_redis_tls_new(struct qd_redis *r, const struct qd_redis_config *cfg,
		     char *err, size_t errlen)
{
	SSL_CTX *ctx;
	struct stat st;

	if (!cfg->tls_ca && !cfg->tls_cert && !cfg->tls_key)
		return 0;
	if (!cfg->tls_ca)
		return qd_errf(err, errlen,
			       "redis_tls_cert= and redis_tls_key= need "
			       "redis_tls_ca= (the CA the servers' "
			       "certificates chain to)");
	if (!cfg->tls_cert != !cfg->tls_key)
		return qd_errf(
		    err, errlen,
		    "redis_tls_cert= and redis_tls_key= go together");
	if (r->addr.kind == QD_REDIS_UNIX)
		return qd_errf(
		    err, errlen,
		    "redis_tls_*: TLS is for TCP, not a unix socket");
	if (qd_tls_load(err, errlen))
		return -1;
	ctx = qd_tls.SSL_CTX_new(qd_tls.TLS_client_method());
	if (!ctx)
		return qd_errf(err, errlen, "TLS: out of memory");
	r->tls = ctx;
	qd_tls.SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	if (qd_tls.SSL_CTX_load_verify_locations(ctx, cfg->tls_ca, NULL) != 1)
		return tls_fail(err, errlen, "redis_tls_ca", cfg->tls_ca);
	if (cfg->tls_cert &&
	    qd_tls.SSL_CTX_use_certificate_chain_file(ctx, cfg->tls_cert) != 1)
		return tls_fail(err, errlen, "redis_tls_cert", cfg->tls_cert);
	/* By path, as OpenSSL then reads it: the directory a site keeps its
	 * keys in is root's, so the file checked is the file read. */
	if (cfg->tls_key && stat(cfg->tls_key, &st))
		return qd_errf(err, errlen, "redis_tls_key %s: %s",
			       cfg->tls_key, strerror(errno));
	if (cfg->tls_key &&
	    qd_secret_file_ok("redis_tls_key", cfg->tls_key, &st, err, errlen))
		return -1;
	if (cfg->tls_key && qd_tls.SSL_CTX_use_PrivateKey_file(
				ctx, cfg->tls_key, SSL_FILETYPE_PEM) != 1)
		return tls_fail(err, errlen, "redis_tls_key", cfg->tls_key);
	if (cfg->tls_key && qd_tls.SSL_CTX_check_private_key(ctx) != 1)
		return tls_fail(err, errlen, "redis_tls_key", cfg->tls_key);
	return 0;
}

void qd_redis_tls_free(struct qd_redis *r)
{
	if (r->tls) /* else OpenSSL may not even be loaded */
		qd_tls.SSL_CTX_free(r->tls);
	r->tls = NULL;
}

/* The name the certificate must hold: an IP address, else a host name
 * (then also sent as SNI). */
static int expect_peer(SSL *ssl, const char *host)
{
	X509_VERIFY_PARAM *vp = qd_tls.SSL_get0_param(ssl);
	unsigned char ip[sizeof(struct in6_addr)];

	if (inet_pton(AF_INET, host, ip) == 1 ||
	    inet_pton(AF_INET6, host, ip) == 1)
		return qd_tls.X509_VERIFY_PARAM_set1_ip_asc(vp, host) == 1 ? 0
									   : -1;
	/* SSL_set_tlsext_host_name(), a macro over SSL_ctrl */
	if (qd_tls.SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME,
			    TLSEXT_NAMETYPE_host_name, (void *)host) != 1)
		return -1;
	return qd_tls.X509_VERIFY_PARAM_set1_host(vp, host, 0) == 1 ? 0 : -1;
}

int qd_redis_tls_start(struct qd_redis *r, redisContext *c, const char *host,
		       char *why, size_t whylen)
{
	SSL *ssl = qd_tls.SSL_new(r->tls);
	long v;

	if (!ssl || expect_peer(ssl, host)) {
		qd_tls.SSL_free(ssl);
		return qd_errf(why, whylen, "TLS: cannot set up");
	}
	if (qd_tls.redisInitiateSSL(c, ssl) == REDIS_OK)
		return 0; /* the context owns ssl now */
	v = qd_tls.SSL_get_verify_result(ssl);
	if (v != X509_V_OK)
		qd_errf(why, whylen,
			"TLS: the server's certificate does not verify "
			"against redis_tls_ca: %s: refused",
			qd_tls.X509_verify_cert_error_string(v));
	else
		qd_errf(why, whylen, "TLS: %s", c->errstr);
	qd_tls.SSL_free(ssl);
	qd_tls.ERR_clear_error();
	return -1;
}

#else

bool qd_redis_tls_built(void)
{
	return false;
}

int qd_redis_tls_new(struct qd_redis *r, const struct qd_redis_config *cfg,
		     char *err, size_t errlen)
{
	(void)r;
	if (cfg->tls_ca || cfg->tls_cert || cfg->tls_key)
		return qd_errf(err, errlen, "redis_tls_*: %s", QD_REDIS_NO_TLS);
	return 0;
}

void qd_redis_tls_free(struct qd_redis *r)
{
	(void)r;
}

int qd_redis_tls_start(struct qd_redis *r, redisContext *c, const char *host,
		       char *why, size_t whylen)
{
	(void)r;
	(void)c;
	(void)host;
	return qd_errf(why, whylen, "redis_tls_*: %s", QD_REDIS_NO_TLS);
}

#endif
