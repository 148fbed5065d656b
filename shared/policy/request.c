/* SPDX-License-Identifier: GPL-2.0-or-later
 * A job's TRES request as slurmctld counts it at submission, before
 * acct_policy_validate: 22.05's logic, with the changes later releases made
 * where req->slurm_release says they apply (the R_* constants below). The steps
 * follow slurmctld's own order, because later steps read what earlier ones
 * defaulted or derived:
 *
 *   validate_job_create_req (after the job_submit plugins): num_tasks from
 *     --ntasks-per-node, min_cpus raised to num_tasks x cpus_per_task;
 *   _job_create: _valid_job_part's node count, _validate_job_desc's
 *     defaults, then cpu = min_cpus and node = min_nodes;
 *   gres_job_state_validate: one record per GRES and type with its total,
 *     the consistency checks of _test_gres_cnt (which may move min_nodes,
 *     num_tasks, sockets_per_node) and the typed/untyped merge;
 *   gres_ctld_set_job_tres_cnt: gres/gpu, gres/gpu:<type>, gres/shard and
 *     gres/mps from the totals;
 *   job_get_tres_mem: mem.
 *
 * docs/counting.md has the file:function references. The GRES modelled are
 * gpu and the two that share a GPU, shard and mps: other GRES never change
 * those counts with the strings Slurm's clients build. Where Slurm's own
 * integer arithmetic would wrap on absurd values, the counts here saturate
 * instead, so they never come out lower.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "errmsg.h"
#include "request.h"

#define CAP QD_COUNT_MAX

/* The releases that changed what is counted here. */
#define R_2205 QD_SLURM_RELEASE(22, 5)
#define R_2302 QD_SLURM_RELEASE(23, 2)	/* -n over --gpus, shares per task */
#define R_2311 QD_SLURM_RELEASE(23, 11) /* "gres/" request strings */
#define R_2405 QD_SLURM_RELEASE(24, 5)	/* per-job GPUs, CPUs per GPU */
#define R_2505 QD_SLURM_RELEASE(25, 5)	/* DefMemPerGPU at submission */
#define R_2511 QD_SLURM_RELEASE(25, 11) /* min_cpus >= tasks x -c, -O too */

/* More GRES records than this in one job means more distinct GPU types than
 * any partition has: slurmctld rejects such a job when it tests it against
 * the node configuration (ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE). */
#define GRES_REC_MAX 64

/* Slurm's NO_VAL: gres_find_job_by_key takes a type id equal to it as "any
 * type", so a type name hashing to it joins the first GPU record. */
#define TYPE_ID_ANY 0xfffffffeu

enum field { F_CPUS, F_JOB, F_NODE, F_SOCKET, F_TASK, F_MEM };

/* The GRES counted: gpu "shares" its GPUs, shard and mps are "shared"
 * (gres_id_sharing, gres_id_shared), and one job may not hold both kinds. */
enum gres_kind { K_GPU, K_SHARD, K_MPS };

/* One gres_job_state_t: a GRES and type (or no type) and what was asked of
 * it. */
struct gres_rec {
	enum gres_kind kind;
	uint32_t type_id;
	const char *type; /* into the request string; NULL: untyped */
	size_t type_len;
	uint64_t per_job, per_node, per_socket, per_task, mem_per_gres;
	uint64_t cpus_per_gres;
	uint64_t total;
	bool merged; /* an untyped record folded into the typed ones */
};

/* The job_desc fields slurmctld reads and rewrites while validating; 0 is
 * NO_VAL, as in struct qd_job_request. */
struct job {
	uint64_t min_nodes, max_nodes, num_tasks, cpus_per_task;
	uint64_t ntasks_per_node, ntasks_per_socket, sockets_per_node;
	uint64_t ntasks_per_tres;
	uint64_t cpus;
	uint64_t max_cpus_per_gres; /* job_validate's cpus_per_gres */
	unsigned release;
	bool requested_gpu;
	size_t nrec;
	struct gres_rec rec[GRES_REC_MAX];
};

