/* SPDX-License-Identifier: GPL-2.0-or-later
 * `slurmd -G`'s GRES lines (slurmd_gres.h).
 */
#include <stdbool.h>
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

int qd_slurmd_gres_line(const char *line, const char **file, size_t *filelen)
{
	const char *p = strstr(line, LEAD "Name="), *end;
	bool gpu;
	size_t k;

	/* After the log's own prefix ("slurmd: ", a time stamp). */
	if (!p || (p != line && p[-1] != ' '))
		return -1;
	p += strlen(LEAD);
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
