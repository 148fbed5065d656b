/* SPDX-License-Identifier: GPL-2.0-or-later
 * `slurmd -G`'s GRES lines as doctor reads them (node/slurmd_gres.h), in
 * the forms of each Slurm release make check runs.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "slurmd_gres.h"

/* The File= of line, or "-1"/"0" for the other answers. */
static const char *gpu_file(const char *line)
{
	static char out[256];
	const char *file;
	size_t len;
	int rc = qd_slurmd_gres_line(line, &file, &len);

	if (rc != 1)
		return rc ? "-1" : "0";
	cr_assert_lt(len, sizeof(out));
	memcpy(out, file, len);
	out[len] = '\0';
	return out;
}

Test(slurmd_gres, each_release_s_form)
{
	/* 22.05 (common/gres.c): the flags last, without a key. */
	cr_expect_str_eq(gpu_file("slurmd: Gres Name=gpu Type=a100 Count=1 "
				  "Index=0 ID=7696487 File=/dev/nvidia0 "
				  "HAS_FILE,HAS_TYPE\n"),
			 "/dev/nvidia0");
	/* 23.11 to 26.05 (interfaces/gres.c), with and without cores. */
	cr_expect_str_eq(gpu_file("slurmd: Gres Name=gpu Type=v100 Count=2 "
				  "Index=4 ID=7696487 File=/dev/nvidia[4-5] "
				  "Cores=0-3 CoreCnt=4 Links=(null) "
				  "Flags=HAS_FILE,HAS_TYPE,ENV_NVML\n"),
			 "/dev/nvidia[4-5]");
	cr_expect_str_eq(gpu_file("[2026-11-30T14:00:00.000] Gres Name=gpu "
				  "Type=(null) Count=1 Index=0 ID=7696487 "
				  "File=/dev/nvidia0 Links=(null) "
				  "Flags=HAS_FILE"),
			 "/dev/nvidia0");
	/* Without File=, another GRES, and what is no GRES line. */
	cr_expect_str_eq(gpu_file("slurmd: Gres Name=gpu Type=(null) Count=4 "
				  "ID=7696487 Links=(null) Flags=\n"),
			 "0");
	cr_expect_str_eq(gpu_file("slurmd: Gres Name=shard Type=(null) "
				  "Count=16 Index=0 ID=1 File=/dev/nvidia0 "
				  "Links=(null) Flags=HAS_FILE\n"),
			 "0");
	cr_expect_str_eq(gpu_file("slurmd: Gres Name=gpus Type=x Count=1 "
				  "File=/dev/nvidia0\n"),
			 "0");
	cr_expect_str_eq(gpu_file("slurmd: error: Gres-Name=gpu File=/x\n"),
			 "-1");
	cr_expect_str_eq(gpu_file("slurmd: xGres Name=gpu File=/x\n"), "-1");
	cr_expect_str_eq(gpu_file(""), "-1");
}

/* A field is read by its key, never found by searching the line: a Type=
 * or Links= that holds "File=" is not the file. */
Test(slurmd_gres, a_value_holding_a_key_is_not_that_field)
{
	cr_expect_str_eq(gpu_file("slurmd: Gres Name=gpu Type=File=/etc/x "
				  "Count=1 Index=0 ID=1 Links=(null) Flags=\n"),
			 "0");
	cr_expect_str_eq(gpu_file("slurmd: Gres Name=gpu Type=a Count=1 "
				  "Index=0 ID=1 File=/dev/nvidia1 "
				  "Links=File=/etc/x Flags=HAS_FILE\n"),
			 "/dev/nvidia1");
	cr_expect_str_eq(gpu_file("slurmd: Gres Name=gpu Count=1 File= "
				  "Flags=\n"),
			 "0");
}

/* A share line's Count= (doctor compares it with gres.conf's). */
Test(slurmd_gres, share_counts)
{
	unsigned long long n = 0;

	cr_expect_eq(qd_slurmd_gres_count("slurmd: Gres Name=shard "
					  "Type=(null) Count=16 Index=0 ID=1 "
					  "File=/dev/nvidia0 Links=(null) "
					  "Flags=HAS_FILE\n",
					  "shard", &n),
		     1);
	cr_expect_eq(n, 16);
	cr_expect_eq(qd_slurmd_gres_count("slurmd: Gres Name=mps Count=100 "
					  "Index=0 ID=2 File=/dev/nvidia1 "
					  "HAS_FILE",
					  "mps", &n),
		     1);
	cr_expect_eq(n, 100);
	cr_expect_eq(qd_slurmd_gres_count("slurmd: Gres Name=shard Count=4\n",
					  "mps", &n),
		     0, "another name");
	cr_expect_eq(qd_slurmd_gres_count("slurmd: Gres Name=shards Count=4\n",
					  "shard", &n),
		     0, "a longer name");
	cr_expect_eq(
	    qd_slurmd_gres_count("slurmd: Gres Name=shard Type=Count=9 "
				 "Count=x\n",
				 "shard", &n),
	    0, "a count that is none");
	cr_expect_eq(
	    qd_slurmd_gres_count("slurmd: shard Count=4\n", "shard", &n), -1);
}
