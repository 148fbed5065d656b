/* SPDX-License-Identifier: GPL-2.0-or-later
 * What qosdeny reads in the replies of the servers themselves, rather than
 * in what clients stored (fuzz_redis_usage): the primary's address as a
 * sentinel names it (SENTINEL get-master-addr-by-name's two strings, which
 * whoever reaches a sentinel without a password may have set with SENTINEL
 * SET or MONITOR: qd_redis_endpoint_named), and TIME's two fields
 * (qd_redis_time_parse).
 *
 * Input: one byte choosing the reply (even: an address, odd: TIME), one
 * byte giving the first string's length (modulo the bytes left), then the
 * first string's bytes and the second's, NULs and all. Checked against a
 * second, plain reading:
 *   - an address is accepted exactly when redis_addr.h's rules accept it:
 *     a host of 1 to 255 bytes, each printable and not a blank, '/' or
 *     ','; a port of 1 to 9 digits, 1 to 65535; it is then the host's
 *     bytes and the port's value, and a refused one leaves the endpoint
 *     untouched;
 *   - TIME is accepted exactly when its seconds are 1 to 12 digits and its
 *     microseconds 1 to 6, and is then seconds + microseconds / 10^6.
 */
#include "fuzz_util.h"
#include "redis_addr.h"
#include "redis_conn.h"

static bool model_host(const char *h, size_t n)
{
	if (!n || n >= QD_REDIS_HOST_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (h[i] <= ' ' || h[i] > '~' || h[i] == '/' || h[i] == ',')
			return false;
	return true;
}

static void fuzz_address(const char *host, size_t hostlen, const char *text,
			 size_t portlen)
{
	struct qd_redis_endpoint e = {"untouched", -1};
	unsigned __int128 port = 0;
	bool model = model_host(host, hostlen) && portlen <= 9 &&
		     fuzz_digits(text, portlen, 65536, &port) && port >= 1 &&
		     port <= 65535;
	int rc = qd_redis_endpoint_named(host, hostlen, text, portlen, &e);

	FUZZ_ASSERT((rc == 0) == model, "address: parser %d, model %d", rc,
		    model);
	if (rc)
		FUZZ_ASSERT(!strcmp(e.host, "untouched") && e.port == -1,
			    "address: refused, but set to '%s' %d", e.host,
			    e.port);
	else
		FUZZ_ASSERT(strlen(e.host) == hostlen &&
				!memcmp(e.host, host, hostlen) &&
				e.port == (int)port,
			    "address: '%s' %d", e.host, e.port);
}

static void fuzz_time(const char *sec, size_t sec_len, const char *usec,
		      size_t usec_len)
{
	unsigned __int128 s, us;
	double now = -1;
	bool model = sec_len <= 12 && usec_len <= 6 &&
		     fuzz_digits(sec, sec_len, UINT64_MAX, &s) &&
		     fuzz_digits(usec, usec_len, UINT64_MAX, &us);
	int rc = qd_redis_time_parse(sec, sec_len, usec, usec_len, &now);

	FUZZ_ASSERT((rc == 0) == model, "TIME: parser %d, model %d", rc, model);
	if (rc)
		FUZZ_ASSERT(now == -1, "TIME: refused, but set to %f", now);
	else
		FUZZ_ASSERT(now == (double)(uint64_t)s +
				       (double)(uint64_t)us / 1e6,
			    "TIME: %f", now);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t first, second;
	char *a, *b;

	if (size < 2)
		return 0;
	first = data[1] % (size - 1); /* of the size - 2 bytes after it */
	second = size - 2 - first;
	a = fuzz_strndup(data + 2, first);
	b = fuzz_strndup(data + 2 + first, second);
	if (data[0] % 2)
		fuzz_time(a, first, b, second);
	else
		fuzz_address(a, first, b, second);
	free(a);
	free(b);
	return 0;
}
