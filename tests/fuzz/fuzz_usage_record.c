/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_usage_record_decode: a spool file's or a Redis value's bytes, which
 * anyone with access to either may have written, read by the SPANK plugin
 * and the qosdeny tool.
 *
 * Input: the bytes to decode, as they are (NULs and all). Checks, beyond
 * the sanitizers:
 *   - decoding succeeds exactly when a second, plain reading of the format in
 *     usage_record.h accepts the bytes (fourteen words split at single
 *     blanks for versions 2 and 3, twelve for version 1, keys in order,
 *     names from the allowed set or canonical %XX escapes, numbers without
 *     sign or leading zeros, gpus and gpu_seconds with up to three digits
 *     after a point and no trailing zero in version 3 only, restart empty
 *     or below 2^32 - 1, an open or a consistently closed record, in
 *     128-bit arithmetic of thousandths), and yields the same fields
 *     (version 1: restart unknown, job_start 0);
 *   - a failure zeroes the record and says "usage record: ..." within
 *     errlen; qd_usage_record_check agrees with the decoder;
 *   - a decoded record encodes back to exactly the input bytes (the encoding
 *     is canonical; a version 2 record to its version 3 magic, a version 1
 *     record to that and restart= and job_start=0 after partition), and
 *     into a buffer one byte short it is refused;
 *   - closing a decoded open record gives one that again survives
 *     encode -> decode unchanged, and its id fits QD_RECORD_ID_MAX.
 */
#include "fuzz_util.h"
#include "usage_record.h"

#define MAGIC	 "qosdeny-usage/3"
#define MAGIC_V2 "qosdeny-usage/2"
#define MAGIC_V1 "qosdeny-usage/1"

static const char *const keys[] = {
    "cluster", "job",	    "node",	   "user",	"account",
    "qos",     "partition", "restart",	   "job_start", "start",
    "end",     "gpus",	    "gpu_seconds",
};

#define NKEYS	  (sizeof(keys) / sizeof(keys[0]))
#define K_RESTART 7 /* restart and job_start: version 2 only */
#define K_JSTART  8
#define K_START	  9
#define K_END	  10
#define K_GPUS	  11
#define K_GS	  12

/* Field i: a name (0), an optional name (1), a number up to max (2) or a
 * number that may be empty (3). */
static int kind(size_t i)
{
	if (i == K_RESTART)
		return 3;
	if (i == 1 || i >= K_JSTART)
		return 2;
	return i >= 4 && i <= 6; /* account, qos, partition */
}

static bool model_number(const char *s, size_t len, unsigned __int128 max,
			 unsigned __int128 *v)
{
	if (!len || len > 40 || (len > 1 && s[0] == '0'))
		return false;
	*v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*v = *v * 10 + (unsigned)(s[i] - '0');
	}
	return *v <= max;
}

/* Thousandths: "W" (any version) or "W.F" (version 3, F 1-3 digits, the
 * last not 0). */
static bool model_milli(const char *s, size_t len, int version,
			unsigned __int128 max, unsigned __int128 *v)
{
	const char *dot = memchr(s, '.', len);
	size_t wlen = dot ? (size_t)(dot - s) : len, flen;
	unsigned __int128 frac = 0;

	if (!model_number(s, wlen, (unsigned __int128)-1, v))
		return false;
	if (dot) {
		flen = len - wlen - 1;
		if (version < 3 || flen < 1 || flen > 3 || s[len - 1] == '0')
			return false;
		for (size_t i = 0; i < 3; i++) {
			char c = i < flen ? dot[1 + i] : '0';

			if (c < '0' || c > '9')
				return false;
			frac = frac * 10 + (unsigned)(c - '0');
		}
	}
	*v = *v * 1000 + frac;
	return *v <= max;
}

struct model {
	const char *name[NKEYS];
	size_t namelen[NKEYS];
	unsigned __int128 num[NKEYS];
	int version;
	bool v1;
	bool restart_empty; /* or v1: unknown */
	size_t start_off;   /* where the "start=" word begins */
};

