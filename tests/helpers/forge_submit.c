/* SPDX-License-Identifier: GPL-2.0-or-later
 * forge_submit QOS VALUE: submits, as the calling user, a one-node batch
 * job with one GPU (sleep 2) under QOS ("-": its association's default),
 * whose SPANK environment forges qosdeny's QoS label both ways a user can
 * send it through libslurm: SPANK_QOSDENY_QOS=VALUE, and QOSDENY_QOS=VALUE,
 * which slurmd would rename so. No Slurm command sends these. Prints the
 * job id.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "slurm_ids.h"

int main(int argc, char **argv)
{
	char spank_form[256], bare_form[256], cwd[4096];
	char *spank[] = {spank_form, bare_form};
	char *env[] = {"PATH=/usr/bin:/bin", NULL};
	submit_response_msg_t *resp = NULL;
	job_desc_msg_t d;

	if (argc != 3) {
		fprintf(stderr, "usage: forge_submit QOS|- VALUE\n");
		return 2;
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		perror("forge_submit: getcwd");
		return 1;
	}
	snprintf(spank_form, sizeof(spank_form), "SPANK_QOSDENY_QOS=%s",
		 argv[2]);
	snprintf(bare_form, sizeof(bare_form), "QOSDENY_QOS=%s", argv[2]);
	slurm_init(NULL);
	slurm_init_job_desc_msg(&d);
	d.name = "forge";
	d.script = "#!/bin/sh\nsleep 2\n";
	d.user_id = getuid();
	d.group_id = getgid();
	d.work_dir = cwd;
	d.min_nodes = d.max_nodes = 1;
	d.tres_per_node = "gres:gpu:1";
	d.environment = env;
	d.env_size = 1;
	d.spank_job_env = spank;
	d.spank_job_env_size = 2;
	if (strcmp(argv[1], "-"))
		d.qos = argv[1];
	if (slurm_submit_batch_job(&d, &resp)) {
		slurm_perror("forge_submit");
		return 1;
	}
	printf("%u\n", QD_RESP_JOB_ID(resp));
	slurm_free_submit_response_response_msg(resp);
	return 0;
}