/* "gres:NAME[:TYPE][:COUNT]", split as Slurm's _get_next_gres splits it. */
struct item {
	const char *text; /* the whole item, for messages */
	size_t text_len;
	enum gres_kind kind; /* from name */
	const char *name;
	size_t name_len;
	const char *type;
	size_t type_len;
	uint64_t cnt;
};

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	if (a && b > CAP / a)
		return CAP;
	return a * b;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Slurm's suffix_mult: a count may end in k/kib/kb ... p/pib/pb. */
static uint64_t suffix_mult(const char *s, size_t len)
{
	static const struct {
		const char *sfx;
		uint64_t base, power;
	} tab[] = {
	    {"k", 1024, 1}, {"kib", 1024, 1}, {"kb", 1000, 1},
	    {"m", 1024, 2}, {"mib", 1024, 2}, {"mb", 1000, 2},
	    {"g", 1024, 3}, {"gib", 1024, 3}, {"gb", 1000, 3},
	    {"t", 1024, 4}, {"tib", 1024, 4}, {"tb", 1000, 4},
	    {"p", 1024, 5}, {"pib", 1024, 5}, {"pb", 1000, 5},
	};

	if (len == 0)
		return 1;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		uint64_t m = 1;

		if (strlen(tab[i].sfx) != len ||
		    strncasecmp(s, tab[i].sfx, len))
			continue;
		for (uint64_t p = 0; p < tab[i].power; p++)
			m *= tab[i].base;
		return m;
	}
	return 0;
}

/*
 * Slurm's _is_valid_number on s..end: strtoull's syntax (blanks, a sign,
 * digits), then a suffix. strtoull cannot run past end, which is a ',' or
 * the string's end. The product wraps as Slurm's does, so the count is the
 * one slurmctld will schedule with.
 */
static bool valid_number(const char *s, const char *end, uint64_t *out)
{
	char *e;
	unsigned long long v = strtoull(s, &e, 10);
	uint64_t mult;

	if (v == ULLONG_MAX)
		return false;
	mult = suffix_mult(e, (size_t)(end - e));
	if (!mult)
		return false;
	/* v < ULLONG_MAX, and with a suffix the product is even: either way
	 * it stays <= CAP, wrapped or not. */
	*out = v * mult;
	return true;
}

/*
 * The next item of a request string at *pos. Returns 1 with *it filled, 0 at
 * the end, -1 when the item is malformed (slurmctld rejects the job with
 * ESLURM_INVALID_GRES). Like Slurm 22.05, looks for "gres:" anywhere ahead
 * (so items without it are skipped), takes the text up to the next ',' and
 * drops items whose count is 0.
 */
static int next_item_colon(const char **pos, struct item *it)
{
	for (;;) {
		const char *p = *pos, *g, *end, *c1, *c2, *sep;

		if (!p || !*p || !(g = strstr(p, "gres:")))
			return 0;
		it->text = g;
		it->name = g + 5;
		end = it->name + strcspn(it->name, ",");
		it->text_len = (size_t)(end - g);
		*pos = *end ? end + 1 : end;
		if (end == it->name)
			continue;
		it->type = NULL;
		it->type_len = 0;
		it->cnt = 1;
		c1 = memchr(it->name, ':', (size_t)(end - it->name));
		it->name_len = (size_t)((c1 ? c1 : end) - it->name);
		if (c1) {
			sep = c1 + 1;
			c2 = memchr(sep, ':', (size_t)(end - sep));
			if (c2) {
				if (c2 == sep || c2 + 1 == end ||
				    !valid_number(c2 + 1, end, &it->cnt))
					return -1;
				it->type = sep;
				it->type_len = (size_t)(c2 - sep);
			} else if (sep == end) {
				return -1;
			} else if (!valid_number(sep, end, &it->cnt)) {
				it->type = sep;
				it->type_len = (size_t)(end - sep);
				it->cnt = 1;
			}
		}
		if (it->cnt)
			return 1;
	}
}

