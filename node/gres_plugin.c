/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "gres_plugin.h"

#define PLUGIN "/gres_gpu.so"

bool qd_gres_gpu_mapped(const char *maps, size_t len)
{
	const char *p = maps, *end = maps + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		size_t n = (size_t)(eol - p), k = strlen(PLUGIN);

		/* The path is the line's last field. */
		if (n >= k && !memcmp(eol - k, PLUGIN, k))
			return true;
		p = eol + 1;
	}
	return false;
}

int qd_gres_gpu_loaded(char *err, size_t errlen)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	bool found = false;

	if (!f)
		return qd_errf(err, errlen, "/proc/self/maps: %s",
			       strerror(errno));
	while (!found && (n = getline(&line, &cap, f)) > 0)
		found =
		    qd_gres_gpu_mapped(line, (size_t)n - (line[n - 1] == '\n'));
	free(line);
	if (!found && ferror(f)) {
		fclose(f);
		return qd_errf(err, errlen, "/proc/self/maps: read error");
	}
	fclose(f);
	return found;
}
