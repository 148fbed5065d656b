/* SPDX-License-Identifier: GPL-2.0-or-later
 * Which files are this node's GPUs (gres.conf, gpu_devices=, the fallback)
 * and which of them a step's GPU indices name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "gpu_devices.h"
#include "gpu_order.h"
#include "gres_plugin.h"

static struct qd_paths got;
/* The GPUs of gres.conf or qd_node_gpus; their files copied into got. */
static struct qd_gpus gg;
static char err[1024];
static char dir[64];

static void reset(void)
{
	qd_paths_free(&got);
	qd_gpus_free(&gg);
	err[0] = '\0';
}

/* got: gg's files, in order. */
static void files_of_gpus(void)
{
	for (size_t i = 0; i < gg.files.n; i++)
		cr_assert_eq(qd_paths_add(&got, gg.files.v[i]), 0);
}

static void cleanup(void)
{
	char p[128];
	const char *const names[] = {"nvidia1", "nvidia2", "nvidia10",
				     "nvidia9", "gres.conf"};

	reset();
	if (!dir[0])
		return;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
	dir[0] = '\0';
}

/* got holds exactly these names, in this order (NULL-terminated). */
static void expect_names(const char *const *want)
{
	size_t n = 0;

	while (want[n])
		n++;
	cr_assert_eq(got.n, n, "%zu names, expected %zu (first '%s')", got.n, n,
		     got.n ? got.v[0] : "");
	for (size_t i = 0; i < n; i++)
		cr_assert_str_eq(got.v[i], want[i], "name %zu", i);
}

#define EXPECT(...) expect_names((const char *const[]){__VA_ARGS__, NULL})

static void expand_ok(const char *spec)
{
	reset();
	cr_assert_eq(qd_expand_list(spec, &got, err, sizeof(err)), 0,
		     "'%s': %s", spec, err);
}

static void expand_bad(const char *spec, const char *why)
{
	reset();
	cr_assert_eq(qd_expand_list(spec, &got, err, sizeof(err)), -1,
		     "'%s' accepted", spec);
	cr_assert(strstr(err, why), "'%s': '%s' does not say '%s'", spec, err,
		  why);
}

TestSuite(expand, .fini = cleanup);

Test(expand, ranges_and_lists)
{
	expand_ok("/dev/nvidia[0-3]");
	EXPECT("/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia3");
	expand_ok("/dev/nvidia[0,2-3]");
	EXPECT("/dev/nvidia0", "/dev/nvidia2", "/dev/nvidia3");
	expand_ok("/dev/nvidia0,/dev/nvidia5");
	EXPECT("/dev/nvidia0", "/dev/nvidia5");
	expand_ok("x,y[1-2]");
	EXPECT("x", "y1", "y2");
	expand_ok("n7");
	EXPECT("n7");
}

Test(expand, zero_padding_is_kept)
{
	expand_ok("n[08-10]");
	EXPECT("n08", "n09", "n10");
	expand_ok("n[8-10]");
	EXPECT("n8", "n9", "n10");
}

Test(expand, several_brackets_multiply)
{
	expand_ok("r[1-2]n[3-4]");
	EXPECT("r1n3", "r1n4", "r2n3", "r2n4");
}

Test(expand, malformed_lists_are_errors)
{
	expand_bad("n[1-", "unbalanced '['");
	expand_bad("n1]", "unbalanced ']'");
	expand_bad("n[3-1]", "bad range '[3-1]'");
	expand_bad("n[a]", "bad range '[a]'");
	expand_bad("n[]", "bad range '[]'");
	expand_bad("n[1-2,]", "bad range");
	expand_bad("a,,b", "empty name");
	expand_bad("n[0-99999999]", "too large");
	expand_bad("n[0-9999999999]", "bad range");
}

Test(expand, brackets_per_name_are_bounded)
{
	char name[3 * 17 + 2] = "n";

	for (int i = 0; i < 16; i++)
		strcat(name, "[0]");
	expand_ok(name);
	EXPECT("n0000000000000000");
	strcat(name, "[0]");
	expand_bad(name, "more than 16 [ranges] in one name");
}

