/* SPDX-License-Identifier: GPL-2.0-or-later
 * GPU types' weights from a partition's TRESBillingWeights, read as Slurm
 * reads the string (shared/usage/gpu_weights.h), and where slurm.conf
 * gives a partition its weights (shared/usage/partition_billing.h).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "temp_dir.h"
#include "gpu_weights.h"
#include "partition_billing.h"

static struct qd_gpu_weights w;

/* The thousandths type weighs under str, or -1 where str is refused. */
static long weight(const char *str, const char *type)
{
	char err[256];

	if (qd_gpu_weights_parse(str, &w, err, sizeof(err)))
		return -1;
	return (long)qd_gpu_weight(&w, type);
}

Test(gpu_weights, typed_gpu_weights_count)
{
	const char *s = "CPU=1.0,Mem=0.25G,GRES/gpu:a100=1,GRES/gpu:v100=0.5,"
			"GRES/gpu:1g.10gb=0.143";

	cr_expect_eq(weight(s, "a100"), 1000);
	cr_expect_eq(weight(s, "v100"), 500);
	cr_expect_eq(weight(s, "1g.10gb"), 143);
	cr_expect_eq(w.n, 3);
	/* Names as Slurm compares TRES names: without regard to case. */
	cr_expect_eq(weight("gres/GPU:A100=2", "a100"), 2000);
}

Test(gpu_weights, everything_else_weighs_one)
{
	/* Not weighed, not known, or no typed weight at all. */
	cr_expect_eq(weight("GRES/gpu:a100=2", "h100"), 1000);
	cr_expect_eq(weight("GRES/gpu:a100=2", NULL), 1000);
	cr_expect_eq(weight("GRES/gpu:a100=2", ""), 1000);
	/* An untyped GRES/gpu weighs GPUs against CPUs, not each other. */
	cr_expect_eq(weight("CPU=1,GRES/gpu=4", "a100"), 1000);
	cr_expect_eq(w.n, 0);
	cr_expect_eq(weight("GRES/shard=0.25,license/matlab=3", "a100"), 1000);
	cr_expect_eq(weight("", "a100"), 1000);
	cr_expect_eq(weight(NULL, "a100"), 1000);
}

Test(gpu_weights, numbers_as_strtod_reads_them)
{
	cr_expect_eq(weight("GRES/gpu:a=0", "a"), 0);
	cr_expect_eq(weight("GRES/gpu:a=1e-1", "a"), 100);
	cr_expect_eq(weight("GRES/gpu:a=0.0005", "a"), 1, "to the nearest");
	cr_expect_eq(weight("GRES/gpu:a=1000", "a"), 1000000);
	/* A unit divides by 1024 a step, as Slurm's for a count. */
	cr_expect_eq(weight("GRES/gpu:a=2048K", "a"), 2000);
	cr_expect_eq(weight("GRES/gpu:a=1048576m", "a"), 1000);
	/* The later of two. */
	cr_expect_eq(weight("GRES/gpu:a=2,GRES/gpu:A=3", "a"), 3000);
}

Test(gpu_weights, refused_with_the_item)
{
	char err[256];

	cr_expect_eq(weight("GRES/gpu:a=-1", "a"), -1);
	cr_expect_eq(weight("GRES/gpu:a=1001", "a"), -1);
	cr_expect_eq(weight("GRES/gpu:a=nan", "a"), -1);
	cr_expect_eq(weight("GRES/gpu:a=1X", "a"), -1);
	cr_expect_eq(weight("GRES/gpu:a=1KB", "a"), -1);
	cr_expect_eq(weight("GRES/gpu:a=", "a"), -1);
	cr_expect_eq(weight("GRES/gpu:=1", "a"), -1);
	cr_expect_eq(weight("CPU", "a"), -1, "not TRES=WEIGHT");
	cr_expect_eq(weight("=1", "a"), -1);
	cr_expect_eq(qd_gpu_weights_parse("CPU=1,GRES/gpu:a100=lots", &w, err,
					  sizeof(err)),
		     -1);
	cr_expect(strstr(err, "GRES/gpu:a100=lots"), "%s", err);
	cr_expect_eq(w.n, 0, "nothing half-read stays");
}

static char dir[64];

