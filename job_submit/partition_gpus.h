/* SPDX-License-Identifier: GPL-2.0-or-later
 * How many GPUs of each type the nodes of a job's partitions have, from
 * slurmctld's node records: what an untyped request could be given
 * (untyped_gpus.h).
 */
#ifndef QD_PARTITION_GPUS_H
#define QD_PARTITION_GPUS_H

#include <stdbool.h>

#include "tres.h"

/*
 * Fills *reach (initialised here) with gres/gpu:<type> counts for the
 * partitions in list (NULL: the default partition); for several, each
 * type's count is the largest one partition has, as the job runs in one.
 * Types come from the nodes' GRES as slurmd registered them (gres.conf's
 * Type=, or slurm.conf's Gres=gpu:<type>:N before registration). Returns
 * false when reach could not keep every type (more than QD_TYPES_MAX, or a
 * name longer than any cap can have): the caller must then not take a
 * missing type as one the job cannot be given. Caller holds slurmctld's
 * node and partition read locks.
 */
bool qd_partition_gpus(const char *list, struct qd_tres *reach);

#endif
