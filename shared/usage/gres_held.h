/* SPDX-License-Identifier: GPL-2.0-or-later
 * The GPUs a job holds on one node, in thousandths, as its usage record
 * charges them (docs/gpu-and-usage.md, "Shared GPUs"): a whole GPU counts
 * 1, S of a GPU's N shards (gres/shard) or MPS share (gres/mps) count S/N
 * of it. Read from slurmctld's GRES detail for that node, the text
 * `scontrol show job -d` prints after "GRES=" and libslurm gives in
 * job_info_t's gres_detail_str (src/slurmctld/gres_ctld.c,
 * gres_ctld_job_build_details), one entry per GRES and type:
 *
 *   gpu:a100:2(IDX:0-1)          whole GPUs, by index
 *   shard:3(1/4,2/4,0/4,0/4)     23.11.2 on: per GPU, S/N
 *   shard:2(IDX:0)               before: S on the GPUs listed
 *   mps(CNT:50)                  a count without indices
 *
 * Where the detail gives no N (before 23.11.2), a GPU's N is the node's
 * configured shares of that kind over its GPUs (node_info_t's gres, as
 * slurm.conf's Gres= gives it: "gpu:4,shard:16"): exact wherever
 * gres.conf gives each GPU of the node the same count.
 *
 * The text is Slurm's own (GRES names and types the administrator
 * configured), never a user's; still, anything that does not parse is an
 * error, never a guess.
 */
#ifndef QD_GRES_HELD_H
#define QD_GRES_HELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A GRES count as Slurm writes one: decimal digits, with a K, M or G
 * suffix (powers of 1024) where suffix is set; at most max. 0, or -1. */
int qd_gres_count_parse(const char *s, bool suffix, uint64_t max,
			uint64_t *out);

/* A node's configured GPUs and shares, from its Gres= string. */
struct qd_node_gres {
	uint64_t gpus;
	uint64_t shards;
	uint64_t mps;
};

/* Parses a node's Gres= ("gpu:a100:4(S:0-1),shard:16"); NULL or "" is
 * none. Returns 0, or -1 with err. */
int qd_node_gres_parse(const char *gres, struct qd_node_gres *out, char *err,
		       size_t errlen);

/*
 * The thousandths of a GPU the detail holds: whole GPUs 1000 each, shares
 * S/N each rounded to the nearest thousandth but never below one. node
 * may be NULL where no entry needs it. *shared is set when a share was
 * counted. Returns 0, or -1 with err naming the entry.
 */
int qd_gres_held(const char *detail, const struct qd_node_gres *node,
		 uint64_t *mgpus, int *shared, char *err, size_t errlen);

#endif
