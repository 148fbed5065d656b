/* SPDX-License-Identifier: GPL-2.0-or-later
 * Exponential decay of GPU usage with a half-life (qosdeny.conf
 * UsageHalfLife): value(t) = value(t0) * 2^(-(t - t0) / H). The Redis script
 * applies the same formula server-side; this is the client's copy, used to
 * read stored usage as of now.
 */
#ifndef QD_DECAY_H
#define QD_DECAY_H

#include <stdint.h>

/*
 * value decayed over elapsed_s seconds. A negative elapsed time (clocks
 * apart) leaves the value as it is rather than growing it; a half-life of 0
 * means no decay, as Slurm's PriorityDecayHalfLife=0.
 */
double qd_decay(double value, double elapsed_s, uint64_t half_life_s);

#endif