/* Writes name in the test's directory; returns its path (static). */
static const char *file(const char *name, const char *text)
{
	static char path[128];

	temp_file(dir, sizeof(dir), "billing", name, text, path, sizeof(path));
	return path;
}

static void cleanup(void)
{
	temp_dir_remove(dir);
}

/* The weights slurm.conf text gives partition, "-" where none, "!" where
 * it is refused. */
static const char *billing(const char *conf, const char *partition)
{
	static char out[256];
	char err[256], path[128];
	int rv;

	snprintf(path, sizeof(path), "%s", file("slurm.conf", conf));
	rv = qd_partition_billing(path, partition, out, sizeof(out), err,
				  sizeof(err));
	return rv < 0 ? "!" : rv ? out : "-";
}

Test(partition_billing, own_line_default_and_none, .fini = cleanup)
{
	const char *conf =
	    "ClusterName=c # TRESBillingWeights=x\n"
	    "PartitionName=plain Nodes=n1\n"
	    "PartitionName=DEFAULT TRESBillingWeights=\"GRES/gpu:a=0.5\"\n"
	    "PartitionName=gpu Nodes=n[1-2] TRESBillingWeights=CPU=1,"
	    "GRES/gpu:a100=2\n"
	    "partitionname=later nodes=n1\n"
	    "PartitionName=commented Nodes=n1 #TRESBillingWeights=CPU=2\n";

	cr_expect_str_eq(billing(conf, "gpu"), "CPU=1,GRES/gpu:a100=2");
	/* DEFAULT applies to the lines below it, as in Slurm. */
	cr_expect_str_eq(billing(conf, "plain"), "-");
	cr_expect_str_eq(billing(conf, "later"), "GRES/gpu:a=0.5");
	cr_expect_str_eq(billing(conf, "commented"), "GRES/gpu:a=0.5");
	cr_expect_str_eq(billing(conf, "missing"), "-");
	cr_expect_str_eq(billing(conf, ""), "-");
	/* Partition names are compared as written. */
	cr_expect_str_eq(billing(conf, "GPU"), "-");
}

Test(partition_billing, continued_lines_and_includes, .fini = cleanup)
{
	file("parts.conf", "PartitionName=inc Nodes=n1 "
			   "TRESBillingWeights=GRES/gpu:v100=0.5\n");
	cr_expect_str_eq(billing("PartitionName=cont Nodes=n1 \\\n"
				 "  TRESBillingWeights=GRES/gpu:a=3\n"
				 "PartitionName=after TRESBillingWeights=x=1\n",
				 "cont"),
			 "GRES/gpu:a=3");
	cr_expect_str_eq(billing("PartitionName=cont Nodes=n1 \\\n"
				 "  TRESBillingWeights=GRES/gpu:a=3\n"
				 "PartitionName=after TRESBillingWeights=x=1\n",
				 "after"),
			 "x=1");
	cr_expect_str_eq(billing("Include parts.conf\n", "inc"),
			 "GRES/gpu:v100=0.5");
	cr_expect_str_eq(billing("Include missing*.conf\n", "inc"), "-");
	/* An Include of itself ends, refused. */
	cr_expect_str_eq(billing("Include slurm.conf\n", "inc"), "!");
}

static int each_seen(const char *partition, const char *nodes,
		     const char *weights, void *arg)
{
	char *out = arg;

	snprintf(out + strlen(out), 512 - strlen(out), "%s[%s]%s;", partition,
		 nodes, weights);
	return 0;
}

Test(partition_billing, every_partition_with_nodes, .fini = cleanup)
{
	char seen[512] = "", err[256];
	const char *path = file(
	    "slurm.conf", "PartitionName=a Nodes=n1 TRESBillingWeights=x=1\n"
			  "PartitionName=DEFAULT Nodes=n[1-2] "
			  "TRESBillingWeights=GRES/gpu:a=2\n"
			  "PartitionName=b\n"
			  "PartitionName=c Nodes=ALL TRESBillingWeights=\n");

	cr_assert_eq(
	    qd_partition_billing_each(path, each_seen, seen, err, sizeof(err)),
	    0);
	cr_expect_str_eq(seen, "a[n1]x=1;b[n[1-2]]GRES/gpu:a=2;c[ALL];");
}