/* Slurm 23.11's _is_valid_number: a digit first, then strtoull and a
 * suffix. */
static bool valid_number_slash(const char *s, const char *end, uint64_t *out)
{
	return s < end && *s >= '0' && *s <= '9' && valid_number(s, end, out);
}

/* The last c in s..end, or NULL. */
static const char *last_of(const char *s, const char *end, char c)
{
	while (end > s)
		if (*--end == c)
			return end;
	return NULL;
}

/*
 * The same for Slurm 23.11 and later (slurm_get_next_tres with the TRES
 * type "gres"): the next "gres" ahead and an optional '/', the text up to
 * the next ','. Its last '=' part, else its last ':' part, is the count
 * when it is a number (a '=' part must be one), else the type; what is
 * before it is NAME or NAME:TYPE. Items whose count is 0 are dropped. An
 * item with no name ("gres/2", or "gres:gpu:2" in the old syntax) ends
 * Slurm's GRES parse, and assoc_mgr_valid_tres_cnt then rejects the job.
 */
static int next_item_slash(const char **pos, struct item *it)
{
	for (;;) {
		const char *p = *pos, *g, *end, *last, *name_end, *c;

		if (!p || !*p || !(g = strstr(p, "gres")))
			return 0;
		it->text = g;
		p = g + 4;
		if (*p == '/')
			p++;
		end = p + strcspn(p, ",");
		it->text_len = (size_t)(end - g);
		*pos = *end ? end + 1 : end;
		if (end == p)
			continue;
		it->type = NULL;
		it->type_len = 0;
		it->cnt = 1;
		name_end = end;
		if ((last = last_of(p, end, '=')) ||
		    (last = last_of(p, end, ':'))) {
			if (last + 1 == end)
				return -1;
			if (!valid_number_slash(last + 1, end, &it->cnt)) {
				if (*last == '=')
					return -1;
				it->type = last + 1;
				it->type_len = (size_t)(end - last - 1);
			}
			name_end = last;
		} else if (valid_number_slash(p, end, &it->cnt)) {
			return -1;
		}
		if ((c = memchr(p, ':', (size_t)(name_end - p)))) {
			if (it->type)
				return -1;
			it->type = c + 1;
			it->type_len = (size_t)(name_end - c - 1);
			name_end = c;
		}
		if (name_end == p)
			return -1;
		it->name = p;
		it->name_len = (size_t)(name_end - p);
		if (it->cnt)
			return 1;
	}
}

static int next_item(unsigned release, const char **pos, struct item *it)
{
	return release >= R_2311 ? next_item_slash(pos, it)
				 : next_item_colon(pos, it);
}

/* Slurm's gres_build_id: GRES records are told apart by this hash of the
 * type name, case-sensitive; plain char, signed or not as Slurm's build. */
static uint32_t type_id(const char *type, size_t len)
{
	uint32_t id = 0;
	unsigned shift = 0;

	for (size_t i = 0; i < len; i++) {
		id += (uint32_t)(int)type[i] << shift;
		shift = (shift + 8) % 32;
	}
	return id;
}

/* _get_next_job_gres: the record for the item's GRES and type, made on
 * first use. */
static struct gres_rec *find_rec(struct job *j, const struct item *it)
{
	uint32_t id = it->type ? type_id(it->type, it->type_len) : 0;
	struct gres_rec *r;

	for (size_t i = 0; i < j->nrec; i++)
		if (j->rec[i].kind == it->kind &&
		    (id == TYPE_ID_ANY || j->rec[i].type_id == id))
			return &j->rec[i];
	if (j->nrec == GRES_REC_MAX)
		return NULL;
	r = &j->rec[j->nrec++];
	memset(r, 0, sizeof(*r));
	r->kind = it->kind;
	r->type_id = id;
	r->type = it->type;
	r->type_len = it->type_len;
	return r;
}

