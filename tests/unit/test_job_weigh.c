/* SPDX-License-Identifier: GPL-2.0-or-later
 * A job's GPUs on a node weighed by its partition's TRESBillingWeights for
 * their gres.conf types (node/job_weigh.h): whole GPUs each at their own
 * weight, a share of a GPU at its part of the GPU's weight.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_devices.h"
#include "temp_dir.h"
#include "job_weigh.h"

static char dir[64], slurm_conf[128], gres_conf[128];

/* Writes the test's slurm.conf or gres.conf. */
static void write_conf(const char *name, const char *text)
{
	char path[128];

	temp_file(dir, sizeof(dir), "weigh", name, text, path, sizeof(path));
}

static void setup(void)
{
	write_conf("slurm.conf",
		   "PartitionName=plain Nodes=n1\n"
		   "PartitionName=cpu Nodes=n1 TRESBillingWeights=CPU=1,"
		   "GRES/gpu=4\n"
		   "PartitionName=gpu Nodes=n1 TRESBillingWeights=CPU=1,"
		   "GRES/gpu:a100=1,GRES/gpu:v100=0.5,GRES/gpu:1g.10gb=0.125\n"
		   "PartitionName=bad Nodes=n1 TRESBillingWeights=GRES/gpu:"
		   "a100=much\n");
	/* GPUs 0-1 a100, 2-3 v100, 4 with no type, 5 a MIG slice. */
	write_conf("gres.conf",
		   "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia[0-1]\n"
		   "NodeName=n1 Name=gpu Type=v100 File=/dev/nvidia[2-3]\n"
		   "NodeName=n1 Name=gpu File=/dev/nvidia4\n"
		   "NodeName=n1 Name=gpu Type=1g.10gb "
		   "MultipleFiles=/dev/nvidia5,/dev/nvidia-caps/nvidia-cap21\n"
		   "NodeName=n1 Name=shard Count=16\n");
	snprintf(slurm_conf, sizeof(slurm_conf), "%s/slurm.conf", dir);
	snprintf(gres_conf, sizeof(gres_conf), "%s/gres.conf", dir);
}

static void teardown(void)
{
	temp_dir_remove(dir);
}

static uint32_t m;
static size_t untyped;

/* qd_job_weigh's answer for partition and GPUs, *m starting at mgpus. */
static int weigh(const char *partition, const char *gpus, uint32_t mgpus)
{
	struct qd_job_weigh j = {slurm_conf, gres_conf, "n1", partition, gpus};
	char err[512];
	int rv;

	m = mgpus;
	rv = qd_job_weigh(&j, &m, &untyped, err, sizeof(err));
	if (rv < 0)
		cr_log_info("%s", err);
	return rv;
}

TestSuite(job_weigh, .init = setup, .fini = teardown);

Test(job_weigh, whole_gpus_at_their_types_weight)
{
	cr_expect_eq(weigh("gpu", "0", 1000), 1);
	cr_expect_eq(m, 1000);
	cr_expect_eq(weigh("gpu", "2", 1000), 1);
	cr_expect_eq(m, 500);
	cr_expect_eq(weigh("gpu", "0,1,2", 3000), 1);
	cr_expect_eq(m, 2500);
	/* A MIG slice's profile is its type. */
	cr_expect_eq(weigh("gpu", "5", 1000), 1);
	cr_expect_eq(m, 125);
	cr_expect_eq(untyped, 0);
}

Test(job_weigh, a_share_at_its_part_of_its_gpus_weight)
{
	/* shard:2 of a v100's 4. */
	cr_expect_eq(weigh("gpu", "3", 500), 1);
	cr_expect_eq(m, 250);
	/* A thousandth at least, where the weight is tiny. */
	cr_expect_eq(weigh("gpu", "5", 1), 1);
	cr_expect_eq(m, 1);
}

Test(job_weigh, untyped_gpus_and_unweighed_partitions_weigh_one)
{
	cr_expect_eq(weigh("gpu", "4", 1000), 1);
	cr_expect_eq(m, 1000);
	cr_expect_eq(untyped, 1);
	cr_expect_eq(weigh("gpu", "2,4,9", 3000), 1, "9: no such GPU");
	cr_expect_eq(m, 2500);
	cr_expect_eq(untyped, 2);
	cr_expect_eq(weigh("plain", "2", 1000), 0);
	cr_expect_eq(m, 1000);
	cr_expect_eq(weigh("cpu", "2", 1000), 0, "an untyped GRES/gpu=");
	cr_expect_eq(m, 1000);
	cr_expect_eq(weigh("nosuch", "2", 1000), 0);
	cr_expect_eq(m, 1000);
}

Test(job_weigh, what_does_not_read_leaves_the_charge)
{
	cr_expect_eq(weigh("bad", "2", 1000), -1);
	cr_expect_eq(m, 1000);
	cr_expect_eq(weigh("gpu", "2,x", 2000), -1);
	cr_expect_eq(m, 2000);
	write_conf("gres.conf", "Include other.conf\n");
	cr_expect_eq(weigh("gpu", "2", 1000), -1);
	cr_expect_eq(m, 1000);
}

/* doctor's finding for n1's GPUs as gres.conf gives them. */
static int finding(char *why, size_t len)
{
	struct qd_gpus gpus = {0};
	char err[512];
	int rv;

	cr_assert_eq(
	    qd_gres_conf_load(gres_conf, "n1", &gpus, err, sizeof(err)), 0,
	    "%s", err);
	rv = qd_node_weights_check(slurm_conf, "n1", &gpus, why, len);
	qd_gpus_free(&gpus);
	return rv;
}

Test(job_weigh, doctor_names_the_first_partition_to_fix)
{
	char why[1024];

	/* gpu weighs types, and GPU 4 has none. */
	cr_expect_eq(finding(why, sizeof(why)), 1);
	cr_expect_str_eq(why, "partition gpu weighs GPU types, and 1 of n1's "
			      "GPUs have no Type= in gres.conf: they weigh 1 "
			      "in usage records");
	write_conf("gres.conf",
		   "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia[0-1]\n");
	cr_expect_eq(finding(why, sizeof(why)), 1);
	cr_expect(strstr(why, "partition bad: TRESBillingWeights: "
			      "GRES/gpu:a100=much: the weight is not a number "
			      "from 0 to 1000: its GPUs weigh 1"),
		  "%s", why);
	/* Partitions of other nodes are not n1's concern. */
	write_conf("slurm.conf", "PartitionName=bad Nodes=n[2-3] "
				 "TRESBillingWeights=GRES/gpu:a100=much\n"
				 "PartitionName=all Nodes=ALL "
				 "TRESBillingWeights=GRES/gpu:a100=2\n");
	cr_expect_eq(finding(why, sizeof(why)), 0, "%s", why);
}
