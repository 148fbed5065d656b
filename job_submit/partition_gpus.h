/*
 * How many GPUs of each type the nodes of a job's partitions have, from
 * slurmctld's node records: what an untyped request could be given
 * (untyped_gpus.h).
 */
#ifndef QD_PARTITION_GPUS_H
#define QD_PARTITION_GPUS_H

#include "tres.h"

/*
 * Fills *reach (initialised here) with gres/gpu:<type> counts for the
 * partitions in list (NULL: the default partition); for several, each
 * type's count is the largest one partition has, as the job runs in one.
 * Types come from the nodes' GRES as slurmd registered them (gres.conf's
 * Type=). Caller holds slurmctld's node and partition read locks.
 */
void qd_partition_gpus(const char *list, struct qd_tres *reach);

#endif