/* Records one item of one request string, as gres_job_state_validate's
 * per-string loops do; total_gres keeps the largest reading. */
static void apply(struct job *j, struct gres_rec *r, enum field f, uint64_t cnt)
{
	uint64_t c = cnt;

	switch (f) {
	case F_CPUS:
		/* --cpus-per-gpu: checked against the tasks' -c, and from
		 * 24.05 it raises the job's CPU count (count_gres). */
		r->cpus_per_gres = cnt;
		j->max_cpus_per_gres = max64(j->max_cpus_per_gres, cnt);
		return;
	case F_JOB:
		r->per_job = cnt;
		break;
	case F_NODE:
		r->per_node = cnt;
		c = sat_mul(cnt, j->min_nodes);
		break;
	case F_SOCKET:
		r->per_socket = cnt;
		if (j->sockets_per_node)
			c = sat_mul(cnt,
				    sat_mul(j->min_nodes, j->sockets_per_node));
		else if (j->num_tasks && j->ntasks_per_socket)
			c = sat_mul(
			    cnt, (j->num_tasks - 1) / j->ntasks_per_socket + 1);
		break;
	case F_TASK:
		r->per_task = cnt;
		if (j->num_tasks)
			c = sat_mul(cnt, j->num_tasks);
		break;
	case F_MEM:
		r->mem_per_gres = cnt;
		return;
	}
	r->total = max64(r->total, c);
	if (r->kind == K_GPU)
		j->requested_gpu = true;
}

/* The GRES an item names, as slurmctld's configured names compare
 * (case-sensitively); false for one not modelled. */
static bool kind_of(struct item *it)
{
	static const struct {
		const char *name;
		enum gres_kind kind;
	} known[] = {{"gpu", K_GPU}, {"shard", K_SHARD}, {"mps", K_MPS}};

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (it->name_len == strlen(known[i].name) &&
		    !memcmp(it->name, known[i].name, it->name_len)) {
			it->kind = known[i].kind;
			return true;
		}
	return false;
}

static int parse_string(struct job *j, const char *s, enum field f, char *err,
			size_t errlen)
{
	struct item it;
	int rc;

	while ((rc = next_item(j->release, &s, &it)) > 0) {
		struct gres_rec *r;

		if (!kind_of(&it))
			continue;
		if (!(r = find_rec(j, &it))) {
			qd_errf(err, errlen,
				"more than %d GRES types requested",
				GRES_REC_MAX);
			return -1;
		}
		apply(j, r, f, it.cnt);
	}
	if (rc < 0)
		qd_errf(err, errlen, "invalid GRES request '%.*s'",
			(int)(it.text_len > 64 ? 64 : it.text_len), it.text);
	return rc;
}

/* --ntasks-per-gpu: sets the task count from the GPUs, or asks for one GPU
 * per that many tasks when no GPU was requested. */
static int ntasks_per_gpu(struct job *j, char *err, size_t errlen)
{
	uint64_t gpus = 0;

	if (!j->ntasks_per_tres)
		return 0;
	if (j->requested_gpu) {
		for (size_t i = 0; i < j->nrec; i++)
			if (j->rec[i].kind == K_GPU)
				gpus = qd_sat_add(gpus, j->rec[i].total);
		j->num_tasks = sat_mul(gpus, j->ntasks_per_tres);
		return 0;
	}
	if (!j->num_tasks) {
		qd_errf(err, errlen,
			"--ntasks-per-gpu without GPUs or a task count");
		return -1;
	}
	gpus = j->num_tasks / j->ntasks_per_tres;
	if (gpus) {
		struct item it = {.cnt = gpus, .kind = K_GPU};
		struct gres_rec *r = find_rec(j, &it);

		if (!r) {
			qd_errf(err, errlen,
				"more than %d GRES types requested",
				GRES_REC_MAX);
			return -1;
		}
		r->per_job = gpus;
		r->total = max64(r->total, gpus);
	}
	j->requested_gpu = j->nrec > 0;
	return 0;
}

