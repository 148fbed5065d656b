/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny held JOBID NODE: the GPUs a running job holds on one node, as its
 * usage record there charges them (qosdeny(1), docs/gpu-and-usage.md
 * "Shared GPUs"): a whole GPU 1, S of a GPU's N shards or MPS share S/N,
 * printed to a thousandth ("0.5"). From slurmctld's GRES detail for the
 * node (shared/usage/gres_held.h), which exists only while the job runs.
 *
 * spank_qosdeny.so's prolog runs it (node/job_held.h): the prolog's own
 * process cannot ask slurmctld through libslurm (node/slurm_cmd.h), and
 * the detail is gone by the job's epilog.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "gres_held.h"
#include "libslurm_compat.h"
#include "usage_record.h"

/* The node's configured GRES (slurm.conf's Gres=), for a detail that gives
 * no N. */
static int node_gres(const char *node, struct qd_node_gres *out, char *err,
		     size_t errlen)
{
	node_info_msg_t *msg = NULL;
	int rv;

	if (slurm_load_node_single(&msg, (char *)node, SHOW_ALL) !=
		SLURM_SUCCESS ||
	    !msg || msg->record_count < 1) {
		snprintf(err, errlen, "node %s: %s", node,
			 slurm_strerror(errno));
		slurm_free_node_info_msg(msg);
		return -1;
	}
	rv = qd_node_gres_parse(msg->node_array[0].gres, out, err, errlen);
	slurm_free_node_info_msg(msg);
	return rv;
}

/* What job holds on node, in thousandths. */
static int held(const slurm_job_info_t *job, const char *node, uint64_t *mgpus,
		char *err, size_t errlen)
{
	qd_hostlist_t hl;
	const char *detail = "";
	struct qd_node_gres conf;
	int i, shared;

	if (!job->nodes || !*job->nodes) {
		snprintf(err, errlen, "job %" PRIu32 " has no nodes",
			 job->job_id);
		return -1;
	}
	hl = slurm_hostlist_create(job->nodes);
	i = hl ? slurm_hostlist_find(hl, node) : -1;
	slurm_hostlist_destroy(hl);
	if (i < 0) {
		snprintf(err, errlen, "job %" PRIu32 " does not run on %s",
			 job->job_id, node);
		return -1;
	}
	if ((uint32_t)i < job->gres_detail_cnt && job->gres_detail_str[i])
		detail = job->gres_detail_str[i];
	if (!qd_gres_held(detail, NULL, mgpus, &shared, err, errlen))
		return 0;
	/* Before 23.11.2 a share's N is the node's count over its GPUs. */
	if (node_gres(node, &conf, err, errlen))
		return -1;
	return qd_gres_held(detail, &conf, mgpus, &shared, err, errlen);
}

int qd_cmd_held(int argc, char **argv)
{
	job_info_msg_t *jobs = NULL;
	char err[512], num[32];
	unsigned long id;
	uint64_t mgpus = 0;
	char *end;
	int rv = 1;

	if (argc != 3)
		return qd_usage_error("held: JOBID and NODE expected");
	errno = 0;
	id = strtoul(argv[1], &end, 10);
	if (argv[1][0] < '0' || argv[1][0] > '9' || *end || errno || !id ||
	    id > UINT32_MAX)
		return qd_usage_error("held: '%s' is not a job id", argv[1]);
	slurm_init(NULL);
	if (qd_slurm_load_job(&jobs, (uint32_t)id, SHOW_DETAIL) !=
	    SLURM_SUCCESS) {
		fprintf(stderr, "qosdeny held: job %lu: %s\n", id,
			slurm_strerror(errno));
		goto out;
	}
	for (uint32_t i = 0; i < jobs->record_count; i++) {
		const slurm_job_info_t *job = &jobs->job_array[i];

		if (job->job_id != id)
			continue;
		if (held(job, argv[2], &mgpus, err, sizeof(err))) {
			fprintf(stderr, "qosdeny held: %s\n", err);
			goto out;
		}
		printf("%s\n", qd_milli_text(mgpus, num, sizeof(num)));
		rv = 0;
		goto out;
	}
	fprintf(stderr, "qosdeny held: job %lu: not found\n", id);
out:
	slurm_free_job_info_msg(jobs);
	slurm_fini();
	return rv;
}