Test(expand, node_lists)
{
	cr_assert_eq(qd_nodelist_has("n[1-2]", "n1", err, sizeof(err)), 1);
	cr_assert_eq(qd_nodelist_has("n[1-2]", "n2", err, sizeof(err)), 1);
	cr_assert_eq(qd_nodelist_has("n[1-2]", "n3", err, sizeof(err)), 0);
	cr_assert_eq(qd_nodelist_has("n[1-2]", "n", err, sizeof(err)), 0);
	cr_assert_eq(
	    qd_nodelist_has("tux[0-2],tux[4-15]", "tux10", err, sizeof(err)),
	    1);
	cr_assert_eq(
	    qd_nodelist_has("tux[0-2],tux[4-15]", "tux3", err, sizeof(err)), 0);
	cr_assert_eq(qd_nodelist_has("gpu[01-04]", "gpu3", err, sizeof(err)),
		     0);
	cr_assert_eq(qd_nodelist_has("n[1-", "n1", err, sizeof(err)), -1);
}

/* ---- gres.conf ---- */

static void gres_ok(const char *text, const char *node)
{
	reset();
	cr_assert_eq(
	    qd_gres_conf_parse("gres.conf", text, node, &gg, err, sizeof(err)),
	    0, "%s", err);
	files_of_gpus();
}

static void gres_bad(const char *text, const char *why)
{
	reset();
	cr_assert_eq(
	    qd_gres_conf_parse("gres.conf", text, "n1", &gg, err, sizeof(err)),
	    -1, "accepted:\n%s", text);
	cr_assert(strstr(err, why), "'%s' does not say '%s'", err, why);
}

TestSuite(gres_conf, .fini = cleanup);

/* As tests/cluster writes it: both nodes on one host, four GPUs each. */
static const char cluster_conf[] =
    "AutoDetect=off\n"
    "NodeName=n1 Name=gpu Type=a100 File=/d/nvidia[0-3]\n"
    "NodeName=n2 Name=gpu Type=v100 File=/d/nvidia[4-7]\n";

Test(gres_conf, each_node_gets_its_own_lines)
{
	gres_ok(cluster_conf, "n1");
	EXPECT("/d/nvidia0", "/d/nvidia1", "/d/nvidia2", "/d/nvidia3");
	gres_ok(cluster_conf, "n2");
	EXPECT("/d/nvidia4", "/d/nvidia5", "/d/nvidia6", "/d/nvidia7");
	gres_ok(cluster_conf, "n3");
	cr_assert_eq(got.n, 0);
}

Test(gres_conf, node_ranges)
{
	static const char conf[] =
	    "NodeName=tux[0-2]  Name=gpu File=/dev/nvidia[0-3]\n"
	    "NodeName=tux3  Name=gpu File=/dev/nvidia[0,2-3]\n"
	    "NodeName=tux[4-15]  Name=gpu File=/dev/nvidia[0-1]\n";

	gres_ok(conf, "tux3");
	EXPECT("/dev/nvidia0", "/dev/nvidia2", "/dev/nvidia3");
	gres_ok(conf, "tux12");
	EXPECT("/dev/nvidia0", "/dev/nvidia1");
}

Test(gres_conf, name_records_come_before_nodename_records)
{
	/* Slurm 22.05 collects the Name= records, then the NodeName= ones. */
	static const char conf[] =
	    "NodeName=n1 Name=gpu File=/dev/nvidia2\n"
	    "Name=gpu Type=tesla File=/dev/nvidia0\n"
	    "Name=gpu Type=tesla File=/dev/nvidia1\n"
	    "NodeName=n[1-2] Name=gpu File=/dev/nvidia3\n";

	gres_ok(conf, "n1");
	EXPECT("/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia3");
	gres_ok(conf, "n2");
	EXPECT("/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia3");
}

