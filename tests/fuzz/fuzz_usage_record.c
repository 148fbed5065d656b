/*
 * qd_usage_record_decode: a spool file's or a Redis value's bytes, which
 * anyone with access to either may have written, read by the SPANK plugin
 * and the qosdeny tool.
 *
 * Input: the bytes to decode, as they are (NULs and all). Checks, beyond
 * the sanitizers:
 *   - decoding succeeds exactly when a second, plain reading of the format in
 *     usage_record.h accepts the bytes (twelve words split at single blanks,
 *     keys in order, names from the allowed set, numbers without sign or
 *     leading zeros, an open or a consistently closed record, in 128-bit
 *     arithmetic), and yields the same fields;
 *   - a failure zeroes the record and says "usage record: ..." within
 *     errlen; qd_usage_record_check agrees with the decoder;
 *   - a decoded record encodes back to exactly the input bytes (the encoding
 *     is canonical), and into a buffer one byte short it is refused;
 *   - closing a decoded open record gives one that again survives
 *     encode -> decode unchanged, and its id fits QD_RECORD_ID_MAX.
 */
#include "fuzz_util.h"
#include "usage_record.h"

#define MAGIC "qosdeny-usage/1"

static const char *const keys[] = {
    "cluster",	 "job",	  "node", "user", "account",	 "qos",
    "partition", "start", "end",  "gpus", "gpu_seconds",
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* Field i: a name (0), an optional name (1) or a number up to max (2). */
static int kind(size_t i)
{
	if (i == 1 || i >= 7)
		return 2;
	return i >= 4 && i <= 6; /* account, qos, partition */
}

static bool model_name(const char *s, size_t len, bool optional)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789._@+$-";

	if (len >= QD_NAME_MAX || (!len && !optional))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!s[i] || !strchr(ok, s[i]))
			return false;
	return true;
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

struct model {
	const char *name[NKEYS];
	size_t namelen[NKEYS];
	unsigned __int128 num[NKEYS];
};

/* The format read word by word, independently of the decoder's table. */
static bool model_decode(const char *d, size_t n, struct model *m)
{
	static const unsigned __int128 max[NKEYS] = {[1] = UINT32_MAX,
						     [7] = INT64_MAX,
						     [8] = INT64_MAX,
						     [9] = UINT32_MAX,
						     [10] = UINT64_MAX};
	const char *w = d, *end, *stop;
	size_t i;

	if (n < 1 || n > QD_RECORD_MAX || d[n - 1] != '\n')
		return false;
	end = d + n - 1;
	if (memchr(d, '\n', n - 1) || memchr(d, '\0', n))
		return false;
	stop = memchr(w, ' ', (size_t)(end - w));
	if (!stop || (size_t)(stop - w) != strlen(MAGIC) ||
	    memcmp(w, MAGIC, strlen(MAGIC)))
		return false;
	w = stop + 1;
	for (i = 0; i < NKEYS; i++, w = stop + 1) {
		size_t klen = strlen(keys[i]);
		const char *v;

		stop = memchr(w, ' ', (size_t)(end - w));
		if (!stop)
			stop = end;
		if ((stop == end) != (i + 1 == NKEYS))
			return false; /* too few or too many words */
		if ((size_t)(stop - w) <= klen || memcmp(w, keys[i], klen) ||
		    w[klen] != '=')
			return false;
		v = w + klen + 1;
		if (kind(i) == 2) {
			if (!model_number(v, (size_t)(stop - v), max[i],
					  &m->num[i]))
				return false;
		} else {
			if (!model_name(v, (size_t)(stop - v), kind(i)))
				return false;
			m->name[i] = v;
			m->namelen[i] = (size_t)(stop - v);
		}
	}
	/* job > 0, start > 0; open: no seconds; closed: end >= start and
	 * seconds = gpus * (end - start), which must fit in 64 bits. */
	if (!m->num[1] || !m->num[7])
		return false;
	if (!m->num[8])
		return !m->num[10];
	return m->num[8] >= m->num[7] &&
	       m->num[9] * (m->num[8] - m->num[7]) == m->num[10];
}

static void check_same(const struct model *m, const struct qd_usage_record *r)
{
	const char *names[NKEYS] = {
	    [0] = r->cluster, [2] = r->node, [3] = r->user,
	    [4] = r->account, [5] = r->qos,  [6] = r->partition};
	const unsigned __int128 nums[NKEYS] = {[1] = r->job_id,
					       [7] = (uint64_t)r->start,
					       [8] = (uint64_t)r->end,
					       [9] = r->gpus,
					       [10] = r->gpu_seconds};

	for (size_t i = 0; i < NKEYS; i++) {
		if (kind(i) == 2) {
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
		check_encodes_to(&r, text, size);
		check_close(r, (int64_t)(size * 1000003) - 500000);
		if (r.start < INT64_MAX - 3)
			check_close(r, r.start + (int64_t)(size % 7) - 3);
	}
	free(err);
	free(text);
	return 0;
}
