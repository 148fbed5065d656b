/* SPDX-License-Identifier: GPL-2.0-or-later
 * `slurmd -G`'s GRES lines (slurmd_gres.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "slurmd_gres.h"

#define LEAD "Gres "

/* The field at p: its key's length up to '=', and its end. */
static const char *field(const char *p, size_t *keylen)
{
	size_t len = strcspn(p, " \n");
	const char *eq = memchr(p, '=', len);

	*keylen = eq ? (size_t)(eq - p) : len;
	return p + len;
}

static bool is(const char *p, size_t keylen, const char *key)
{
	return keylen == strlen(key) && !memcmp(p, key, keylen);
}

/* The line's first field, "Name=...", after the log's own prefix
 * ("slurmd: ", a time stamp); NULL where it is no GRES line. */
static const char *gres_name(const char *line)
{
	const char *p = strstr(line, LEAD "Name=");

	if (!p || (p != line && p[-1] != ' '))
		return NULL;
	return p + strlen(LEAD);
}

int qd_slurmd_gres_line(const char *line, const char **file, size_t *filelen)
{
	const char *p = gres_name(line), *end;
	bool gpu;
	size_t k;

	if (!p)
		return -1;
	end = field(p, &k);
	gpu = end - p == 8 && !memcmp(p, "Name=gpu", 8);
	while (*end == ' ') {
		p = end + 1;
		end = field(p, &k);
		if (gpu && is(p, k, "File") && end > p + k + 1) {
			*file = p + k + 1;
			*filelen = (size_t)(end - *file);
			return 1;
		}
	}
	return 0;
}

int qd_slurmd_gres_count(const char *line, const char *name,
			 unsigned long long *count)
{
	const char *p = gres_name(line), *end;
	size_t k;

	if (!p)
		return -1;
	end = field(p, &k);
	if ((size_t)(end - p) != 5 + strlen(name) ||
	    memcmp(p + 5, name, strlen(name)))
		return 0;
	while (*end == ' ') {
		p = end + 1;
		end = field(p, &k);
		if (is(p, k, "Count") && end > p + k + 1) {
			char *stop;

			if (p[k + 1] < '0' || p[k + 1] > '9')
				return 0;
			errno = 0;
			*count = strtoull(p + k + 1, &stop, 10);
			return !errno && stop == end;
		}
	}
	return 0;
}