/* The format read word by word, independently of the decoder's table. */
static bool model_decode(const char *d, size_t n, struct model *m)
{
	static const unsigned __int128 max[NKEYS] = {
	    [1] = UINT32_MAX,	    [K_RESTART] = UINT32_MAX - 1,
	    [K_JSTART] = INT64_MAX, [K_START] = INT64_MAX,
	    [K_END] = INT64_MAX,    [K_GPUS] = UINT32_MAX, /* thousandths */
	    [K_GS] = UINT64_MAX};
	const char *w = d, *end, *stop;
	size_t i;

	if (n < 1 || n > QD_RECORD_MAX || d[n - 1] != '\n')
		return false;
	end = d + n - 1;
	if (memchr(d, '\n', n - 1) || memchr(d, '\0', n))
		return false;
	stop = memchr(w, ' ', (size_t)(end - w));
	if (!stop || (size_t)(stop - w) != strlen(MAGIC))
		return false;
	m->v1 = !memcmp(w, MAGIC_V1, strlen(MAGIC_V1));
	m->version = m->v1				      ? 1
		     : !memcmp(w, MAGIC_V2, strlen(MAGIC_V2)) ? 2
		     : !memcmp(w, MAGIC, strlen(MAGIC))	      ? 3
							      : 0;
	if (!m->version)
		return false;
	m->restart_empty = m->v1;
	w = stop + 1;
	for (i = 0; i < NKEYS; i++, w = stop + 1) {
		size_t klen = strlen(keys[i]);
		const char *v;

		if (m->v1 && (i == K_RESTART || i == K_JSTART)) {
			stop = w - 1; /* not in version 1: w stays */
			continue;
		}
		if (i == K_START)
			m->start_off = (size_t)(w - d);
		stop = memchr(w, ' ', (size_t)(end - w));
		if (!stop)
			stop = end;
		if ((stop == end) != (i + 1 == NKEYS))
			return false; /* too few or too many words */
		if ((size_t)(stop - w) <= klen || memcmp(w, keys[i], klen) ||
		    w[klen] != '=')
			return false;
		v = w + klen + 1;
		if (kind(i) == 3 && stop == v) {
			m->restart_empty = true;
		} else if (i == K_GPUS || i == K_GS) {
			if (!model_milli(v, (size_t)(stop - v), m->version,
					 max[i], &m->num[i]))
				return false;
		} else if (kind(i) >= 2) {
			if (!model_number(v, (size_t)(stop - v), max[i],
					  &m->num[i]))
				return false;
		} else {
			if (!fuzz_model_name(v, (size_t)(stop - v), kind(i)))
				return false;
			m->name[i] = v;
			m->namelen[i] = (size_t)(stop - v);
		}
	}
	/* job > 0, start > 0; open: no seconds; closed: end >= start and
	 * seconds = gpus * (end - start), which must fit in 64 bits. */
	if (!m->num[1] || !m->num[K_START])
		return false;
	if (!m->num[K_END])
		return !m->num[K_GS];
	return m->num[K_END] >= m->num[K_START] &&
	       m->num[K_GPUS] * (m->num[K_END] - m->num[K_START]) ==
		   m->num[K_GS];
}

static void check_same(const struct model *m, const struct qd_usage_record *r)
{
	const char *names[NKEYS] = {
	    [0] = r->cluster, [2] = r->node, [3] = r->user,
	    [4] = r->account, [5] = r->qos,  [6] = r->partition};
	const unsigned __int128 nums[NKEYS] = {[1] = r->job_id,
					       [K_RESTART] = r->restart,
					       [K_JSTART] =
						   (uint64_t)r->job_start,
					       [K_START] = (uint64_t)r->start,
					       [K_END] = (uint64_t)r->end,
					       [K_GPUS] = r->mgpus,
					       [K_GS] = r->mgpu_seconds};

	for (size_t i = 0; i < NKEYS; i++) {
		if (i == K_RESTART && m->restart_empty) {
			FUZZ_ASSERT(r->restart == QD_RESTART_UNKNOWN,
				    "restart %" PRIu32, r->restart);
			continue;
		}
		if (kind(i) >= 2) {
			FUZZ_ASSERT(nums[i] == m->num[i], "%s", keys[i]);
			continue;
		}
		FUZZ_ASSERT(strlen(names[i]) == m->namelen[i] &&
				!memcmp(names[i], m->name[i], m->namelen[i]),
			    "%s '%s'", keys[i], names[i]);
	}
}

static void check_encodes_to(const struct qd_usage_record *r, const char *want,
			     size_t n)
{
	char buf[QD_RECORD_MAX + 1], err[QD_RECORD_ERR_MAX];
	char *tight = malloc(n + 1);
	int k;

	k = qd_usage_record_encode(r, buf, sizeof(buf), err, sizeof(err));
	FUZZ_ASSERT(k > 0, "decoded record not encodable: %s", err);
	FUZZ_ASSERT((size_t)k == n && !memcmp(buf, want, n),
		    "re-encoded as '%s'", buf);
	FUZZ_ASSERT(qd_usage_record_encode(r, tight, n + 1, err, sizeof(err)) ==
			(int)n,
		    "no fit in %zu bytes", n + 1);
	FUZZ_ASSERT(qd_usage_record_encode(r, tight, n, err, sizeof(err)) == -1,
		    "fit in %zu bytes", n);
	fuzz_check_err(err, sizeof(err), true);
	free(tight);
}

