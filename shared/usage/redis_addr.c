/* SPDX-License-Identifier: GPL-2.0-or-later
 * Redis addresses (redis_addr.h). Hosts hold no blank, '/' or ',', and a
 * ':' only between the brackets of an IPv6 address, so a sentinel list
 * splits back unambiguously at ',' and its master name at the first '/'.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "redis_addr.h"

#define FORMS                                                                  \
	"expected HOST:PORT, [IPV6]:PORT, unix:/PATH or "                      \
	"sentinel:HOST:PORT[,HOST:PORT...]/NAME"

/* Digits only (at most 9), 1 to 65535. */
static bool port_ok(const char *s, size_t len, int *port)
{
	long v = 0;

	if (!len || len > 9)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*port = (int)v;
	return v >= 1 && v <= 65535;
}

/* HOST:PORT or [IPV6]:PORT, s[0..len). */
static bool endpoint_ok(const char *s, size_t len, struct qd_redis_endpoint *e)
{
	const char *host = s, *colon;
	size_t hostlen;

	if (len && s[0] == '[') {
		const char *close = memchr(s, ']', len);

		if (!close || close + 1 == s + len || close[1] != ':')
			return false;
		host = s + 1;
		hostlen = (size_t)(close - host);
		colon = close + 1;
	} else {
		colon = memchr(s, ':', len);
		if (!colon || memchr(colon + 1, ':', len - (colon + 1 - s)))
			return false;
		hostlen = (size_t)(colon - s);
	}
	if (!hostlen || hostlen >= sizeof(e->host))
		return false;
	for (size_t i = 0; i < hostlen; i++)
		if (isspace((unsigned char)host[i]) || host[i] == '/' ||
		    host[i] == ',' || (host != s && host[i] == ']'))
			return false;
	if (!port_ok(colon + 1, len - (size_t)(colon + 1 - s), &e->port))
		return false;
	memcpy(e->host, host, hostlen);
	e->host[hostlen] = '\0';
	return true;
}

/* A master name as sentinel.conf writes it: letters, digits, ._- */
static bool master_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= QD_REDIS_MASTER_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return false;
	return true;
}

static int sentinel(const char *list, struct qd_redis_addr *a, char *why,
		    size_t whylen)
{
	const char *slash = strchr(list, '/'), *p = list;

	if (!slash)
		return qd_errf(why, whylen,
			       "sentinel: no '/NAME' (the master's name) after "
			       "the sentinels");
	if (!master_ok(slash + 1))
		return qd_errf(why, whylen,
			       "sentinel: master name '%s': expected 1 to %d "
			       "letters, digits, '.', '_' or '-'",
			       slash + 1, QD_REDIS_MASTER_NAME_MAX - 1);
	snprintf(a->master, sizeof(a->master), "%s", slash + 1);
	for (;;) {
		const char *comma = memchr(p, ',', (size_t)(slash - p));
		const char *stop = comma ? comma : slash;

		if (a->n_sentinels == QD_SENTINELS_MAX)
			return qd_errf(why, whylen,
				       "sentinel: more than %d sentinels",
				       QD_SENTINELS_MAX);
		if (!endpoint_ok(p, (size_t)(stop - p),
				 &a->sentinels[a->n_sentinels++]))
			return qd_errf(why, whylen,
				       "sentinel '%.*s': expected HOST:PORT "
				       "or [IPV6]:PORT",
				       (int)(stop - p), p);
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

int qd_redis_addr_parse(const char *text, struct qd_redis_addr *a, char *why,
			size_t whylen)
{
	memset(a, 0, sizeof(*a));
	if (!strncmp(text, "sentinel:", 9)) {
		a->kind = QD_REDIS_SENTINEL;
		return sentinel(text + 9, a, why, whylen);
	}
	if (!strncmp(text, "unix:", 5)) {
		a->kind = QD_REDIS_UNIX;
		if (text[5] != '/')
			return qd_errf(why, whylen,
				       "expected an absolute path");
		if (strlen(text + 5) >= sizeof(a->path))
			return qd_errf(why, whylen,
				       "socket path longer than %zu bytes",
				       sizeof(a->path) - 1);
		snprintf(a->path, sizeof(a->path), "%s", text + 5);
		return 0;
	}
	a->kind = QD_REDIS_TCP;
	if (!endpoint_ok(text, strlen(text), &a->tcp))
		return qd_errf(why, whylen, FORMS);
	return 0;
}

int qd_redis_endpoint_named(const char *host, size_t hostlen, const char *port,
			    size_t portlen, struct qd_redis_endpoint *e)
{
	int p;

	if (!hostlen || hostlen >= sizeof(e->host) ||
	    !port_ok(port, portlen, &p))
		return -1;
	for (size_t i = 0; i < hostlen; i++)
		if (!isgraph((unsigned char)host[i]) || host[i] == '/' ||
		    host[i] == ',')
			return -1;
	memcpy(e->host, host, hostlen);
	e->host[hostlen] = '\0';
	e->port = p;
	return 0;
}
