/* SPDX-License-Identifier: GPL-2.0-or-later
 * submit_as_uid UID GID: submits a held batch job whose description names
 * another user (job_desc.user_id), straight through libslurm, past sbatch's
 * own "--uid only permitted by root user" check, so that slurmctld's check
 * is what is tested. Prints the job id, or slurmctld's error and exits 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "slurm_ids.h"

int main(int argc, char **argv)
{
	job_desc_msg_t desc;
	submit_response_msg_t *resp = NULL;
	char *env[] = {"PATH=/bin:/usr/bin", NULL};

	if (argc != 3) {
		fprintf(stderr, "usage: submit_as_uid UID GID\n");
		return 2;
	}
	slurm_init(NULL);
	slurm_init_job_desc_msg(&desc);
	desc.user_id = (uint32_t)strtoul(argv[1], NULL, 10);
	desc.group_id = (uint32_t)strtoul(argv[2], NULL, 10);
	desc.name = "qd-uid-spoof";
	desc.script = "#!/bin/sh\ntrue\n";
	desc.work_dir = "/tmp";
	desc.environment = env;
	desc.env_size = 1;
	desc.min_nodes = 1;
	desc.priority = 0; /* held */
	if (slurm_submit_batch_job(&desc, &resp) != SLURM_SUCCESS) {
		printf("error: %s\n", slurm_strerror(errno));
		return 1;
	}
	printf("%u\n", QD_RESP_JOB_ID(resp));
	slurm_free_submit_response_response_msg(resp);
	return 0;
}