/* Replaces a field slurmctld derives, or fails when it was given otherwise. */
static bool derive(uint64_t *field, uint64_t value)
{
	if (!*field)
		*field = value;
	return *field == value;
}

/* _test_gres_cnt, running in slurmctld: false when it rejects the job. */
static bool test_gres_cnt(struct job *j, struct gres_rec *r)
{
	uint64_t pj = r->per_job, pn = r->per_node, ps = r->per_socket,
		 pt = r->per_task;

	if (pj && ((pn > pj) || (pt > pj) || (ps > pj)))
		return false;
	if (pn && ((pt > pn) || (ps > pn)))
		return false;
	if (ps && !j->sockets_per_node)
		return false;
	if (pj && pn) {
		uint64_t nodes = pj / pn;

		if (pj % pn || nodes < j->min_nodes ||
		    (j->max_nodes && nodes > j->max_nodes))
			return false;
		j->min_nodes = j->max_nodes = nodes;
	}
	if (pn && ps && (pn % ps || j->sockets_per_node != pn / ps))
		return false;
	if (j->ntasks_per_tres && j->num_tasks &&
	    j->num_tasks % j->ntasks_per_tres)
		return false;
	if (pt) {
		if (pj && j->release >= R_2302) {
			/* From 23.02 a task count given wins: the job gets
			 * tasks x per-task GPUs (eb24a9b087). */
			if (pj % pt)
				return false;
			if (!j->num_tasks)
				j->num_tasks = pj / pt;
			else if (j->num_tasks != pj / pt)
				r->per_job = r->total = pj =
				    sat_mul(j->num_tasks, pt);
		} else if (pj) {
			if (pj % pt || !derive(&j->num_tasks, pj / pt))
				return false;
		} else if (j->num_tasks) {
			r->per_job = pj = sat_mul(j->num_tasks, pt);
		} else {
			return false;
		}
	}
	if (pn && pt && (pn % pt || !derive(&j->ntasks_per_node, pn / pt)))
		return false;
	if (ps && pt && (ps % pt || !derive(&j->ntasks_per_socket, ps / pt)))
		return false;
	if (r->cpus_per_gres && pt &&
	    !derive(&j->cpus_per_task, sat_mul(r->cpus_per_gres, pt)))
		return false;
	if (pj) {
		if (pj < j->min_nodes)
			return false;
		if (j->max_nodes && pj < j->max_nodes)
			j->max_nodes = pj;
	}
	return true;
}

/*
 * "gpu:2,gpu:a100:1" asks twice for the same GPUs: slurmctld rejects it
 * (ESLURM_INVALID_GRES_TYPE) unless the untyped record only carries
 * --mem-per-gpu/--cpus-per-gpu, which then go to every typed record of the
 * same GRES.
 */
static bool merge_untyped(struct job *j, enum gres_kind kind, size_t n)
{
	struct gres_rec *untyped = NULL;
	bool typed = false;

	for (size_t i = 0; i < n; i++) {
		if (j->rec[i].kind != kind)
			continue;
		if (j->rec[i].type)
			typed = true;
		else
			untyped = &j->rec[i];
	}
	if (!untyped || !typed)
		return true;
	if (untyped->per_job || untyped->per_node || untyped->per_socket ||
	    untyped->per_task)
		return false;
	for (size_t i = 0; i < n; i++)
		if (j->rec[i].kind == kind && j->rec[i].type &&
		    !j->rec[i].mem_per_gres)
			j->rec[i].mem_per_gres = untyped->mem_per_gres;
	untyped->merged = true;
	return true;
}

/*
 * gres_job_state_validate's checks on the GPU-sharing GRES: a job may hold
 * whole GPUs or shares of them, not both; before 23.02 a share is asked
 * for per node only (per job on one node, per socket on one socket, per
 * task for one task). NULL, or why not.
 */
