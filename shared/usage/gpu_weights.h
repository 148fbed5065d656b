/* SPDX-License-Identifier: GPL-2.0-or-later
 * What a GPU of each type weighs in a usage record (docs/gpu-and-usage.md,
 * "GPU types and billing weights"): a partition's TRESBillingWeights names
 * GRES/gpu:<type>=W for the types it weighs (a MIG profile is a type), and
 * a GPU of that type held for T seconds is charged W x T GPU-seconds. A GPU
 * of a type the partition does not weigh, or of no known type, weighs 1.
 *
 * Only typed GPU weights count. An untyped GRES/gpu=W, and every other
 * TRES (CPU=, Mem=, ...), weigh a GPU against CPUs and memory in Slurm's
 * billing TRES; qosdeny's usage is GPU-seconds alone, so those leave it
 * unchanged.
 *
 * The string is read as Slurm reads it (slurm_protocol_api.c,
 * _tres_weight_item): comma-separated TYPE[/NAME]=WEIGHT, names compared
 * without regard to case, a K, M, G, T or P after the weight dividing it
 * by 1024 for each step.
 */
#ifndef QD_GPU_WEIGHTS_H
#define QD_GPU_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>

#define QD_GPU_WEIGHTS_MAX 64	    /* typed GPU weights in one string */
#define QD_GPU_TYPE_MAX	   64	    /* a GPU type's name, NUL included */
#define QD_GPU_WEIGHT_ONE  1000	    /* weights are kept in thousandths */
#define QD_GPU_WEIGHT_MAX  1000000U /* 1000 in thousandths */

struct qd_gpu_weights {
	size_t n;
	struct {
		char type[QD_GPU_TYPE_MAX];
		uint32_t milli; /* the weight in thousandths */
	} w[QD_GPU_WEIGHTS_MAX];
};

/*
 * Parses a TRESBillingWeights value; NULL or "" weighs nothing. A weight
 * is a number from 0 to 1000, kept to a thousandth. Returns 0, or -1 with
 * err naming the item that does not read.
 */
int qd_gpu_weights_parse(const char *str, struct qd_gpu_weights *out, char *err,
			 size_t errlen);

/* A GPU type's weight in thousandths: QD_GPU_WEIGHT_ONE where type is NULL
 * or "" (not known) or not weighed. */
uint32_t qd_gpu_weight(const struct qd_gpu_weights *w, const char *type);

#endif
