/* SPDX-License-Identifier: GPL-2.0-or-later
 * Whether the step's GPU list is Slurm's. slurmstepd's gres/gpu plugin (and
 * the shard and mps plugins, which need it) writes SLURM_STEP_GPUS, or
 * SLURM_JOB_GPUS in the batch and interactive steps, into the step's
 * environment from the credential, or removes it: whatever the user
 * exported is gone. Without the plugin (GresTypes without gpu) nothing does,
 * and the variable is the user's own (docs/gpu-and-usage.md, "How it is
 * done").
 */
#ifndef QD_GRES_PLUGIN_H
#define QD_GRES_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>

/* Whether maps (a /proc/PID/maps text, len bytes) maps a file whose name
 * is gres_gpu.so. */
bool qd_gres_gpu_mapped(const char *maps, size_t len);

/*
 * Whether this process (slurmstepd) has loaded the gres/gpu plugin: 1, 0,
 * or -1 with err when /proc/self/maps cannot be read.
 */
int qd_gres_gpu_loaded(char *err, size_t errlen);

#endif
