/*
 * What a job asks for, counted the way slurmctld will count it for its own
 * limits (job_mgr.c's TRES request and gres_job_state_validate are the
 * reference), from the fields a client puts in a job description.
 *
 * The fields mirror job_desc_msg_t's but in plain C: the adapter turns
 * Slurm's NO_VAL/NO_VAL16/NO_VAL64 into 0 ("not given") before calling.
 */
#ifndef QD_REQUEST_H
#define QD_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tres.h"

struct qd_job_request {
	uint32_t min_nodes;	   /* -N; 0: not given */
	uint32_t max_nodes;	   /* -N min-max; 0: not given */
	uint32_t num_tasks;	   /* -n; 0: not given */
	uint32_t min_cpus;	   /* as the client computed it; 0: not given */
	uint32_t cpus_per_task;	   /* -c; 0: not given */
	uint32_t pn_min_cpus;	   /* --mincpus; 0: not given */
	uint32_t ntasks_per_node;  /* 0: not given */
	uint32_t sockets_per_node; /* 0: not given */
	uint64_t mem_mb;	   /* --mem or --mem-per-cpu value, MiB */
	bool mem_set;		   /* mem_mb was given */
	bool mem_per_cpu;	   /* mem_mb is per CPU (--mem-per-cpu) */
	/* Slurm's TRES request strings, e.g. "gres:gpu:a100:2,gres:gpu:1".
	 * NULL or "" when absent. */
	const char *tres_per_job;    /* --gpus */
	const char *tres_per_node;   /* --gres, --gpus-per-node */
	const char *tres_per_socket; /* --gpus-per-socket */
	const char *tres_per_task;   /* --gpus-per-task */
	const char *mem_per_tres;    /* --mem-per-gpu: "gres:gpu:1024" (MiB) */
	const char *cpus_per_tres;   /* --cpus-per-gpu */
};

/*
 * Counts the request into *out (initialised here): cpu, mem, node, gres/gpu
 * and every gres/gpu:<type> asked for (a typed request counts toward both).
 * Returns 0, or -1 with err naming what could not be understood (a malformed
 * GRES string, an overflowing count): Slurm will then reject the job itself,
 * so callers let such a job through to Slurm's own validation.
 */
int qd_request_count(const struct qd_job_request *req, struct qd_tres *out,
		     char *err, size_t errlen);

#endif