Test(gres_conf, only_gpus)
{
	static const char conf[] =
	    "Name=mps Count=100 File=/dev/nvidia0\n"
	    "Name=shard Count=8 File=/dev/nvidia1\n"
	    "Name=gpu File=/dev/nvidia0\n"
	    "NodeName=n1 Name=bandwidth Type=lustre Count=4G "
	    "Flags=CountOnly\n"
	    "NodeName=n1 Name=GPU File=/dev/nvidia1\n";

	gres_ok(conf, "n1");
	EXPECT("/dev/nvidia0", "/dev/nvidia1");
}

Test(gres_conf, syntax_as_slurm_reads_it)
{
	static const char conf[] =
	    "# GPUs\n"
	    "\n"
	    "nodename=n1 NAME=gpu \\\n"
	    "  file=/dev/nvidia[0-1]   # two\n"
	    "\tNodeName=\"n1\" Name=gpu Files=\"/dev/nvidia2\" Cores=0-3\n"
	    "NodeName=n1 AutoDetect=off Name=gpu File=/dev/nvidia3 "
	    "Links=-1,0\r\n";

	gres_ok(conf, "n1");
	EXPECT("/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia3");
}

/*
 * Found by fuzz_gres: of a line ending in two backslashes one joined the
 * next line and the other stayed at the end of the record, where it joined
 * the line after an empty or comment-only one too, so that adding a comment
 * line changed the files.
 */
Test(gres_conf, only_a_lines_own_backslash_joins_the_next)
{
	gres_ok("Name=gpu File=/dev/a\\\\\n# x\nName=gpu File=/dev/b\n", "n1");
	EXPECT("/dev/a\\", "/dev/b");
	gres_ok("Name=gpu File=/dev/a\\\\\n\nName=gpu File=/dev/b\n", "n1");
	EXPECT("/dev/a\\", "/dev/b");
}

Test(gres_conf, records_without_files_are_left_to_autodetect)
{
	static const char conf[] = "AutoDetect=nvml\n"
				   "NodeName=n1 AutoDetect=nvml\n"
				   "Name=gpu Type=a100 Count=4\n";

	gres_ok(conf, "n1");
	cr_assert_eq(got.n, 0);
}

Test(gres_conf, what_it_cannot_read_is_an_error_with_its_line)
{
	gres_bad("Name=gpu File=/dev/nvidia0\nInclude /etc/slurm/more.conf\n",
		 "gres.conf:2: not Key=Value: 'Include'");
	gres_bad("\n\nFoo=bar Name=gpu File=/dev/nvidia0\n",
		 "gres.conf:3: cannot read a record starting with 'Foo'");
	gres_bad("NodeName=n[1- Name=gpu File=/dev/nvidia0\n",
		 "gres.conf:1: NodeName=n[1-: unbalanced '['");
	gres_bad("# x\nNodeName=n1 Name=gpu \\\nFile=/dev/nvidia[0-\n",
		 "gres.conf:2: File=/dev/nvidia[0-: unbalanced '['");
}

/* A MIG node's gres.conf as NVIDIA's and Slurm's docs lay it out: each
 * slice its parent GPU's device file and its GPU and compute instances'
 * nvidia-caps files. */
Test(gres_conf, a_mig_slice_is_one_gpu_of_all_its_files)
{
	static const char conf[] =
	    "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia0\n"
	    "NodeName=n1 Name=gpu Type=1g.10gb "
	    "MultipleFiles=/dev/nvidia1,/dev/nvidia-caps/nvidia-cap[12-13]\n"
	    "NodeName=n1 Name=gpu Type=1g.10gb MultipleFiles=\"/dev/nvidia1,"
	    "/dev/nvidia-caps/nvidia-cap21,/dev/nvidia-caps/nvidia-cap22\"\n"
	    "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia[2-3]\n";

	gres_ok(conf, "n1");
	cr_assert_eq(gg.n, 5);
	EXPECT("/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap12",
	       "/dev/nvidia-caps/nvidia-cap13", "/dev/nvidia1",
	       "/dev/nvidia-caps/nvidia-cap21", "/dev/nvidia-caps/nvidia-cap22",
	       "/dev/nvidia2", "/dev/nvidia3");
	cr_assert_eq(gg.first[1], 1);
	cr_assert_eq(gg.first[2], 4, "GPU 1: three files");
	cr_assert_eq(gg.first[3], 7, "GPU 2: three files");
	cr_assert_eq(gg.first[4], 8);
	cr_assert_eq(gg.first[5], 9);
}

