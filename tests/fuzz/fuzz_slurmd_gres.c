/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_slurmd_gres_line: a line of `slurmd -G`'s output, as doctor reads it
 * (node/slurmd_gres.h). The whole input is the line, up to its first NUL.
 * Checked against a second, plain reading: the line's first "Gres Name=",
 * at its start or after a blank, else no GRES line; what follows, up to a
 * newline, cut at every blank into fields; a GPU's when the first field is
 * "Name=gpu", and then the value of the first field that begins "File="
 * and has one, as a span of the line itself.
 */
#include "fuzz_util.h"
#include "slurmd_gres.h"

static int model(const char *line, const char **file, size_t *filelen)
{
	const char *g = strstr(line, "Gres Name="), *p, *stop;
	bool gpu;

	if (!g || (g > line && g[-1] != ' '))
		return -1;
	p = g + 5;
	stop = p + strcspn(p, "\n");
	gpu = false;
	for (int i = 0; p <= stop; i++) {
		const char *q = memchr(p, ' ', (size_t)(stop - p));
		const char *e = q ? q : stop;

		if (!i)
			gpu = e - p == 8 && !strncmp(p, "Name=gpu", 8);
		else if (gpu && e - p > 5 && !strncmp(p, "File=", 5)) {
			*file = p + 5;
			*filelen = (size_t)(e - p - 5);
			return 1;
		}
		p = e + 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = fuzz_strndup(data, size);
	const char *f = NULL, *mf = NULL;
	size_t n = 0, mn = 0;
	int rc = qd_slurmd_gres_line(line, &f, &n), want;

	want = model(line, &mf, &mn);
	FUZZ_ASSERT(rc == want, "parser %d, model %d", rc, want);
	if (rc == 1)
		FUZZ_ASSERT(f == mf && n == mn && n &&
				f + n <= line + strlen(line),
			    "File= at %td, %zu bytes; model at %td, %zu",
			    f - line, n, mf - line, mn);
	free(line);
	return 0;
}
