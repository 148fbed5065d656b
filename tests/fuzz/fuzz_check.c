/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_limits_merge, qd_check, the untyped-GPU widening (untyped_gpus.h) and
 * qd_verdict_format: the decision itself, on limits from the database and
 * qosdeny.conf, usage from the running jobs and the job's counted request,
 * any of which can hold extreme values (unlimited, saturated counts, 16 GPU
 * types).
 *
 * Input (binary, read front to back; a short input reads as zeros): the
 * rule (absent, flags, name), the database's three limit vectors, the
 * rule's three, the user's and everyone's usage, the request, the GPUs per
 * type of the job's partitions, then output buffer lengths and a last,
 * arbitrary verdict for the formatter.
 * A vector is a byte of which fixed TRES are set, their values, a type
 * count and (type, value) pairs; type names come from a small pool with
 * case variants, so that limits, usage and request name the same types.
 *
 * Checks, beyond the sanitizers:
 *   - the merge gives each TRES the rule's value where the rule sets it and
 *     the database's otherwise, and keeps as many types as fit;
 *   - the verdict is the one a plain reading of check.h gives: the first
 *     failing check in docs/how-it-decides.md's order, with the request, usage
 * and limit of the TRES it names, requested > 0, limit not unlimited and in_use
 * + requested > limit with the sum saturating; none at all when there is no
 * rule; a verdict that is not a denial is zeroed;
 *   - the fallback for a reach missing types raises exactly the capped
 *     types reach lacks to asked + untyped, and nothing else;
 *   - widening keeps every fixed TRES, raises each partition type to
 *     max(asked, min(asked + untyped, partition's)) and touches no other
 *     type; with no untyped GPU it changes nothing; the checks on the
 *     widened request again match the reference, and the verdict is marked
 *     untyped exactly when it names a type asked for less than it counts;
 *   - the message is exactly the documented line, cut to any buffer length
 *     and always terminated, and snprintf's length is returned; an arbitrary
 *     verdict formats without overrunning either.
 */
#include <strings.h>

#include "check.h"
#include "fuzz_util.h"
#include "untyped_gpus.h"

#define CAP (QD_UNLIMITED - 1)

static const char *const type_pool[] = {
    "a100",
    "A100",
    "v100",
    "h100",
    "t4",
    "l40s",
    "mi250",
    "x",
    "a",
    "b",
    "c",
    "d",
    "e",
    "f",
    "g",
    "h",
    "i",
    "j",
    "k",
    "a100x",
    "A.1_",
    "H100",
    "",
    "abcdefghijklmnopqrstuvwxyz01234", /* longest that fits */
    "abcdefghijklmnopqrstuvwxyz012345" /* one too long */
};
#define POOL (sizeof(type_pool) / sizeof(type_pool[0]))

static void read_tres(struct fuzz_in *in, struct qd_tres *t)
{
	uint8_t mask = fuzz_u8(in);
	size_t n;

	qd_tres_init(t);
	for (int id = 0; id < QD_TRES_FIXED; id++)
		if (mask & (1 << id))
			qd_tres_set(t, id, fuzz_u64(in));
	n = fuzz_u8(in) % 20;
	for (size_t i = 0; i < n; i++) {
		const char *type = type_pool[fuzz_u8(in) % POOL];

		/* Fails when full or too long, as for a real vector. */
		qd_tres_set_typed(t, type, fuzz_u64(in));
	}
	fuzz_check_typed(t);
}

static bool has_type(const struct qd_tres *t, const char *type)
{
	for (size_t i = 0; i < t->ntyped; i++)
		if (!strcasecmp(t->typed[i].type, type))
			return true;
	return false;
}

static uint64_t typed_or_0(const struct qd_tres *t, const char *type)
{
	for (size_t i = 0; i < t->ntyped; i++)
		if (!strcasecmp(t->typed[i].type, type))
			return t->typed[i].value;
	return 0;
}

static void check_merge_one(const struct qd_tres *m, const struct qd_tres *db,
			    const struct qd_tres *rule)
{
	size_t all = rule ? rule->ntyped : 0;

	fuzz_check_typed(m);
	for (int id = 0; id < QD_TRES_FIXED; id++) {
		const struct qd_tres *src = rule && rule->set[id] ? rule : db;

		FUZZ_ASSERT(m->set[id] == src->set[id], "merged set[%d]", id);
		FUZZ_ASSERT(!m->set[id] || m->v[id] == src->v[id],
			    "merged v[%d]", id);
	}
	for (size_t i = 0; rule && i < rule->ntyped; i++)
		FUZZ_ASSERT(has_type(m, rule->typed[i].type) &&
				typed_or_0(m, rule->typed[i].type) ==
				    rule->typed[i].value,
			    "rule's %s lost", rule->typed[i].type);
	for (size_t i = 0; i < db->ntyped; i++) {
		const char *ty = db->typed[i].type;

		if (rule && has_type(rule, ty))
			continue;
		all++;
		FUZZ_ASSERT(!has_type(m, ty) ||
				typed_or_0(m, ty) == db->typed[i].value,
			    "database's %s changed", ty);
	}
	FUZZ_ASSERT(m->ntyped == (all < QD_TYPES_MAX ? all : QD_TYPES_MAX),
		    "%zu of %zu types kept", m->ntyped, all);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > CAP - b || b > CAP ? CAP : a + b;
}

static bool ref_over(uint64_t lim, uint64_t req, uint64_t used)
{
	return lim != QD_UNLIMITED && req && sat_add(used, req) > lim;
}

/* One fixed TRES against one limit, into *v; true when it fails. */
static bool ref_fixed(const struct qd_tres *l, const struct qd_tres *u,
		      uint64_t shared_nodes, const struct qd_tres *req,
		      enum qd_tres_id id, struct qd_verdict *v)
{
	uint64_t counted;

	v->requested = req->set[id] ? req->v[id] : 0;
	v->in_use = u && u->set[id] ? u->v[id] : 0;
	v->limit = l->v[id];
	v->is_mem = id == QD_TRES_MEM;
	snprintf(v->tres, sizeof(v->tres), "%s", qd_tres_name(id));
	counted = v->requested;
	if (id == QD_TRES_NODE)
		counted = counted > shared_nodes ? counted - shared_nodes : 0;
	return l->set[id] && ref_over(v->limit, counted, v->in_use);
}

/* check.h read plainly: flags in order; cpu, mem, node, gres/gpu, the
 * limit's GPU types, gres/shard, gres/mps; a node the QoS's (or the
 * user's) running jobs hold that the job could be given is counted once,
 * so the job's nodes add that many fewer. */
static bool reference(const struct qd_qos_rule *rule,
		      const struct qd_limits *lim, const struct qd_usage *used,
		      const struct qd_tres *req, struct qd_verdict *v)
{
	static const enum qd_tres_id before[] = {QD_TRES_CPU, QD_TRES_MEM,
						 QD_TRES_NODE, QD_TRES_GPU};
	static const enum qd_tres_id after[] = {QD_TRES_SHARD, QD_TRES_MPS};
	const struct {
		enum qd_flag flag;
		const struct qd_tres *limit, *used;
		uint64_t shared_nodes;
	} order[] = {
	    {QD_DENY_ON_MAX_PER_JOB, &lim->max_per_job, NULL, 0},
	    {QD_DENY_ON_MAX_PER_USER, &lim->max_per_user, &used->user,
	     used->user_nodes_shared},
	    {QD_DENY_ON_GRP, &lim->grp, &used->all, used->all_nodes_shared},
	};

	memset(v, 0, sizeof(*v));
	if (!rule)
		return false;
	for (size_t k = 0; k < 3; k++) {
		const struct qd_tres *l = order[k].limit, *u = order[k].used;

		if (!(rule->flags & order[k].flag))
			continue;
		v->flag = order[k].flag;
		snprintf(v->qos, sizeof(v->qos), "%s", rule->name);
		for (size_t i = 0; i < sizeof(before) / sizeof(before[0]); i++)
			if (ref_fixed(l, u, order[k].shared_nodes, req,
				      before[i], v))
				return v->denied = true;
		for (size_t i = 0; i < l->ntyped; i++) {
			const char *ty = l->typed[i].type;

			v->requested = typed_or_0(req, ty);
			v->in_use = u ? typed_or_0(u, ty) : 0;
			v->limit = l->typed[i].value;
			v->is_mem = false;
			snprintf(v->tres, sizeof(v->tres), "gres/gpu:%s", ty);
			if (ref_over(v->limit, v->requested, v->in_use))
				return v->denied = true;
		}
		for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++)
			if (ref_fixed(l, u, order[k].shared_nodes, req,
				      after[i], v))
				return v->denied = true;
	}
	memset(v, 0, sizeof(*v));
	return false;
}

static void check_verdict(const struct qd_verdict *got,
			  const struct qd_verdict *want)
{
	FUZZ_ASSERT(got->denied == want->denied, "denied %d, expected %d",
		    got->denied, want->denied);
	FUZZ_ASSERT(got->flag == want->flag, "flag %d, expected %d", got->flag,
		    want->flag);
	FUZZ_ASSERT(!strcmp(got->tres, want->tres), "tres '%s', expected '%s'",
		    got->tres, want->tres);
	FUZZ_ASSERT(!strcmp(got->qos, want->qos), "qos '%s', expected '%s'",
		    got->qos, want->qos);
	FUZZ_ASSERT(
	    got->requested == want->requested && got->in_use == want->in_use &&
		got->limit == want->limit && got->is_mem == want->is_mem,
	    "%s: %" PRIu64 "+%" PRIu64 "/%" PRIu64 ", expected %" PRIu64
	    "+%" PRIu64 "/%" PRIu64,
	    got->tres, got->requested, got->in_use, got->limit, want->requested,
	    want->in_use, want->limit);
	if (got->denied) {
		FUZZ_ASSERT(got->requested > 0 && got->limit != QD_UNLIMITED &&
				sat_add(got->in_use, got->requested) >
				    got->limit,
			    "denial within the limit");
		FUZZ_ASSERT(got->flag != QD_DENY_ON_MAX_PER_JOB ||
				got->in_use == 0,
			    "usage on a per-job denial");
	}
}

static void value(const struct qd_verdict *v, uint64_t x, char *buf)
{
	if (x == QD_UNLIMITED)
		strcpy(buf, "unlimited");
	else
		sprintf(buf, "%" PRIu64 "%s", x, v->is_mem ? "M" : "");
}

/* check.h's line, built here from its description. */
static int expected_line(const struct qd_verdict *v, char *buf, size_t len)
{
	static const char *const limit_names[] = {"MaxTRESPerJob",
						  "MaxTRESPerUser", "GrpTRES"};
	char req[32], used[32], lim[32];
	int k = v->flag == QD_DENY_ON_MAX_PER_JOB    ? 0
		: v->flag == QD_DENY_ON_MAX_PER_USER ? 1
		: v->flag == QD_DENY_ON_GRP	     ? 2
						     : -1;

	const char *note = v->untyped ? " (untyped GPUs count toward every GPU "
					"type the job's partitions have)"
				      : "";

	if (!v->denied)
		return snprintf(buf, len, "%s", "");
	value(v, v->requested, req);
	value(v, v->in_use, used);
	value(v, v->limit, lim);
	if (k == 0)
		return snprintf(buf, len,
				"qosdeny: %s: QOS %s: %s requested %s, %s "
				"limit %s%s",
				qd_flag_name(v->flag), v->qos, v->tres, req,
				limit_names[k], lim, note);
	return snprintf(buf, len,
			"qosdeny: %s: QOS %s: %s requested %s, in use %s, %s "
			"limit %s%s",
			qd_flag_name(v->flag), v->qos, v->tres, req, used,
			k < 0 ? "unknown" : limit_names[k], lim, note);
}

static void check_format(const struct qd_verdict *v, size_t len)
{
	char want[512];
	char *buf = len ? malloc(len) : NULL;
	int wn = expected_line(v, want, sizeof(want));
	int n = qd_verdict_format(v, buf, len);

	FUZZ_ASSERT(wn >= 0 && (size_t)wn < sizeof(want), "line too long");
	FUZZ_ASSERT(n == wn, "returned %d, expected %d", n, wn);
	if (len) {
		size_t keep = (size_t)wn < len ? (size_t)wn : len - 1;

		FUZZ_ASSERT(!memcmp(buf, want, keep) && buf[keep] == '\0',
			    "'%.*s' instead of '%.*s'", (int)keep, buf,
			    (int)keep, want);
	}
	if (v->denied)
		FUZZ_ASSERT(strlen(qd_flag_name(v->flag)) > 0, "no flag name");
	free(buf);
}

static uint64_t untyped_of(const struct qd_tres *r)
{
	uint64_t all = r->set[QD_TRES_GPU] ? r->v[QD_TRES_GPU] : 0, typed = 0;

	for (size_t i = 0; i < r->ntyped; i++)
		typed = sat_add(typed, r->typed[i].value);
	return all > typed ? all - typed : 0;
}

static bool same_fixed(const struct qd_tres *a, const struct qd_tres *b)
{
	return !memcmp(a->set, b->set, sizeof(a->set)) &&
	       !memcmp(a->v, b->v, sizeof(a->v));
}

/* Widening only adds: every type of from is still in to. */
static void assert_types_kept(const struct qd_tres *from,
			      const struct qd_tres *to)
{
	for (size_t i = 0; i < from->ntyped; i++)
		FUZZ_ASSERT(has_type(to, from->typed[i].type), "%s lost",
			    from->typed[i].type);
}

static void check_widening(const struct qd_tres *w, const struct qd_tres *r,
			   const struct qd_tres *reach)
{
	uint64_t untyped = untyped_of(r);

	fuzz_check_typed(w);
	FUZZ_ASSERT(untyped == qd_untyped_gpus(r), "untyped %" PRIu64, untyped);
	if (!untyped) {
		FUZZ_ASSERT(!memcmp(w, r, sizeof(*w)), "changed, none untyped");
		return;
	}
	FUZZ_ASSERT(same_fixed(w, r), "a fixed TRES changed");
	for (size_t i = 0; i < w->ntyped; i++) {
		const char *ty = w->typed[i].type;
		uint64_t asked = typed_or_0(r, ty), want = asked;

		FUZZ_ASSERT(has_type(r, ty) || has_type(reach, ty),
			    "%s came from nowhere", ty);
		if (has_type(reach, ty)) {
			uint64_t could = sat_add(asked, untyped);
			uint64_t there = typed_or_0(reach, ty);

			if (could > there)
				could = there;
			if (could > want)
				want = could;
		}
		FUZZ_ASSERT(w->typed[i].value == want,
			    "%s: %" PRIu64 ", expected %" PRIu64, ty,
			    w->typed[i].value, want);
	}
	assert_types_kept(r, w);
	for (size_t i = 0; i < reach->ntyped; i++)
		FUZZ_ASSERT(has_type(w, reach->typed[i].type) ||
				w->ntyped == QD_TYPES_MAX ||
				!reach->typed[i].value,
			    "%s not widened", reach->typed[i].type);
}

/* The fallback for a reach that could not keep every type. */
static void check_unbounded(const struct qd_tres *w2, const struct qd_tres *w,
			    const struct qd_tres *r,
			    const struct qd_tres *reach,
			    const struct qd_tres *caps)
{
	uint64_t untyped = untyped_of(r);

	fuzz_check_typed(w2);
	FUZZ_ASSERT(same_fixed(w2, w), "a fixed TRES changed");
	for (size_t i = 0; i < w2->ntyped; i++) {
		const char *ty = w2->typed[i].type;
		uint64_t want = typed_or_0(w, ty);

		FUZZ_ASSERT(has_type(w, ty) || has_type(caps, ty),
			    "%s came from nowhere", ty);
		if (untyped && has_type(caps, ty) && !has_type(reach, ty) &&
		    sat_add(typed_or_0(r, ty), untyped) > want)
			want = sat_add(typed_or_0(r, ty), untyped);
		FUZZ_ASSERT(w2->typed[i].value == want,
			    "%s: %" PRIu64 ", expected %" PRIu64, ty,
			    w2->typed[i].value, want);
	}
	assert_types_kept(w, w2);
}

/* Any bit pattern, but with its strings terminated, as a caller's are. */
static void read_raw_verdict(struct fuzz_in *in, struct qd_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->denied = fuzz_u8(in) & 1;
	v->flag = (enum qd_flag)(fuzz_u8(in) % 9);
	v->is_mem = fuzz_u8(in) & 1;
	v->untyped = fuzz_u8(in) & 1;
	v->requested = fuzz_u64(in);
	v->in_use = fuzz_u64(in);
	v->limit = fuzz_u64(in);
	for (size_t i = 0; i < sizeof(v->qos) - 1 && in->n; i++)
		if (!(v->qos[i] = (char)fuzz_u8(in)))
			break;
	for (size_t i = 0; i < sizeof(v->tres) - 1 && in->n; i++)
		if (!(v->tres[i] = (char)fuzz_u8(in)))
			break;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	struct qd_qos_rule rule = {0};
	struct qd_limits db, lim;
	struct qd_usage used;
	struct qd_tres req, reach, wide, wide2;
	struct qd_verdict v, want, raw;
	uint8_t rb = fuzz_u8(&in);
	const struct qd_qos_rule *rp = rb & 0x80 ? NULL : &rule;
	size_t name_len = fuzz_u8(&in) % QD_NAME_MAX;
	bool denied;

	/* Unknown flag bits must be ignored. */
	rule.flags = rb & 0x7f;
	for (size_t i = 0; i < name_len; i++) {
		uint8_t c = fuzz_u8(&in);

		rule.name[i] = c ? (char)c : '_'; /* a name has no NUL inside */
	}
	read_tres(&in, &db.max_per_job);
	read_tres(&in, &db.max_per_user);
	read_tres(&in, &db.grp);
	read_tres(&in, &rule.max_per_job);
	read_tres(&in, &rule.max_per_user);
	read_tres(&in, &rule.grp);
	read_tres(&in, &used.user);
	read_tres(&in, &used.all);
	used.user_nodes_shared = fuzz_u8(&in) % 8;
	used.all_nodes_shared = fuzz_u8(&in) % 8;
	read_tres(&in, &req);
	read_tres(&in, &reach);

	qd_limits_merge(&lim, &db, rp);
	check_merge_one(&lim.max_per_job, &db.max_per_job,
			rp ? &rule.max_per_job : NULL);
	check_merge_one(&lim.max_per_user, &db.max_per_user,
			rp ? &rule.max_per_user : NULL);
	check_merge_one(&lim.grp, &db.grp, rp ? &rule.grp : NULL);

	memset(&v, 0xa5, sizeof(v)); /* must be filled by the call */
	denied = qd_check(rp, &lim, &used, &req, &v);
	FUZZ_ASSERT(denied == v.denied, "returned %d, verdict %d", denied,
		    v.denied);
	reference(rp, &lim, &used, &req, &want);
	check_verdict(&v, &want);
	check_format(&v, fuzz_u8(&in) % 200);

	wide = req;
	qd_count_untyped_gpus(&wide, &reach);
	check_widening(&wide, &req, &reach);
	wide2 = wide;
	qd_count_untyped_gpus_unbounded(&wide2, &req, &reach, &lim.max_per_job);
	check_unbounded(&wide2, &wide, &req, &reach, &lim.max_per_job);
	qd_check(rp, &lim, &used, &wide, &v);
	reference(rp, &lim, &used, &wide, &want);
	check_verdict(&v, &want);
	qd_verdict_note_untyped(&v, &req);
	FUZZ_ASSERT(v.untyped ==
			(v.denied && !strncmp(v.tres, "gres/gpu:", 9) &&
			 typed_or_0(&req, v.tres + 9) < v.requested),
		    "untyped note %d on %s", v.untyped, v.tres);
	check_format(&v, fuzz_u8(&in) % 200);

	read_raw_verdict(&in, &raw);
	check_format(&raw, fuzz_u8(&in) % 200);
	return 0;
}
