/* SPDX-License-Identifier: GPL-2.0-or-later
 * A partition's TRESBillingWeights, as slurm.conf gives it to slurmctld
 * (docs/gpu-and-usage.md, "GPU types and billing weights"): on the
 * partition's own PartitionName= line, else on the PartitionName=DEFAULT
 * line above it. Lines may continue with a backslash and files be pulled
 * in with `Include PATH` (relative to slurm.conf's directory, a glob), as
 * Slurm's parser allows; keys and the DEFAULT name are not case-sensitive,
 * values may be quoted.
 */
#ifndef QD_PARTITION_BILLING_H
#define QD_PARTITION_BILLING_H

#include <stddef.h>

/*
 * The weights of partition in slurm_conf into out. Returns 1 where it has
 * some, 0 where none (or no such partition), -1 with err where a file
 * cannot be read or a value does not fit len.
 */
int qd_partition_billing(const char *slurm_conf, const char *partition,
			 char *out, size_t len, char *err, size_t errlen);

/*
 * Calls each with every partition slurm_conf defines (DEFAULT aside), its
 * Nodes= and its weights ("" for none; DEFAULT's where the line has none),
 * in file order, until it returns nonzero.
 * Returns 0, each's value, or -1 with err where a file cannot be read.
 */
int qd_partition_billing_each(const char *slurm_conf,
			      int (*each)(const char *partition,
					  const char *nodes,
					  const char *weights, void *arg),
			      void *arg, char *err, size_t errlen);

#endif
