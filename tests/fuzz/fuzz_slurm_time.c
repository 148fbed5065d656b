/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_parse_slurm_time: UsageHalfLife= in qosdeny.conf. The whole input is the
 * text. Its result is checked against a second, deliberately different
 * reading of the grammar in policy.h (split first, then 128-bit arithmetic),
 * so that a wrong field order, a missed overflow or a syntax let through
 * shows up as a mismatch rather than only as a sanitizer report.
 */
#include "fuzz_util.h"
#include "policy.h"

#define NO_TIME (-1)

/* One field of digits in s[0..len): its value, or -1 when empty, not all
 * digits, or too large to matter (anything past INT64_MAX is an overflow
 * of the total anyway). */
static __int128 field(const char *s, size_t len)
{
	unsigned __int128 v;

	return fuzz_digits(s, len, INT64_MAX, &v) ? (__int128)v : -1;
}

static int64_t reference(const char *text)
{
	const char *dash = strchr(text, '-');
	const char *rest = dash ? dash + 1 : text;
	__int128 days = 0, f[3], h = 0, m, s = 0, total;
	int n = 0;

	if (dash && (days = field(text, (size_t)(dash - text))) < 0)
		return NO_TIME;
	for (;;) {
		size_t len = strcspn(rest, ":");

		if (n == 3 || (f[n++] = field(rest, len)) < 0)
			return NO_TIME;
		if (!rest[len])
			break;
		rest += len + 1;
	}
	if (dash || n == 3) {
		h = f[0];
		m = n > 1 ? f[1] : 0;
		s = n > 2 ? f[2] : 0;
	} else {
		m = f[0];
		s = n > 1 ? f[1] : 0;
	}
	total = ((days * 24 + h) * 60 + m) * 60 + s;
	return total > INT64_MAX ? NO_TIME : (int64_t)total;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size);
	int64_t got = qd_parse_slurm_time(text);
	int64_t want = reference(text);

	FUZZ_ASSERT(got == want, "'%s': %" PRId64 ", expected %" PRId64, text,
		    got, want);
	free(text);
	return 0;
}
