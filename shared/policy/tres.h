/* SPDX-License-Identifier: GPL-2.0-or-later
 * TRES vectors: the handful of trackable resources qosdeny covers (cpu, mem,
 * node, gres/gpu, gres/gpu:<type>, and the GPU-sharing gres/shard and
 * gres/mps), and sacctmgr's TRES string syntax.
 *
 * A vector is used three ways: a job's request, what is in use, and a limit.
 * For limits QD_UNLIMITED means "no limit"; a TRES absent from a vector reads
 * as 0 for requests and usage and as QD_UNLIMITED for limits, which is why the
 * caller says which default to read with (qd_tres_get).
 */
#ifndef QD_TRES_H
#define QD_TRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QD_UNLIMITED	 UINT64_MAX
#define QD_TYPE_NAME_MAX 32 /* longest GPU type name kept ("a100") */
#define QD_TYPES_MAX	 16 /* distinct GPU types in one vector */

/* Fixed TRES, in the order the checks visit them (docs/how-it-decides.md,
 * "Checks"); the GPU types come between gres/gpu and gres/shard, so the
 * checks visit the ids below QD_TRES_SHARD, the types, then the rest. */
enum qd_tres_id {
	QD_TRES_CPU,
	QD_TRES_MEM,
	QD_TRES_NODE,
	QD_TRES_GPU,
	QD_TRES_SHARD, /* gres/shard: shares of a GPU (Slurm 22.05+) */
	QD_TRES_MPS,   /* gres/mps: CUDA MPS shares of a GPU */
	QD_TRES_FIXED
};

/* The ids visited before the GPU types, [0, QD_TRES_BEFORE_TYPES), and
 * after them, [QD_TRES_BEFORE_TYPES, QD_TRES_FIXED). */
#define QD_TRES_BEFORE_TYPES QD_TRES_SHARD

struct qd_tres_typed {
	char type[QD_TYPE_NAME_MAX]; /* "a100" for gres/gpu:a100 */
	uint64_t value;
};

struct qd_tres {
	bool set[QD_TRES_FIXED];
	uint64_t v[QD_TRES_FIXED]; /* mem in MiB, as Slurm counts it */
	size_t ntyped;		   /* kept sorted by type name */
	struct qd_tres_typed typed[QD_TYPES_MAX];
};

/* Counts saturate here, just below QD_UNLIMITED: a sum never wraps and
 * never reads as "no limit". */
#define QD_COUNT_MAX (QD_UNLIMITED - 1)

static inline uint64_t qd_sat_add(uint64_t a, uint64_t b)
{
	return a > QD_COUNT_MAX - b || b > QD_COUNT_MAX ? QD_COUNT_MAX : a + b;
}

/* An empty vector: nothing set. */
void qd_tres_init(struct qd_tres *t);

/* Name as sacctmgr prints it: "cpu", "mem", "node", "gres/gpu",
 * "gres/shard", "gres/mps". */
const char *qd_tres_name(enum qd_tres_id id);

/* Sets a fixed TRES. */
void qd_tres_set(struct qd_tres *t, enum qd_tres_id id, uint64_t value);

/* Sets gres/gpu:<type>; -1 when the type name is too long or the vector is
 * full, 0 otherwise. Setting an existing type replaces its value. */
int qd_tres_set_typed(struct qd_tres *t, const char *type, uint64_t value);

/* Adds to gres/gpu:<type>, saturating at QD_UNLIMITED - 1; same errors. */
int qd_tres_add_typed(struct qd_tres *t, const char *type, uint64_t value);

/*
 * Sets the TRES slurmctld names "cpu", "mem", "node", "gres/gpu",
 * "gres/shard", "gres/mps" or "gres/gpu:<type>" (its TRES names, as in
 * assoc_mgr's tables; a typed shard or MPS TRES is left out). Returns 0, 1
 * when qosdeny does not cover that TRES (left out), -1 when a type does not
 * fit (qd_tres_set_typed).
 */
int qd_tres_set_named(struct qd_tres *t, const char *name, uint64_t value);

/* Value of a fixed TRES, or dflt when it is not set. */
uint64_t qd_tres_get(const struct qd_tres *t, enum qd_tres_id id,
		     uint64_t dflt);

/* Value of gres/gpu:<type>, or dflt when it is not set. */
uint64_t qd_tres_get_typed(const struct qd_tres *t, const char *type,
			   uint64_t dflt);

/*
 * Parses sacctmgr's TRES syntax: "cpu=16,mem=64G,node=2,gres/gpu=4,
 * gres/gpu:a100=2,gres/shard=8". Keys are case-insensitive; mem takes K, M
 * (default), G, T, P suffixes and is stored in MiB; other counts take no
 * suffix. A value of -1 means unlimited, as in sacctmgr. Any other TRES, a
 * repeated TRES, an empty item, a non-number or a count that overflows is an
 * error: returns -1 and writes a message naming the offending item into err,
 * leaving *out untouched. Parsed entries are merged into *out (which the caller
 * initialised). GPU type names are stored lowercase, as Slurm keeps them.
 */
int qd_tres_parse(const char *text, struct qd_tres *out, char *err,
		  size_t errlen);

/* Formats a value for messages: mem as "<n>M", others as plain numbers,
 * QD_UNLIMITED as "unlimited". */
void qd_tres_format_value(enum qd_tres_id id, uint64_t value, char *buf,
			  size_t len);

#endif
