/* SPDX-License-Identifier: GPL-2.0-or-later
 * hiredis, and for TLS hiredis_ssl with OpenSSL, loaded when a process
 * first makes a Redis handle (qd_redis_new), not when it loads qosdeny.
 *
 * spank_qosdeny.so is loaded by srun, salloc and sbatch, and on a node by
 * every slurmstepd (job prolog, each step, job epilog), but only the job
 * epilog (and a prolog finding a record left to send), slurmd's start, the
 * site factor and the tool talk to Redis. Linked in, hiredis costs each of
 * those processes 0.27 ms to load, and hiredis_ssl with libssl and
 * libcrypto 3.7 ms more (docs/performance.md "Launch cost"). The libraries
 * are those the build was made against, by their sonames (the Makefile's
 * QD_HIREDIS_SONAME, QD_HIREDIS_SSL_SONAME); the package depends on them
 * by name (debian/rules).
 *
 * The calls go through the tables below: qd_hiredis.redisFree(c), named as
 * the library names them, typed from hiredis' own headers.
 */
#ifndef QD_HIREDIS_LIB_H
#define QD_HIREDIS_LIB_H

#include <stddef.h>

#include <hiredis/hiredis.h>

/* Every hiredis function qosdeny calls. */
#define QD_HIREDIS_CALLS(X)                                                    \
	X(redisConnectWithTimeout)                                             \
	X(redisConnectUnixWithTimeout)                                         \
	X(redisSetTimeout)                                                     \
	X(redisAppendCommandArgv)                                              \
	X(redisBufferWrite)                                                    \
	X(redisBufferRead)                                                     \
	X(redisGetReplyFromReader)                                             \
	X(redisFree)                                                           \
	X(freeReplyObject)

#define QD_LIB_POINTER(f) __typeof__(f) *f;

struct qd_hiredis_calls {
	QD_HIREDIS_CALLS(QD_LIB_POINTER)
};

/* Filled by qd_hiredis_load; read-only after. */
extern struct qd_hiredis_calls qd_hiredis;

/*
 * Loads hiredis once per process (any thread; later calls return the first
 * result). Returns 0, or -1 with err naming the library and why.
 */
int qd_hiredis_load(char *err, size_t errlen);

#ifdef QD_HAVE_TLS
#include <hiredis/hiredis_ssl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/* Every hiredis_ssl and OpenSSL function redis_tls.c calls. OpenSSL's
 * SSL_set_tlsext_host_name is a macro over SSL_ctrl. */
#define QD_HIREDIS_SSL_CALLS(X) X(redisInitiateSSL)
#define QD_OPENSSL_CALLS(X)                                                    \
	X(TLS_client_method)                                                   \
	X(SSL_CTX_new)                                                         \
	X(SSL_CTX_free)                                                        \
	X(SSL_CTX_set_verify)                                                  \
	X(SSL_CTX_load_verify_locations)                                       \
	X(SSL_CTX_use_certificate_chain_file)                                  \
	X(SSL_CTX_use_PrivateKey_file)                                         \
	X(SSL_CTX_check_private_key)                                           \
	X(SSL_new)                                                             \
	X(SSL_free)                                                            \
	X(SSL_ctrl)                                                            \
	X(SSL_get0_param)                                                      \
	X(SSL_get_verify_result)                                               \
	X(X509_VERIFY_PARAM_set1_host)                                         \
	X(X509_VERIFY_PARAM_set1_ip_asc)                                       \
	X(X509_verify_cert_error_string)                                       \
	X(ERR_get_error)                                                       \
	X(ERR_clear_error)                                                     \
	X(ERR_reason_error_string)

struct qd_tls_calls {
	QD_HIREDIS_SSL_CALLS(QD_LIB_POINTER)
	QD_OPENSSL_CALLS(QD_LIB_POINTER)
};

extern struct qd_tls_calls qd_tls;

/* Loads hiredis_ssl and OpenSSL once per process, as qd_hiredis_load. */
int qd_tls_load(char *err, size_t errlen);
#endif

#endif
