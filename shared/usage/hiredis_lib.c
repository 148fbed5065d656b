/* SPDX-License-Identifier: GPL-2.0-or-later
 * hiredis and its TLS half, loaded on first use (hiredis_lib.h says why).
 * Loaded for good: hiredis' and OpenSSL's state lives as long as the
 * process, and a plugin unloaded and loaded again finds them loaded.
 */
#include <dlfcn.h>
#include <pthread.h>

#include "errmsg.h"
#include "hiredis_lib.h"

struct qd_hiredis_calls qd_hiredis;

/* One load's outcome, kept for every later caller. */
struct lib_load {
	pthread_once_t once;
	int rv;
	char err[512];
};

/* The library by its soname, dlopen's flags beside RTLD_NOW; NULL with
 * l's error. */
static void *lib_open(struct lib_load *l, const char *soname, int flags)
{
	void *h = dlopen(soname, RTLD_NOW | flags);

	if (!h)
		l->rv = qd_errf(l->err, sizeof(l->err), "cannot load %s: %s",
				soname, dlerror());
	return h;
}

/* One function of it; NULL with l's error (the first one kept). */
static void *lib_sym(struct lib_load *l, void *h, const char *soname,
		     const char *name)
{
	void *p = h && !l->rv ? dlsym(h, name) : NULL;

	if (!p && !l->rv)
		l->rv = qd_errf(l->err, sizeof(l->err),
				"%s has no %s: not the library qosdeny was "
				"built against",
				soname, name);
	return p;
}

#define QD_LIB_RESOLVE(f) t.f = (__typeof__(t.f))lib_sym(l, h, soname, #f);

static struct lib_load hiredis_load = {.once = PTHREAD_ONCE_INIT};

static void hiredis_open(void)
{
	struct lib_load *l = &hiredis_load;
	const char *soname = QD_HIREDIS_SONAME;
	struct qd_hiredis_calls t;
	void *h = lib_open(l, soname, RTLD_LOCAL);

	QD_HIREDIS_CALLS(QD_LIB_RESOLVE)
	if (!l->rv)
		qd_hiredis = t;
}

int qd_hiredis_load(char *err, size_t errlen)
{
	pthread_once(&hiredis_load.once, hiredis_open);
	return hiredis_load.rv ? qd_errf(err, errlen, "%s", hiredis_load.err)
			       : 0;
}

#ifdef QD_HAVE_TLS
struct qd_tls_calls qd_tls;

static struct lib_load tls_load = {.once = PTHREAD_ONCE_INIT};

/*
 * hiredis_ssl's function from it, OpenSSL's from libssl (dlsym searches
 * the libcrypto it needs too). hiredis_ssl calls hiredis without naming it
 * as a library it needs (Debian 13's), so hiredis, loaded local to
 * qosdeny, is made global first.
 */
static void tls_open(void)
{
	struct lib_load *l = &tls_load;
	const char *soname = QD_HIREDIS_SONAME;
	struct qd_tls_calls t;
	void *h = lib_open(l, soname, RTLD_NOLOAD | RTLD_GLOBAL);

	soname = QD_HIREDIS_SSL_SONAME;
	h = l->rv ? NULL : lib_open(l, soname, RTLD_LOCAL);

	QD_HIREDIS_SSL_CALLS(QD_LIB_RESOLVE)
	soname = QD_SSL_SONAME;
	h = l->rv ? NULL : lib_open(l, soname, RTLD_LOCAL);
	QD_OPENSSL_CALLS(QD_LIB_RESOLVE)
	if (!l->rv)
		qd_tls = t;
}

int qd_tls_load(char *err, size_t errlen)
{
	if (qd_hiredis_load(err, errlen))
		return -1;
	pthread_once(&tls_load.once, tls_open);
	return tls_load.rv ? qd_errf(err, errlen, "%s", tls_load.err) : 0;
}
#endif
