/* SPDX-License-Identifier: GPL-2.0-or-later
 * Untyped GPU requests against typed caps. Slurm checks a gres/gpu:<type>
 * limit only against requests that name the type, yet it allocates an
 * untyped request on any type and from then on counts it under that type
 * ("Specific limits over GRES" in resource_limits.html). Left at that, a
 * QoS capped at gres/gpu:a100=2 lets --gres=gpu:3 hold three A100s. qosdeny
 * counts an untyped request toward every type the job could be given, as
 * many as the nodes of its partitions have of that type.
 */
#ifndef QD_UNTYPED_GPUS_H
#define QD_UNTYPED_GPUS_H

#include <stdint.h>

#include "check.h"
#include "tres.h"

/* The GPUs req asks for without naming a type. */
uint64_t qd_untyped_gpus(const struct qd_tres *req);

/*
 * reach holds, per gres/gpu:<type>, how many GPUs of that type the job's
 * partitions have. Raises each such type in req to what it could be given:
 * what it asks for of that type plus its untyped GPUs, at most reach's
 * count, never less than it asked for.
 */
void qd_count_untyped_gpus(struct qd_tres *req, const struct qd_tres *reach);

/*
 * The fallback when the partitions' types could not all be listed in a
 * reach vector: each type capped in caps (its values unused) that reach
 * lacks counts what asked has of it plus every untyped GPU, unbounded.
 */
void qd_count_untyped_gpus_unbounded(struct qd_tres *req,
				     const struct qd_tres *asked,
				     const struct qd_tres *reach,
				     const struct qd_tres *caps);

/* Marks a denial whose typed count is more than asked, the rest being
 * untyped GPUs counted by qd_count_untyped_gpus, so its line says so. */
void qd_verdict_note_untyped(struct qd_verdict *v, const struct qd_tres *asked);

#endif
