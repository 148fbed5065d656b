/* SPDX-License-Identifier: GPL-2.0-or-later
 * The GPUs a job holds on this node, for the usage record its prolog opens
 * (docs/gpu-and-usage.md "Shared GPUs"): a job on shards or MPS share of
 * a GPU gets SLURM_JOB_GPUS=<that GPU> and no count in its prolog
 * (Slurm's gres_common.c), so only slurmctld can say it holds S of N.
 * Asked through `qosdeny held JOBID NODE` (tools/cmd_held.c), where make
 * install put the tool (slurmd gives a prolog no PATH), else beside
 * spank_qosdeny.so (a build tree), and only where a job may hold part of
 * a GPU (qd_job_held_needed): elsewhere a GPU job holds whole GPUs, and its
 * launch pays for nothing more.
 */
#ifndef QD_JOB_HELD_H
#define QD_JOB_HELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Whether a GPU job on node may hold part of a GPU: slurm.conf's GresTypes
 * names shard or mps (shares), and gres.conf gives the node shares, or
 * gives no node any (Slurm then spreads slurm.conf's Gres= shares over the
 * node's GPUs itself: gres.shtml, "No Shard/MPS configuration").
 */
bool qd_job_held_needed(bool shares, const char *gres_conf, const char *node);

/*
 * The tool to run: QD_TOOL_INSTALLED (PREFIX/bin/qosdeny) if it is there,
 * else qosdeny in beside's directory (the plugin's own path). Returns 0,
 * or -1 with err naming where it was looked for.
 */
int qd_job_held_tool(const char *beside, char *path, size_t len, char *err,
		     size_t errlen);

/*
 * Runs `TOOL held JOB NODE`, stopping it after timeout_ms. Returns 0 with
 * the thousandths of GPUs in *mgpus, or -1 with err saying why.
 */
int qd_job_held_ask(const char *tool, uint32_t job_id, const char *node,
		    int timeout_ms, uint32_t *mgpus, char *err, size_t errlen);

/* Its output: one line, a number of GPUs to a thousandth ("0.5"). 0, or
 * -1 when out is not that. */
int qd_job_held_parse(const char *out, uint32_t *mgpus);

#endif