static const char *shares_invalid(const struct job *j, const struct gres_rec *r,
				  bool *sharing, bool *shared)
{
	if (r->kind == K_GPU) {
		*sharing = true;
	} else {
		*shared = true;
		if (j->release < R_2302 &&
		    ((r->per_job && j->max_nodes != 1) ||
		     (r->per_socket && j->sockets_per_node != 1) ||
		     (r->per_task && j->num_tasks != 1)))
			return "a GPU share asked for other than per node";
	}
	return *sharing && *shared ? "whole GPUs and GPU shares in one job"
				   : NULL;
}

/* Whether record i's GRES has typed and untyped records among 0..i
 * (gres_job_state_validate's overlap_merge, _set_over_list). */
static bool mixed_types(const struct job *j, size_t i)
{
	bool typed = false, untyped = false;

	for (size_t k = 0; k <= i; k++)
		if (j->rec[k].kind == j->rec[i].kind) {
			typed |= j->rec[k].type != NULL;
			untyped |= !j->rec[k].type;
		}
	return typed && untyped;
}

static int count_gres(struct job *j, const struct qd_job_request *req,
		      char *err, size_t errlen)
{
	uint64_t cpus_for_gpus = 0;
	bool sharing = false, shared = false, overlap = false;
	size_t tested;
	const char *str[] = {
	    [F_CPUS] = req->cpus_per_tres, [F_JOB] = req->tres_per_job,
	    [F_NODE] = req->tres_per_node, [F_SOCKET] = req->tres_per_socket,
	    [F_TASK] = req->tres_per_task, [F_MEM] = req->mem_per_tres,
	};

	/* The task count a per-task request implies on a fixed node count. */
	if ((req->tres_per_task || j->ntasks_per_tres) && !j->num_tasks &&
	    j->min_nodes == j->max_nodes) {
		if (j->ntasks_per_tres)
			j->num_tasks =
			    sat_mul(j->min_nodes, j->ntasks_per_tres);
		else if (j->ntasks_per_node)
			j->num_tasks =
			    sat_mul(j->min_nodes, j->ntasks_per_node);
		else if (!j->cpus_per_task)
			j->num_tasks = j->min_nodes;
	}
	for (int f = F_CPUS; f <= F_MEM; f++)
		if (parse_string(j, str[f], f, err, errlen))
			return -1;
	if (ntasks_per_gpu(j, err, errlen))
		return -1;
	if (!j->nrec)
		return 0;
	if (req->mem_per_tres && !j->requested_gpu) {
		qd_errf(err, errlen, "--mem-per-gpu without a GPU request");
		return -1;
	}
	tested = j->nrec;
	for (size_t i = 0; i < j->nrec; i++) {
		const char *why =
		    !test_gres_cnt(j, &j->rec[i])
			? "GRES request inconsistent with the job's nodes, "
			  "tasks or sockets"
			: shares_invalid(j, &j->rec[i], &sharing, &shared);

		if (why) {
			/* slurmctld replaces its error with the merge's
			 * answer once an earlier GRES had typed and untyped
			 * records: it takes the job, the records from this
			 * one on untested (every release, 22.05 to 26.05). */
			if (overlap) {
				tested = i;
				break;
			}
			qd_errf(err, errlen, "%s", why);
			return -1;
		}
		overlap = overlap || mixed_types(j, i);
		if (j->rec[i].kind == K_GPU)
			cpus_for_gpus = qd_sat_add(
			    cpus_for_gpus,
			    sat_mul(j->max_cpus_per_gres, j->rec[i].total));
	}
	/* 24.05: the CPUs --cpus-per-gpu asks for; 25.11: min_cpus is at least
	 * tasks x -c, overcommitted or not. */
	if (j->release >= R_2405)
		j->cpus = max64(j->cpus, cpus_for_gpus);
	if (j->release >= R_2511 && j->cpus_per_task && j->num_tasks)
		j->cpus =
		    max64(j->cpus, sat_mul(j->cpus_per_task, j->num_tasks));
	if (!merge_untyped(j, K_GPU, tested) ||
	    !merge_untyped(j, K_SHARD, tested) ||
	    !merge_untyped(j, K_MPS, tested)) {
		qd_errf(err, errlen, "typed and untyped GRES counts mixed");
		return -1;
	}
	return 0;
}

