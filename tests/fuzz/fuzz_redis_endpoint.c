/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_redis_endpoint_named: the primary's address as a sentinel names it
 * (SENTINEL get-master-addr-by-name's two strings), which whoever can reach
 * a sentinel without a password may have set (SENTINEL SET, MONITOR).
 *
 * Input: one byte, the host's length (modulo the bytes left), then the
 * host's bytes, then the port's, NULs and all. Checked against a second,
 * plain reading of redis_addr.h: a host of 1 to 255 bytes, each printable
 * and not a blank, '/' or ','; a port of 1 to 9 digits, 1 to 65535. An
 * accepted address is the host's bytes and the port's value; a refused one
 * leaves the endpoint untouched.
 */
#include "fuzz_util.h"
#include "redis_addr.h"

static bool model_host(const char *h, size_t n)
{
	if (!n || n >= QD_REDIS_HOST_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (h[i] <= ' ' || h[i] > '~' || h[i] == '/' || h[i] == ',')
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct qd_redis_endpoint e = {"untouched", -1};
	size_t hostlen, portlen;
	unsigned __int128 port = 0;
	char *host, *text;
	bool model;
	int rc;

	if (!size)
		return 0;
	hostlen = data[0] % size; /* of the size - 1 bytes after it */
	portlen = size - 1 - hostlen;
	host = fuzz_strndup(data + 1, hostlen);
	text = fuzz_strndup(data + 1 + hostlen, portlen);
	model = model_host(host, hostlen) && portlen <= 9 &&
		fuzz_digits(text, portlen, 65536, &port) && port >= 1 &&
		port <= 65535;
	rc = qd_redis_endpoint_named(host, hostlen, text, portlen, &e);
	FUZZ_ASSERT((rc == 0) == model, "parser %d, model %d", rc, model);
	if (rc)
		FUZZ_ASSERT(!strcmp(e.host, "untouched") && e.port == -1,
			    "refused, but set to '%s' %d", e.host, e.port);
	else
		FUZZ_ASSERT(strlen(e.host) == hostlen &&
				!memcmp(e.host, host, hostlen) &&
				e.port == (int)port,
			    "'%s' %d", e.host, e.port);
	free(host);
	free(text);
	return 0;
}