Test(gres_conf, what_slurmd_refuses_in_multiple_files_is_refused)
{
	gres_bad("Name=gpu MultipleFiles=/dev/nvidia0\n",
		 "gres.conf:1: MultipleFiles=/dev/nvidia0 names one file; use "
		 "File=");
	gres_bad("\nName=gpu File=/dev/nvidia0 "
		 "MultipleFiles=/dev/nvidia0,/dev/nvidia-caps/nvidia-cap12\n",
		 "gres.conf:2: File= and MultipleFiles= in one record");
	gres_bad(
	    "Name=gpu MultipleFiles=/dev/nvidia0,/dev/nvidia-caps/c[1-\n",
	    "gres.conf:1: MultipleFiles=/dev/nvidia0,/dev/nvidia-caps/c[1-: "
	    "unbalanced '['");
}

/* A record that fails half-way leaves none of its files behind: the GPUs
 * before it are as they were, each with its own files. */
Test(gres_conf, a_failed_record_leaves_the_gpus_before_it_whole)
{
	gres_bad("Name=gpu File=/dev/nvidia[0-1]\n"
		 "Name=gpu File=/dev/nvidia[2-3],/dev/x[1-\n",
		 "gres.conf:2: File=/dev/nvidia[2-3],/dev/x[1-: unbalanced");
	cr_assert_eq(gg.n, 2);
	cr_assert_eq(gg.files.n, 2);
	cr_assert_eq(gg.first[2], 2);
	gres_bad("Name=gpu File=/dev/nvidia0\n"
		 "Name=gpu MultipleFiles=/dev/nvidia1,/dev/c[1-\n",
		 "gres.conf:2: MultipleFiles=");
	cr_assert_eq(gg.n, 1);
	cr_assert_eq(gg.files.n, 1);
	cr_assert_str_eq(gg.files.v[0], "/dev/nvidia0");
}