/*
 * gres_ctld_set_job_tres_cnt: gres/NAME sums the GRES's records,
 * gres/gpu:<type> takes its record's total (slurmctld looks the TRES name up
 * case-insensitively, so of "A100" and "a100" the later record wins, as
 * here). A type name too long for struct qd_tres, or beyond QD_TYPES_MAX
 * types, cannot carry a limit and is counted in gres/gpu only; typed shard
 * and MPS counts go to gres/shard and gres/mps only, as qosdeny caps no
 * typed share.
 */
static void set_gres_tres(const struct job *j, struct qd_tres *out)
{
	static const enum qd_tres_id tres_of[] = {
	    [K_GPU] = QD_TRES_GPU,
	    [K_SHARD] = QD_TRES_SHARD,
	    [K_MPS] = QD_TRES_MPS,
	};
	uint64_t sum[] = {[K_GPU] = 0, [K_SHARD] = 0, [K_MPS] = 0};

	for (size_t i = 0; i < j->nrec; i++) {
		const struct gres_rec *r = &j->rec[i];
		char type[QD_TYPE_NAME_MAX];
		uint64_t cnt;

		if (r->merged)
			continue;
		/* 24.05 counts a per-job count as given (c3f2347770). */
		cnt =
		    j->release >= R_2405 && r->per_job ? r->per_job : r->total;
		sum[r->kind] = qd_sat_add(sum[r->kind], cnt);
		if (r->kind != K_GPU || !r->type || r->type_len >= sizeof(type))
			continue;
		memcpy(type, r->type, r->type_len);
		type[r->type_len] = '\0';
		qd_tres_set_typed(out, type, cnt);
	}
	for (int k = K_GPU; k <= K_MPS; k++)
		qd_tres_set(out, tres_of[k], sum[k]);
}

/* job_get_tres_mem with no resources allocated yet. */
static uint64_t count_mem(const struct job *j, const struct qd_job_request *req)
{
	uint64_t mem_per_gres = 0, pj = 0, pn = 0, ps = 0, pt = 0, mem;
	bool per_cpu;

	for (size_t i = 0; !req->mem_set && i < j->nrec; i++) {
		const struct gres_rec *r = &j->rec[i];

		if (r->merged || !r->mem_per_gres)
			continue;
		mem_per_gres = max64(mem_per_gres, r->mem_per_gres);
		pj = qd_sat_add(pj, r->per_job);
		pn = qd_sat_add(pn, r->per_node);
		ps = qd_sat_add(ps, r->per_socket);
		pt = qd_sat_add(pt, r->per_task);
	}
	if (mem_per_gres) {
		if (pj)
			return sat_mul(mem_per_gres, pj);
		if (pn)
			return sat_mul(sat_mul(mem_per_gres, pn), j->min_nodes);
		if (ps)
			return sat_mul(
			    sat_mul(sat_mul(mem_per_gres, ps), j->min_nodes),
			    j->sockets_per_node ? j->sockets_per_node : 1);
		if (pt)
			return sat_mul(sat_mul(mem_per_gres, pt),
				       j->num_tasks ? j->num_tasks : 1);
		return 0;
	}
	/* 25.05: DefMemPerGPU, times the first GPU record (4145cc3183). */
	if (j->release >= R_2505 && !req->mem_set && req->def_mem_per_gpu)
		for (size_t i = 0; i < j->nrec; i++)
			if (j->rec[i].kind == K_GPU && !j->rec[i].merged)
				return sat_mul(req->def_mem_per_gpu,
					       j->rec[i].total);
	mem = req->mem_set ? req->mem_mb : req->def_mem_mb;
	per_cpu = req->mem_set ? req->mem_per_cpu : req->def_mem_per_cpu;
	/* 0 (--mem=0, --mem-per-cpu=0, no default) means a whole node. */
	if (!mem)
		return sat_mul(req->node_mem_mb, j->min_nodes);
	return sat_mul(mem, per_cpu ? j->cpus : j->min_nodes);
}

