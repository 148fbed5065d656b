/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "errmsg.h"
#include "gpu_devices.h"
#include "gpu_weights.h"
#include "job_weigh.h"
#include "partition_billing.h"

/* The sum of the weights of the GPUs an index list names, and how many it
 * names; an index gres.conf gives no type weighs 1. */
static int sum_weights(const struct qd_gpu_weights *w,
		       const struct qd_gpus *gpus, const char *list,
		       uint64_t *sum, size_t *n, size_t *untyped, char *err,
		       size_t errlen)
{
	const char *p = list;

	*sum = 0;
	*n = *untyped = 0;
	while (p && *p) {
		char *end;
		unsigned long i;
		const char *type = NULL;

		errno = 0;
		i = strtoul(p, &end, 10);
		if (errno || end == p || (*end && *end != ','))
			return qd_errf(err, errlen,
				       "SLURM_JOB_GPUS '%.64s' is not a list "
				       "of GPU indices",
				       list);
		if (i < gpus->types.n && gpus->types.v[i][0])
			type = gpus->types.v[i];
		else
			(*untyped)++;
		*sum += qd_gpu_weight(w, type);
		(*n)++;
		p = *end ? end + 1 : end;
	}
	return 0;
}

int qd_job_weigh(const struct qd_job_weigh *j, uint32_t *mgpus, size_t *untyped,
		 char *err, size_t errlen)
{
	char str[4096], why[1024];
	struct qd_gpu_weights *w;
	struct qd_gpus gpus = {0};
	uint64_t sum;
	size_t n;
	double v;
	int rv;

	*untyped = 0;
	rv = qd_partition_billing(j->slurm_conf, j->partition, str, sizeof(str),
				  err, errlen);
	if (rv <= 0)
		return rv;
	/* struct qd_gpu_weights is 4 KiB: not on the stack of a hook. */
	w = malloc(sizeof(*w));
	if (!w)
		return qd_errf(err, errlen, "out of memory");
	rv = -1;
	if (qd_gpu_weights_parse(str, w, why, sizeof(why))) {
		qd_errf(err, errlen, "%s: partition %s: %s", j->slurm_conf,
			j->partition, why);
		goto out;
	}
	rv = 0;
	if (!w->n)
		goto out;
	rv = -1;
	if (qd_gres_conf_load(j->gres_conf, j->node, &gpus, err, errlen) ||
	    sum_weights(w, &gpus, j->job_gpus, &sum, &n, untyped, err, errlen))
		goto out;
	rv = 1;
	if (!n)
		goto out;
	v = round((double)*mgpus * (double)sum /
		  ((double)n * QD_GPU_WEIGHT_ONE));
	if (v > UINT32_MAX) {
		rv = qd_errf(err, errlen,
			     "the weighed GPUs do not fit a record");
		goto out;
	}
	*mgpus = v < 1 ? 1 : (uint32_t)v;
out:
	qd_gpus_free(&gpus);
	free(w);
	return rv;
}

struct weights_pass {
	const char *node;
	size_t untyped; /* the node's GPUs without gres.conf's Type= */
	struct qd_gpu_weights w;
	char why[1024]; /* the first finding */
};

/* A partition of the node whose GPU weights do not read, or weigh types
 * while some of its GPUs have none (docs/gpu-and-usage.md, "GPU types and
 * billing weights"). */
static int note_weights(const char *partition, const char *nodes,
			const char *weights, void *arg)
{
	struct weights_pass *p = arg;
	char err[512];

	/* Nodes=ALL, or a list doctor cannot read: taken as the node's. */
	if (p->why[0] || !weights[0] ||
	    (strcasecmp(nodes, "ALL") &&
	     !qd_nodelist_has(nodes, p->node, err, sizeof(err))))
		return 0;
	if (qd_gpu_weights_parse(weights, &p->w, err, sizeof(err)))
		snprintf(p->why, sizeof(p->why),
			 "partition %s: %s: its GPUs weigh 1 in usage records",
			 partition, err);
	else if (p->w.n && p->untyped)
		snprintf(p->why, sizeof(p->why),
			 "partition %s weighs GPU types, and %zu of %s's "
			 "GPUs have no Type= in gres.conf: they weigh 1 in "
			 "usage records",
			 partition, p->untyped, p->node);
	return 0;
}

int qd_node_weights_check(const char *slurm_conf, const char *node,
			  const struct qd_gpus *gpus, char *why, size_t len)
{
	struct weights_pass *p = calloc(1, sizeof(*p));
	char err[512];
	int found;

	if (!p)
		return 0;
	p->node = node;
	for (size_t i = 0; i < gpus->types.n; i++)
		p->untyped += !gpus->types.v[i][0];
	qd_partition_billing_each(slurm_conf, note_weights, p, err,
				  sizeof(err));
	found = p->why[0] != '\0';
	snprintf(why, len, "%s", p->why);
	free(p);
	return found;
}