Test(gres_conf, a_missing_file_lists_no_gpus)
{
	reset();
	cr_assert_eq(qd_gres_conf_load("/nonexistent/gres.conf", "n1", &gg, err,
				       sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(gg.n, 0);
}

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/qd-grestest.XXXXXX");
	cr_assert(mkdtemp(dir));
}

static void write_file(const char *base, const char *text)
{
	char p[128];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, base);
	f = fopen(p, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

Test(gres_conf, loads_a_file)
{
	char p[128];

	make_dir();
	write_file("gres.conf", cluster_conf);
	snprintf(p, sizeof(p), "%s/gres.conf", dir);
	cr_assert_eq(qd_gres_conf_load(p, "n2", &gg, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(gg.n, 4);
	cr_assert_str_eq(gg.files.v[0], "/d/nvidia4");
}

Test(gres_conf, an_unreadable_file_is_an_error)
{
	make_dir();
	/* A directory reads as EISDIR. */
	cr_assert_eq(qd_gres_conf_load(dir, "n1", &gg, err, sizeof(err)), -1);
	cr_assert(strstr(err, "Is a directory"), "%s", err);
}

/* Whether a job on the node may hold part of a GPU: its prolog asks
 * slurmctld only then (job_held.h). */
Test(gres_conf, shares_are_found_for_their_nodes_alone)
{
	char p[128];

	make_dir();
	snprintf(p, sizeof(p), "%s/gres.conf", dir);
	cr_expect_eq(qd_gres_conf_shares(p, "n1"), QD_SHARES_NONE, "no file");
	write_file("gres.conf", "Name=gpu File=/dev/nvidia[0-3]\n");
	cr_expect_eq(qd_gres_conf_shares(p, "n1"), QD_SHARES_NONE,
		     "GPUs alone");
	write_file("gres.conf", "Name=gpu File=/dev/nvidia[0-3]\n"
				"NodeName=n[2-3] Name=shard Count=16\n");
	cr_expect_eq(qd_gres_conf_shares(p, "n1"), QD_SHARES_ELSEWHERE,
		     "another node's");
	cr_expect_eq(qd_gres_conf_shares(p, "n2"), QD_SHARES_HERE);
	write_file("gres.conf", "# shards\nName=MPS Count=400 \\\n"
				"  File=/dev/nvidia0\n");
	cr_expect_eq(qd_gres_conf_shares(p, "n1"), QD_SHARES_HERE,
		     "MPS, any case");
	write_file("gres.conf", "NodeName=n[1- Name=shard Count=4\n");
	cr_expect_eq(qd_gres_conf_shares(p, "n1"), QD_SHARES_HERE,
		     "unreadable: ask");
	write_file("gres.conf", "Include /etc/slurm/more.conf\n");
	cr_expect_eq(qd_gres_conf_shares(p, "n1"), QD_SHARES_HERE,
		     "unparsed: ask");
}

/* What gres.conf writes of a node's shares, for doctor to compare with
 * what slurmd takes. */
Test(gres_conf, share_counts_of_a_node)
{
	unsigned long long shards, mps;
	char p[128];

	make_dir();
	snprintf(p, sizeof(p), "%s/gres.conf", dir);
	write_file("gres.conf",
		   "Name=gpu File=/dev/nvidia[0-3]\n"
		   "NodeName=n1 Name=shard Count=4 File=/dev/nvidia0\n"
		   "NodeName=n[1-2] Name=shard Count=1K File=/dev/nvidia1\n"
		   "NodeName=n2 Name=mps Count=100\n");
	cr_assert_eq(
	    qd_gres_conf_share_counts(p, "n1", &shards, &mps, err, sizeof(err)),
	    0, "%s", err);
	cr_expect_eq(shards, 1028);
	cr_expect_eq(mps, 0);
	cr_assert_eq(
	    qd_gres_conf_share_counts(p, "n2", &shards, &mps, err, sizeof(err)),
	    0, "%s", err);
	cr_expect_eq(shards, 1024);
	cr_expect_eq(mps, 100);
	write_file("gres.conf", "NodeName=n1 Name=shard File=/dev/nvidia0\n");
	cr_expect_eq(
	    qd_gres_conf_share_counts(p, "n1", &shards, &mps, err, sizeof(err)),
	    -1);
	cr_expect(strstr(err, "gres.conf:1: Name=shard without a Count="), "%s",
		  err);
}

/* A share's File= is one of its node's GPU files by name, as Slurm
 * matches them (gres_c_s.c discards a share without one). */
Test(gres_conf, share_on_no_gpu)
{
	char p[128], msg[512];

	make_dir();
	snprintf(p, sizeof(p), "%s/gres.conf", dir);
	write_file("gres.conf",
		   "Name=gpu File=/dev/nvidia[0-3]\n"
		   "NodeName=n1 Name=shard Count=8 File=/dev/nvidia[0-1]\n"
		   "NodeName=n2 Name=shard Count=4 File=/dev/nvidia[3-4]\n"
		   "Name=mps Count=100\n");
	cr_expect_eq(qd_gres_conf_stray_share(p, "n1", msg, sizeof(msg)), 0,
		     "%s", msg);
	cr_assert_eq(qd_gres_conf_stray_share(p, "n2", msg, sizeof(msg)), 1);
	cr_expect(strstr(msg, "gres.conf:3: Name=shard File=/dev/nvidia4 is "
			      "no GPU of n2's"),
		  "%s", msg);
	/* The same device by another name is no match for Slurm. */
	write_file("gres.conf", "Name=gpu File=/dev/nvidia0\n"
				"Name=mps Count=100 File=/dev/./nvidia0\n");
	cr_expect_eq(qd_gres_conf_stray_share(p, "n1", msg, sizeof(msg)), 1);
	/* MIG slices are matched whole by Slurm: not judged. */
	write_file("gres.conf",
		   "Name=gpu MultipleFiles=/dev/nvidia0,/dev/nvidia-caps/"
		   "nvidia-cap21\n"
		   "Name=shard Count=2 File=/dev/nvidia0\n");
	cr_expect_eq(qd_gres_conf_stray_share(p, "n1", msg, sizeof(msg)), 0,
		     "%s", msg);
	write_file("gres.conf", "Name=gpu File=/dev/nvidia[0-\n");
	cr_expect_eq(qd_gres_conf_stray_share(p, "n1", msg, sizeof(msg)), -1);
	unlink(p);
	cr_expect_eq(qd_gres_conf_stray_share(p, "n1", msg, sizeof(msg)), 0);
}

/* ---- gpu_devices= and the fallback ---- */

TestSuite(gpu_devices, .fini = cleanup);

static void pattern_ok(const char *pattern, const char *node)
{
	reset();
	cr_assert_eq(qd_gpu_pattern(pattern, node, &got, err, sizeof(err)), 0,
		     "'%s': %s", pattern, err);
}

Test(gpu_devices, node_name_and_ranges)
{
	pattern_ok("/run/fake/%n/nvidia[0-1]", "n2");
	EXPECT("/run/fake/n2/nvidia0", "/run/fake/n2/nvidia1");
	pattern_ok("/dev/nvidia0,/x/%n-gpu[2-3],/y/100%%", "n1");
	EXPECT("/dev/nvidia0", "/x/n1-gpu2", "/x/n1-gpu3", "/y/100%");
}

Test(gpu_devices, bad_patterns)
{
	reset();
	cr_assert_eq(qd_gpu_pattern("/dev/gpu%d", "n1", &got, err, sizeof(err)),
		     -1);
	cr_assert(strstr(err, "only %n is replaced"), "%s", err);
	cr_assert_eq(
	    qd_gpu_pattern("/dev/nvidia[0-", "n1", &got, err, sizeof(err)), -1);
	cr_assert(strstr(err, "unbalanced"), "%s", err);
}

static void make_dev(const char *base, unsigned minor)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/%s", dir, base);
	cr_assert_eq(mknod(p, S_IFCHR | 0600, makedev(195, minor)), 0,
		     "mknod: %s", strerror(errno));
}

Test(gpu_devices, a_glob_takes_character_devices_by_number)
{
	char pat[128], p[128];

	if (geteuid())
		cr_skip_test("needs root for mknod");
	make_dir();
	make_dev("nvidia2", 0);
	make_dev("nvidia10", 1);
	make_dev("nvidia1", 2);
	write_file("nvidia9", "not a device");
	snprintf(pat, sizeof(pat), "%s/nvidia[0-9]*", dir);
	pattern_ok(pat, "n1");
	cr_assert_eq(got.n, 3);
	snprintf(p, sizeof(p), "%s/nvidia2", dir);
	cr_assert_str_eq(got.v[0], p);
	snprintf(p, sizeof(p), "%s/nvidia10", dir);
	cr_assert_str_eq(got.v[1], p);
	snprintf(p, sizeof(p), "%s/nvidia1", dir);
	cr_assert_str_eq(got.v[2], p);
	snprintf(pat, sizeof(pat), "%s/none*", dir);
	pattern_ok(pat, "n1");
	cr_assert_eq(got.n, 0);
}

Test(gpu_devices, the_option_wins_then_gres_conf_then_the_fallback)
{
	const char *source;
	char conf[128];

	make_dir();
	write_file("gres.conf", cluster_conf);
	snprintf(conf, sizeof(conf), "%s/gres.conf", dir);

	cr_assert_eq(qd_node_gpus("/o/gpu[0-1]", conf, "n1", &gg, &source, err,
				  sizeof(err)),
		     0, "%s", err);
	cr_assert_str_eq(source, "gpu_devices=");
	cr_assert_eq(gg.n, 2, "one GPU a file");
	files_of_gpus();
	EXPECT("/o/gpu0", "/o/gpu1");

	reset();
	cr_assert_eq(
	    qd_node_gpus(NULL, conf, "n1", &gg, &source, err, sizeof(err)), 0,
	    "%s", err);
	cr_assert_str_eq(source, conf);
	cr_assert_eq(gg.n, 4);

	reset();
	cr_assert_eq(
	    qd_node_gpus(NULL, conf, "other", &gg, &source, err, sizeof(err)),
	    0, "%s", err);
	cr_assert_str_eq(source, QD_GPU_FALLBACK);

	reset();
	cr_assert_eq(qd_node_gpus("/o/gpu[0-", conf, "n1", &gg, &source, err,
				  sizeof(err)),
		     -1);
	cr_assert(strstr(err, "gpu_devices=/o/gpu[0-: unbalanced"), "%s", err);
}

/* ---- a step's GPUs ---- */

TestSuite(gpu_select, .fini = cleanup);

static struct qd_gpus node4;

static void node_gpus(void)
{
	char p[32], *v[] = {p};

	for (int i = 4; i < 8; i++) {
		snprintf(p, sizeof(p), "/d/nvidia%d", i);
		cr_assert_eq(qd_gpus_add(&node4, v, 1, err, sizeof(err)), 0);
	}
}

static void select_ok(const char *indices)
{
	reset();
	if (!node4.n)
		node_gpus();
	cr_assert_eq(qd_gpu_select(&node4, indices, &got, err, sizeof(err)), 0,
		     "'%s': %s", indices, err);
}

static void select_bad(const char *indices, const char *why)
{
	reset();
	if (!node4.n)
		node_gpus();
	cr_assert_eq(qd_gpu_select(&node4, indices, &got, err, sizeof(err)), -1,
		     "'%s' accepted", indices);
	cr_assert(strstr(err, why), "'%s' does not say '%s'", err, why);
}

Test(gpu_select, indices_are_positions_in_the_node_list)
{
	/* n2 of the test cluster: Slurm's GPU 0 there is nvidia4. */
	select_ok("0,2");
	EXPECT("/d/nvidia4", "/d/nvidia6");
	select_ok("3");
	EXPECT("/d/nvidia7");
	select_ok("1,1");
	EXPECT("/d/nvidia5");
	select_ok("");
	cr_assert_eq(got.n, 0);
	qd_gpus_free(&node4);
}

/* Slurm lets a step open a file that any of its GPUs has: two slices of
 * one GPU share its device file, each its own nvidia-caps files. */
Test(gpu_select, a_slice_gives_all_its_files_and_shares_its_parent)
{
	struct qd_gpus mig = {0};
	char *whole[] = {"/dev/nvidia0"},
	     *s1[] = {"/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap12",
		      "/dev/nvidia-caps/nvidia-cap13"},
	     *s2[] = {"/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap21",
		      "/dev/nvidia-caps/nvidia-cap22"};

	reset();
	cr_assert_eq(qd_gpus_add(&mig, whole, 1, err, sizeof(err)), 0);
	cr_assert_eq(qd_gpus_add(&mig, s1, 3, err, sizeof(err)), 0);
	cr_assert_eq(qd_gpus_add(&mig, s2, 3, err, sizeof(err)), 0);
	cr_assert_eq(qd_gpu_select(&mig, "2", &got, err, sizeof(err)), 0, "%s",
		     err);
	EXPECT("/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap21",
	       "/dev/nvidia-caps/nvidia-cap22");
	reset();
	cr_assert_eq(qd_gpu_select(&mig, "1,2,0", &got, err, sizeof(err)), 0,
		     "%s", err);
	EXPECT("/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap12",
	       "/dev/nvidia-caps/nvidia-cap13", "/dev/nvidia-caps/nvidia-cap21",
	       "/dev/nvidia-caps/nvidia-cap22", "/dev/nvidia0");
	reset();
	cr_assert_eq(qd_gpu_select(&mig, "3", &got, err, sizeof(err)), -1);
	cr_assert(strstr(err, "GPU index 3, but this node has 3 GPUs"), "%s",
		  err);
	qd_gpus_free(&mig);
}

Test(gpu_select, what_is_no_index_is_an_error)
{
	select_bad("4", "GPU index 4, but this node has 4 GPUs");
	select_bad("0,x", "'x' is not a GPU index");
	select_bad("MIG-5c3b8d6e", "'MIG-5c3b8d6e' is not a GPU index");
	select_bad("0,", "'' is not a GPU index");
	select_bad(" 1", "' 1' is not a GPU index");
	select_bad("-1", "'-1' is not a GPU index");
	select_bad("1-2", "'1-2' is not a GPU index");
	qd_gpus_free(&node4);
}

/* slurmstepd's maps, as /proc/PID/maps lists them: only a file named
 * gres_gpu.so is Slurm's gres/gpu plugin. */
Test(gres_plugin, gres_gpu_in_maps)
{
	static const char with[] =
	    "7f0000000000-7f0000001000 r--p 00000000 08:01 123 "
	    "/usr/lib/x86_64-linux-gnu/slurm-wlm/gres_shard.so\n"
	    "7f0000001000-7f0000002000 r-xp 00001000 08:01 124 "
	    "/usr/lib/x86_64-linux-gnu/slurm-wlm/gres_gpu.so\n";
	static const char without[] =
	    "7f0000000000-7f0000001000 r--p 00000000 08:01 123 "
	    "/usr/lib/x86_64-linux-gnu/slurm-wlm/gres_gpu.so.bak\n"
	    "7f0000001000-7f0000002000 r-xp 00001000 08:01 125 "
	    "/tmp/gres_gpu.so (deleted)\n"
	    "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n";
	char err[128];

	cr_expect(qd_gres_gpu_mapped(with, strlen(with)));
	cr_expect(qd_gres_gpu_mapped(with, strlen(with) - 1), "no newline");
	cr_expect_not(qd_gres_gpu_mapped(without, strlen(without)));
	cr_expect_not(qd_gres_gpu_mapped("", 0));
	cr_expect_eq(qd_gres_gpu_loaded(err, sizeof(err)), 0,
		     "this test process has no gres/gpu plugin");
}

/* A fake /proc/driver/nvidia/gpus: one directory per PCI bus id. */
static void fake_gpu(const char *dir, const char *bus, const char *minor)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, bus);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s/information", dir, bus);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f,
		"Model: \t\t Tesla V100-SXM2-16GB\n"
		"Bus Location: \t %s\n%s",
		bus, minor);
	fclose(f);
}