/* validate_job_create_req, _valid_job_part and _validate_job_desc: the
 * node and CPU counts _job_create puts in tres_req_cnt. */
static void count_nodes_cpus(struct job *j, const struct qd_job_request *req)
{
	uint64_t min_cpus = req->min_cpus;
	uint64_t nodes = req->min_nodes ? req->min_nodes : 1;

	if (j->release >= R_2302) {
		/* _figure_out_num_tasks and validate_job_create_req: a job
		 * without -N is taken as one node (before MinNodes applies),
		 * tasks follow from --ntasks-per-gpu or --ntasks-per-node,
		 * and a missing min_cpus from the tasks' -c. */
		if (!j->num_tasks && req->ntasks_per_tres)
			j->num_tasks = sat_mul(nodes, req->ntasks_per_tres);
		else if (!j->num_tasks && req->ntasks_per_node)
			j->num_tasks = sat_mul(nodes, req->ntasks_per_node);
		if (!req->overcommit && (!min_cpus || j->num_tasks > min_cpus))
			min_cpus = sat_mul(
			    j->num_tasks ? j->num_tasks : nodes,
			    req->cpus_per_task ? req->cpus_per_task : 1);
	} else {
		if (req->ntasks_per_node && req->min_nodes && !j->num_tasks)
			j->num_tasks =
			    (uint64_t)req->ntasks_per_node * req->min_nodes;
		if (!req->overcommit && min_cpus && j->num_tasks > min_cpus)
			min_cpus = sat_mul(
			    j->num_tasks,
			    req->cpus_per_task ? req->cpus_per_task : 1);
	}
	if (!j->min_nodes)
		j->min_nodes = req->part_min_nodes ? req->part_min_nodes : 1;
	else if (j->min_nodes < req->part_min_nodes &&
		 (!j->max_nodes || j->max_nodes >= req->part_min_nodes))
		j->min_nodes = req->part_min_nodes;
	j->cpus = min_cpus ? min_cpus : j->min_nodes;
}

int qd_request_count(const struct qd_job_request *req, struct qd_tres *out,
		     char *err, size_t errlen)
{
	struct job j;

	qd_tres_init(out);
	if (!req) {
		qd_errf(err, errlen, "no request");
		return -1;
	}
	j = (struct job){
	    .min_nodes = req->min_nodes,
	    .max_nodes = req->max_nodes,
	    .num_tasks = req->num_tasks,
	    .cpus_per_task = req->cpus_per_task,
	    .ntasks_per_node = req->ntasks_per_node,
	    .ntasks_per_socket = req->ntasks_per_socket,
	    .sockets_per_node = req->sockets_per_node,
	    .ntasks_per_tres = req->ntasks_per_tres,
	    .release = req->slurm_release ? req->slurm_release : R_2205,
	};
	count_nodes_cpus(&j, req);
	qd_tres_set(out, QD_TRES_CPU, j.cpus);
	qd_tres_set(out, QD_TRES_NODE, j.min_nodes);
	if (count_gres(&j, req, err, errlen)) {
		qd_tres_init(out);
		return -1;
	}
	/* 24.05 takes the CPU and node counts after the GRES checks, which
	 * may have raised them (eeb557761e). */
	if (j.release >= R_2405) {
		qd_tres_set(out, QD_TRES_CPU, j.cpus);
		qd_tres_set(out, QD_TRES_NODE, j.min_nodes);
	}
	set_gres_tres(&j, out);
	qd_tres_set(out, QD_TRES_MEM, count_mem(&j, req));
	return 0;
}
