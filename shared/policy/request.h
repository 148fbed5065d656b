/* SPDX-License-Identifier: GPL-2.0-or-later
 * What a job asks for, counted the way slurmctld will count it for its own
 * limits at submission (job_mgr.c's _job_create, gres_job_state_validate and
 * job_get_tres_mem are the reference; docs/counting.md has the details),
 * from the fields a client puts in a job description.
 *
 * The fields mirror job_desc_msg_t's but in plain C: the adapter turns
 * Slurm's NO_VAL/NO_VAL16/NO_VAL64 into 0 ("not given") before calling.
 * job_submit plugins run before slurmctld fills in its defaults, so the
 * partition's defaults travel here too and the defaults are applied here.
 */
#ifndef QD_REQUEST_H
#define QD_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tres.h"

/* A Slurm release as major x 100 + minor: 2205, 2411, 2605. */
#define QD_SLURM_RELEASE(major, minor) ((major)*100 + (minor))

struct qd_job_request {
	/*
	 * The release of the slurmctld that will count the job (0: 22.05).
	 * Its request strings' syntax and its arithmetic both changed: 23.11
	 * reads "gres/NAME[:TYPE][:COUNT]" and "...=COUNT" items through
	 * slurm_get_next_tres where 22.05 read "gres:..." ones; 23.02, 24.05,
	 * 25.05 and 25.11 each changed a count (request.c says where).
	 */
	unsigned slurm_release;
	uint32_t min_nodes;	  /* -N; 0: not given */
	uint32_t max_nodes;	  /* -N min-max; 0: not given */
	uint32_t num_tasks;	  /* -n; 0: not given */
	uint32_t min_cpus;	  /* as the client computed it; 0: not given */
	uint32_t cpus_per_task;	  /* -c; 0: not given */
	uint32_t pn_min_cpus;	  /* --mincpus; 0: not given (not counted at
				     submission) */
	uint32_t ntasks_per_node; /* 0: not given */
	uint32_t ntasks_per_socket; /* 0: not given */
	uint32_t ntasks_per_tres;   /* --ntasks-per-gpu; 0: not given */
	uint32_t sockets_per_node;  /* 0: not given */
	bool overcommit;	    /* -O: job_desc->overcommit != NO_VAL8 */
	uint64_t mem_mb;	    /* --mem or --mem-per-cpu value, MiB */
	bool mem_set;		    /* mem_mb was given by the user */
	bool mem_per_cpu;	    /* mem_mb is per CPU (--mem-per-cpu) */
	/* Slurm's TRES request strings, e.g. "gres:gpu:a100:2,gres:gpu:1"
	 * (22.05) or "gres/gpu:a100:2,gres/gpu:1". NULL or "" when absent. */
	const char *tres_per_job;    /* --gpus */
	const char *tres_per_node;   /* --gres, --gpus-per-node */
	const char *tres_per_socket; /* --gpus-per-socket */
	const char *tres_per_task;   /* --gpus-per-task */
	const char *mem_per_tres;    /* --mem-per-gpu: "gres:gpu:1024" (MiB) */
	const char *cpus_per_tres;   /* --cpus-per-gpu */
	/*
	 * What slurmctld fills in from the job's partition (part_ptr, the
	 * first one listed) when the job leaves it open. Not folded into
	 * mem_set: a job without --mem/--mem-per-cpu counts --mem-per-gpu,
	 * one with them does not (job_get_tres_mem's user_set_mem).
	 */
	uint32_t part_min_nodes; /* MinNodes, lowest of the listed partitions */
	uint64_t def_mem_mb;	 /* DefMemPerCPU/DefMemPerNode, partition's
				    else slurm.conf's; 0: none */
	bool def_mem_per_cpu;	 /* def_mem_mb is DefMemPerCPU */
	uint64_t node_mem_mb;	 /* what --mem=0 means: the partition's first
				    node's RealMemory - MemSpecLimit */
	uint64_t def_mem_per_gpu; /* DefMemPerGPU, partition's else
				     slurm.conf's, MiB; 0: none (counted from
				     25.05) */
};

/*
 * Counts the request into *out (initialised here): cpu, mem, node, gres/gpu,
 * every gres/gpu:<type> asked for (a typed request counts toward both),
 * gres/shard and gres/mps.
 * Counts that would pass UINT64_MAX saturate just below QD_UNLIMITED.
 * Returns 0, or -1 with err saying why when the request is one slurmctld
 * itself rejects at submission (a malformed GRES string, --gpus-per-task
 * without a task count, ...): callers let such a job through to Slurm's own
 * validation.
 */
int qd_request_count(const struct qd_job_request *req, struct qd_tres *out,
		     char *err, size_t errlen);

#endif
