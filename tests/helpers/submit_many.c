/* SPDX-License-Identifier: GPL-2.0-or-later
 * submit_many N KIND1 KIND2: as the calling user, N submissions of each of
 * two kinds of batch job, in turn, straight through libslurm, each refused
 * by slurmctld (t_memory.sh: no job record stays). A KIND is
 * "QOS,GPUS,PARTITION", "-" for a field not sent. The job is what
 * `sbatch -q QOS --gres=gpu:GPUS -p PARTITION --wrap true` sends, built
 * once, without starting an sbatch per submission: one process, one
 * libslurm, so that what the test costs is slurmctld's work, not the
 * clients'.
 *
 * Prints "DENIED REFUSED OTHER": answers ESLURM_ACCOUNTING_POLICY (a job
 * submit plugin's denial; its message is on stderr, as sbatch prints it),
 * ESLURM_INVALID_PARTITION_NAME, and anything else, each of those on
 * stderr. A submission whose RPC failed (timed out, no contact: seen on a
 * loaded host) is sent again, up to 3 times; no job record is made either
 * way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "slurm_ids.h"

extern char **environ;

/* One kind of job: its description, sent as it is each time. */
struct kind {
	job_desc_msg_t d;
	char tres[64];
};

/* The request string sbatch's --gres=gpu:N sends (23.11 and later:
 * "gres/"), as shared/policy/request.c reads it. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
#define GPU_TRES "gres/gpu:%s"
#else
#define GPU_TRES "gres:gpu:%s"
#endif

/* "QOS,GPUS,PARTITION" into the job sbatch would send from cwd. */
static int parse_kind(char *arg, char *cwd, struct kind *k)
{
	char *qos, *gpus, *partition, *save = NULL;
	job_desc_msg_t *d = &k->d;

	qos = strtok_r(arg, ",", &save);
	gpus = strtok_r(NULL, ",", &save);
	partition = strtok_r(NULL, ",", &save);
	if (!qos || !gpus || !partition || strtok_r(NULL, ",", &save))
		return -1;
	slurm_init_job_desc_msg(d);
	d->name = "wrap";
	d->script = "#!/bin/sh\n# This script was created by sbatch "
		    "--wrap.\n\ntrue\n";
	d->user_id = getuid();
	d->group_id = getgid();
	d->work_dir = cwd;
	d->environment = environ;
	for (d->env_size = 0; environ[d->env_size]; d->env_size++)
		;
	if (strcmp(qos, "-"))
		d->qos = qos;
	if (strcmp(partition, "-"))
		d->partition = partition;
	if (strcmp(gpus, "-")) {
		snprintf(k->tres, sizeof(k->tres), GPU_TRES, gpus);
		d->tres_per_node = k->tres;
	}
	return 0;
}

static int retryable(int e)
{
	return e == SLURM_COMMUNICATIONS_CONNECTION_ERROR ||
	       e == SLURM_COMMUNICATIONS_SEND_ERROR ||
	       e == SLURM_COMMUNICATIONS_RECEIVE_ERROR ||
	       e == SLURM_COMMUNICATIONS_SHUTDOWN_ERROR ||
	       e == SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT ||
	       e == SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR ||
	       e == SLURMCTLD_COMMUNICATIONS_SEND_ERROR ||
	       e == SLURMCTLD_COMMUNICATIONS_RECEIVE_ERROR ||
	       e == SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR || e == ETIMEDOUT ||
	       e == EPIPE || e == ECONNRESET;
}

/* One submission: its errno, 0 when a job was queued (unexpected). */
static int submit(struct kind *k)
{
	submit_response_msg_t *resp = NULL;
	int e = 0;

	for (int try = 0; try < 3; try++) {
		if (slurm_submit_batch_job(&k->d, &resp) == SLURM_SUCCESS) {
			fprintf(stderr, "queued: job %u\n",
				QD_RESP_JOB_ID(resp));
			slurm_free_submit_response_response_msg(resp);
			return 0;
		}
		e = errno;
		if (!retryable(e))
			break;
	}
	return e;
}

int main(int argc, char **argv)
{
	unsigned long denied = 0, refused = 0, other = 0, n;
	struct kind kinds[2];
	char cwd[4096], *end;

	if (!getcwd(cwd, sizeof(cwd))) {
		perror("submit_many: getcwd");
		return 1;
	}
	if (argc != 4 || !(n = strtoul(argv[1], &end, 10)) || *end ||
	    parse_kind(argv[2], cwd, &kinds[0]) ||
	    parse_kind(argv[3], cwd, &kinds[1])) {
		fprintf(stderr, "usage: submit_many N QOS,GPUS,PARTITION "
				"QOS,GPUS,PARTITION (\"-\": not sent)\n");
		return 2;
	}
	slurm_init(NULL);
	for (unsigned long i = 0; i < n; i++)
		for (int j = 0; j < 2; j++) {
			int e = submit(&kinds[j]);

			if (e == ESLURM_ACCOUNTING_POLICY) {
				denied++;
			} else if (e == ESLURM_INVALID_PARTITION_NAME) {
				refused++;
			} else {
				other++;
				if (e)
					fprintf(stderr, "submit_many: %s\n",
						slurm_strerror(e));
			}
		}
	printf("%lu %lu %lu\n", denied, refused, other);
	slurm_fini();
	return 0;
}
