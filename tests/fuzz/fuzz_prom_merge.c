/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_prom_merge: `qosdeny metrics` reading the metrics files of a
 * directory that root, SlurmUser or a misconfigured permission may let
 * others write. The input is the files' text, split into files at NUL
 * bytes. What the merge prints:
 *   - is only HELP, TYPE and sample lines of qosdeny_ metrics, each ending
 *     in a newline, with no control character and valid UTF-8;
 *   - holds each family's HELP and TYPE at most once, before its samples;
 *   - merged again, is the same text, with nothing left out.
 */
#include "fuzz_util.h"
#include "prom_merge.h"

#define FILES_MAX 8

static void check_line(const char *line, size_t len)
{
	FUZZ_ASSERT(len > 8 && (!strncmp(line, "qosdeny_", 8) ||
				!strncmp(line, "# HELP qosdeny_", 15) ||
				!strncmp(line, "# TYPE qosdeny_", 15)),
		    "line '%.*s'", (int)len, line);
	for (size_t i = 0; i < len;) {
		size_t k = qd_prom_utf8_len(line + i, len - i);

		FUZZ_ASSERT(k && (unsigned char)line[i] >= 0x20 &&
				line[i] != 0x7f,
			    "byte %zu of '%.*s'", i, (int)len, line);
		i += k;
	}
}

/* Each HELP (and each TYPE) line's name at most once. */
static void check_once(const char *text)
{
	for (const char *s = text; *s; s = strchr(s, '\n') + 1) {
		size_t len = strcspn(s, "\n");

		FUZZ_ASSERT(s[len] == '\n', "a line without its newline");
		check_line(s, len);
		if (s[0] == '#') {
			size_t n = strcspn(s + 7, " \n");

			for (const char *t = s + len + 1; *t;
			     t = strchr(t, '\n') + 1)
				FUZZ_ASSERT(
				    strncmp(t, s, 7 + n) ||
					(t[7 + n] != ' ' && t[7 + n] != '\n'),
				    "'%.*s' twice", (int)(7 + n), s);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *texts[FILES_MAX];
	struct qd_prom out = {0}, again = {0};
	size_t n = 0, skipped, skipped2;
	const char *p = (const char *)data, *end = p + size;

	/* The files: the text between NULs. */
	while (n < FILES_MAX && p <= end) {
		size_t len = strnlen(p, (size_t)(end - p));

		texts[n++] = fuzz_strndup((const uint8_t *)p, len);
		p += len + 1;
	}
	if (qd_prom_merge((const char *const *)texts, n, &out, &skipped))
		goto out;
	if (out.text) {
		const char *one[] = {out.text};

		check_once(out.text);
		FUZZ_ASSERT(!qd_prom_merge(one, 1, &again, &skipped2),
			    "out of memory");
		FUZZ_ASSERT(
		    !skipped2 && again.text && !strcmp(again.text, out.text),
		    "merged again: %zu left out, or another text", skipped2);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(texts[i]);
	qd_prom_free(&out);
	qd_prom_free(&again);
	return 0;
}
