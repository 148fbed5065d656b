/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_gpu_count: the job's GPU count from SLURM_JOB_GPUS or SLURM_STEP_GPUS
 * in the prolog's environment (usage_report.h), the N of the record's
 * GPU-seconds. The whole input is the list. Checked against a second,
 * plain reading: comma-separated items, each a decimal or a range LO-HI of
 * two (digits only, no sign, each within 32 bits, LO at most HI), the
 * count their sum, refused past 32 bits; an empty list
 * is 0 GPUs. A refused list leaves the count 0.
 */
#include "fuzz_util.h"
#include "usage_report.h"

/* Digits only, at most 32 bits: the value, or -1. */
static int64_t number(const char *s, size_t len)
{
	unsigned __int128 v;

	return fuzz_digits(s, len, UINT32_MAX, &v) && v <= UINT32_MAX
		   ? (int64_t)v
		   : -1;
}

static int64_t reference(const char *list)
{
	uint64_t count = 0;

	if (!*list)
		return 0;
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ","), dash = strcspn(p, "-,");
		int64_t lo, hi;

		/* The item is copied into 24 bytes: a longer one is refused. */
		if (!len || len >= 24)
			return -1;
		lo = number(p, dash < len ? dash : len);
		hi = dash < len ? number(p + dash + 1, len - dash - 1) : lo;
		if (lo < 0 || hi < 0 || hi < lo)
			return -1;
		count += (uint64_t)(hi - lo) + 1;
		if (count > UINT32_MAX)
			return -1;
		p += len;
		if (!*p)
			return (int64_t)count;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *list = fuzz_strndup(data, size);
	uint32_t n = 12345;
	int rv = qd_gpu_count(list, &n);
	int64_t want = reference(list);

	FUZZ_ASSERT((rv == 0) == (want >= 0), "'%s': %d, expected %" PRId64,
		    list, rv, want);
	FUZZ_ASSERT(rv ? n == 0 : n == (uint32_t)want,
		    "'%s': %" PRIu32 ", expected %" PRId64, list, n, want);
	free(list);
	return 0;
}