Test(gpu_order, minors_against_bus_order)
{
	char in[] = "/tmp/qd-gpuorder.XXXXXX",
	     out[] = "/tmp/qd-gpuorder.XXXXXX";
	char err[1024] = "", rm[128];

	cr_assert(mkdtemp(in) && mkdtemp(out));
	/* readdir's order is the file system's: names given out of order. */
	fake_gpu(in, "0000:b1:00.0", "Device Minor: \t 2\n");
	fake_gpu(in, "0000:3b:00.0", "Device Minor: \t 0\n");
	fake_gpu(in, "0000:5e:00.0", "Device Minor: \t 1\n");
	fake_gpu(in, "0000:86:00.0", "no minor here\n");
	cr_expect_eq(qd_gpu_minor_order(in, err, sizeof(err)), 0, "%s", err);
	fake_gpu(out, "0000:3b:00.0", "Device Minor: \t 1\n");
	fake_gpu(out, "0000:5e:00.0", "Device Minor: \t 0\n");
	cr_expect_eq(qd_gpu_minor_order(out, err, sizeof(err)), -1);
	cr_expect(strstr(err, "AutoDetect: GPU 0000:3b:00.0 is /dev/nvidia1 "
			      "but GPU 0000:5e:00.0, after it in PCI bus "
			      "order, is /dev/nvidia0"),
		  "%s", err);
	cr_expect_eq(qd_gpu_minor_order("/nonexistent/qd", err, sizeof(err)), 0,
		     "no driver: nothing to compare");
	snprintf(rm, sizeof(rm), "rm -rf '%s' '%s'", in, out);
	cr_assert_eq(system(rm), 0);
}