/* A version 2 record encodes to its version 3 form: the new magic, the
 * rest the same (whole numbers are written as they were). */
static void check_encodes_to_v3(const struct qd_usage_record *r, const char *v2,
				size_t n)
{
	char *want = malloc(n);

	if (!want)
		abort();
	memcpy(want, v2, n);
	memcpy(want, MAGIC, strlen(MAGIC));
	check_encodes_to(r, want, n);
	free(want);
}

/* A version 1 record encodes to its version 3 form: the new magic, and
 * "restart= job_start=0 " before the start= word at start_off. */
static void check_encodes_from_v1(const struct qd_usage_record *r,
				  const char *v1, size_t n, size_t start_off)
{
	static const char added[] = "restart= job_start=0 ";
	size_t len = n + strlen(added);
	char *want = malloc(len);

	if (!want)
		abort();
	memcpy(want, MAGIC, strlen(MAGIC));
	memcpy(want + strlen(MAGIC), v1 + strlen(MAGIC_V1),
	       start_off - strlen(MAGIC_V1));
	memcpy(want + start_off, added, strlen(added));
	memcpy(want + start_off + strlen(added), v1 + start_off, n - start_off);
	check_encodes_to(r, want, len);
	free(want);
}

/* Encode -> decode gives r back, and the encoding again. */
static void check_round_trip(const struct qd_usage_record *r)
{
	char buf[QD_RECORD_MAX + 1], err[QD_RECORD_ERR_MAX];
	struct qd_usage_record back;
	int k = qd_usage_record_encode(r, buf, sizeof(buf), err, sizeof(err));

	FUZZ_ASSERT(k > 0, "not encodable: %s", err);
	FUZZ_ASSERT(qd_usage_record_decode(buf, (size_t)k, &back, err,
					   sizeof(err)) == 0,
		    "own '%s' not decodable: %s", buf, err);
	FUZZ_ASSERT(!memcmp(r, &back, sizeof(back)), "'%s' read back", buf);
	check_encodes_to(&back, buf, (size_t)k);
}

static void check_close(struct qd_usage_record r, int64_t at)
{
	char id[QD_RECORD_ID_MAX];
	int64_t start = r.start;

	FUZZ_ASSERT(qd_usage_record_id(&r, id, sizeof(id)) > 0, "id too long");
	if (!qd_usage_record_is_open(&r)) {
		FUZZ_ASSERT(qd_usage_record_close(&r, at) == -1,
			    "closed twice");
		return;
	}
	if (qd_usage_record_close(&r, at))
		return; /* at <= 0 or the product overflows */
	FUZZ_ASSERT(at > 0 && r.end == (at < start ? start : at),
		    "end %" PRId64 " for %" PRId64, r.end, at);
	check_round_trip(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t errlens[] = {QD_RECORD_ERR_MAX, 0, 1, 20, 15};
	size_t errlen = errlens[size % 5];
	/* Exactly size bytes, no terminator: the decoder takes a length. */
	char *text = malloc(size ? size : 1);
	char *err = fuzz_errbuf(errlen), big[QD_RECORD_ERR_MAX];
	struct qd_usage_record r, zero;
	struct model m;
	bool want;
	int rc;

	if (!text)
		abort();
	memcpy(text, data, size);
	memset(&r, 0xa5, sizeof(r));
	memset(&zero, 0, sizeof(zero));
	memset(&m, 0, sizeof(m));
	want = model_decode(text, size, &m);
	rc = qd_usage_record_decode(text, size, &r, err, errlen);
	FUZZ_ASSERT(rc == 0 || rc == -1, "rc %d", rc);
	FUZZ_ASSERT((rc == 0) == want, "decoder says %d, model %d", rc, want);
	fuzz_check_err(err, errlen, rc);
	if (rc) {
		FUZZ_ASSERT(!memcmp(&r, &zero, sizeof(r)), "not zeroed");
		FUZZ_ASSERT(qd_usage_record_decode(text, size, &r, big,
						   sizeof(big)) == -1 &&
				!strncmp(big, "usage record: ", 14) && big[14],
			    "error '%s'", big);
	} else {
		check_same(&m, &r);
		FUZZ_ASSERT(qd_usage_record_check(&r, big, sizeof(big)) == 0,
			    "check refuses a decoded record: %s", big);
		if (m.v1)
			check_encodes_from_v1(&r, text, size, m.start_off);
		else if (m.version == 2)
			check_encodes_to_v3(&r, text, size);
		else
			check_encodes_to(&r, text, size);
		check_close(r, (int64_t)(size * 1000003) - 500000);
		if (r.start < INT64_MAX - 3)
			check_close(r, r.start + (int64_t)(size % 7) - 3);
	}
	free(err);
	free(text);
	return 0;
}
