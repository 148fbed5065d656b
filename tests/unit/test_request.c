/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_request_count against what slurmctld 22.05 puts in tres_req_cnt at
 * submission, and (at the end) the same with 23.11's request syntax. Each row
 * is a job description as the client sends it (what slurm_opt_create_job_desc
 * and the clients' _opt_verify build from the options in the row's name) and
 * the counts slurmctld derives from it; the comment names the Slurm function
 * that decides the row. Partition defaults in every row unless it says
 * otherwise: MinNodes=0, no DefMemPerCPU/Node, first node RealMemory=1000.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"

#define CAP (QD_UNLIMITED - 1)
#define ERR ((uint64_t)-1)

struct want {
	uint64_t cpu, mem, node, gpu;
	const char *type; /* one gres/gpu:<type> to check, or NULL */
	uint64_t typed;
};

struct row {
	const char *name;
	struct qd_job_request req;
	struct want want;
};

/* clang-format off */
#define N(cpu, mem, node, gpu) {cpu, mem, node, gpu, NULL, 0}
#define T(cpu, mem, node, gpu, type, n) {cpu, mem, node, gpu, type, n}
#define FAILS {ERR, 0, 0, 0, NULL, 0} /* qd_request_count returns -1 */
/* clang-format on */

/* sbatch with neither -n nor -N: min_cpus = opt.ntasks = 1. */
#define ONE .min_cpus = 1, .node_mem_mb = 1000

static struct row rows[] = {
    /* cpu/node: _validate_job_desc defaults min_nodes to 1 and the client
     * sent min_cpus 1; mem: job_get_tres_mem's whole node. */
    {"no options", {ONE}, N(1, 1000, 1, 0)},
    /* gres_job_state_validate: tres_per_node x min_nodes */
    {"--gres=gpu:2", {ONE, .tres_per_node = "gres:gpu:2"}, N(1, 1000, 1, 2)},
    {"--gres=gpu:a100:2",
     {ONE, .tres_per_node = "gres:gpu:a100:2"},
     T(1, 1000, 1, 2, "a100", 2)},
    {"-N 2 --gres=gpu:2",
     {.min_nodes = 2,
      .max_nodes = 2,
      .min_cpus = 2,
      .node_mem_mb = 1000,
      .tres_per_node = "gres:gpu:2"},
     N(2, 2000, 2, 4)},
    {"-N 2 --gpus-per-node=2",
     {.min_nodes = 2,
      .max_nodes = 2,
      .min_cpus = 2,
      .node_mem_mb = 1000,
      .tres_per_node = "gres:gpu:2"},
     N(2, 2000, 2, 4)},
    /* tres_per_job as given */
    {"--gpus=3", {ONE, .tres_per_job = "gres:gpu:3"}, N(1, 1000, 1, 3)},
    /* _set_type_tres_cnt: types sum into gres/gpu */
    {"--gpus=a100:2,v100:1",
     {ONE, .tres_per_job = "gres:gpu:a100:2,gres:gpu:v100:1"},
     T(1, 1000, 1, 3, "v100", 1)},
    /* tres_per_task x num_tasks */
    {"-n 3 --gpus-per-task=1",
     {.num_tasks = 3,
      .min_cpus = 3,
      .node_mem_mb = 1000,
      .tres_per_task = "gres:gpu:1"},
     N(3, 1000, 1, 3)},
    /* gres_job_state_validate: num_tasks implied by -N a-a */
    {"-N 2 --gpus-per-task=2 (no num_tasks sent)",
     {.min_nodes = 2,
      .max_nodes = 2,
      .min_cpus = 2,
      .node_mem_mb = 1000,
      .tres_per_task = "gres:gpu:2"},
     N(2, 2000, 2, 4)},
    /* _test_gres_cnt: --gpus-per-task needs -n or --gpus */
    {"--gpus-per-task=1 alone", {ONE, .tres_per_task = "gres:gpu:1"}, FAILS},
    /* _test_gres_cnt derives num_tasks = 4/2; total_gres is the max */
    {"--gpus=4 --gpus-per-task=2",
     {ONE, .tres_per_job = "gres:gpu:4", .tres_per_task = "gres:gpu:2"},
     N(1, 1000, 1, 4)},
    {"--gpus=3 --gpus-per-task=2",
     {ONE, .tres_per_job = "gres:gpu:3", .tres_per_task = "gres:gpu:2"},
     FAILS},
    /* _test_gres_cnt: --gpus must cover -N */
    {"-N 2 --gpus=1",
     {.min_nodes = 2,
      .max_nodes = 2,
      .min_cpus = 2,
      .tres_per_job = "gres:gpu:1"},
     FAILS},
    /* _test_gres_cnt moves min_nodes to 4/2 after node was counted:
     * node stays 1, per-node memory uses 2 */
    {"--gpus=4 --gpus-per-node=2 --mem=1000 (raw, no -N)",
     {.min_cpus = 1,
      .mem_mb = 1000,
      .mem_set = true,
      .tres_per_job = "gres:gpu:4",
      .tres_per_node = "gres:gpu:2"},
     N(1, 2000, 1, 4)},
    {"-N 2 --gpus-per-node=2 --gpus-per-task=1 -n 4",
     {.min_nodes = 2,
      .max_nodes = 2,
      .num_tasks = 4,
      .min_cpus = 4,
      .tres_per_node = "gres:gpu:2",
      .tres_per_task = "gres:gpu:1"},
     N(4, 0, 2, 4)},
    /* per socket: x min_nodes x sockets_per_node */
    {"-N 2 --sockets-per-node=2 --gpus-per-socket=1",
     {.min_nodes = 2,
      .max_nodes = 2,
      .num_tasks = 4,
      .min_cpus = 4,
      .sockets_per_node = 2,
      .tres_per_socket = "gres:gpu:1"},
     N(4, 0, 2, 4)},
    {"--gpus-per-socket=1 without --sockets-per-node",
     {ONE, .tres_per_socket = "gres:gpu:1"},
     FAILS},
    {"--gpus-per-node=3 --gpus-per-socket=1 --sockets-per-node=2",
     {ONE, .sockets_per_node = 2, .tres_per_node = "gres:gpu:3",
      .tres_per_socket = "gres:gpu:1"},
     FAILS},
    /* cpu: the client's min_cpus = ntasks x cpus_per_task */
    {"-n 4 -c 2",
     {.num_tasks = 4, .cpus_per_task = 2, .min_cpus = 8},
     N(8, 0, 1, 0)},
    {"-N 2 -n 4",
     {.min_nodes = 2, .max_nodes = 2, .num_tasks = 4, .min_cpus = 4},
     N(4, 0, 2, 0)},
    /* validate_job_create_req: min_cpus raised to num_tasks x cpt */
    {"raw: num_tasks 6, cpus_per_task 2, min_cpus 1",
     {.num_tasks = 6, .cpus_per_task = 2, .min_cpus = 1},
     N(12, 0, 1, 0)},
    /* ... and num_tasks from --ntasks-per-node x -N */
    {"raw: --ntasks-per-node=4 -N 2",
     {.min_nodes = 2, .max_nodes = 2, .ntasks_per_node = 4, .min_cpus = 2},
     N(8, 0, 2, 0)},
    /* ... but not with --overcommit: the client sends min_cpus 1 */
    {"-O -n 8",
     {.num_tasks = 8, .min_cpus = 1, .overcommit = true},
     N(1, 0, 1, 0)},
    /* _validate_job_desc: no min_cpus means min_nodes */
    {"raw: nothing", {0}, N(1, 0, 1, 0)},
    /* --cpus-per-gpu and --mincpus do not reach tres_req_cnt[CPU] */
    {"--gpus=2 --cpus-per-gpu=4",
     {ONE, .tres_per_job = "gres:gpu:2", .cpus_per_tres = "gres:gpu:4"},
     N(1, 1000, 1, 2)},
    {"--mincpus=8", {ONE, .pn_min_cpus = 8}, N(1, 1000, 1, 0)},
    /* _valid_job_part: partition MinNodes */
    {"MinNodes=3, no -N",
     {.min_cpus = 1, .part_min_nodes = 3, .node_mem_mb = 10},
     N(1, 30, 3, 0)},
    {"MinNodes=3, -N 2-5",
     {.min_nodes = 2, .max_nodes = 5, .min_cpus = 2, .part_min_nodes = 3},
     N(2, 0, 3, 0)},
    {"MinNodes=3, -N 2",
     {.min_nodes = 2, .max_nodes = 2, .min_cpus = 2, .part_min_nodes = 3},
     N(2, 0, 2, 0)},
    /* job_get_tres_mem */
    {"--mem=2G", {ONE, .mem_mb = 2048, .mem_set = true}, N(1, 2048, 1, 0)},
    {"-N 2 --mem=1000",
     {.min_nodes = 2,
      .max_nodes = 2,
      .min_cpus = 2,
      .mem_mb = 1000,
      .mem_set = true},
     N(2, 2000, 2, 0)},
    {"-n 2 --mem-per-cpu=300",
     {.num_tasks = 2,
      .min_cpus = 2,
      .mem_mb = 300,
      .mem_set = true,
      .mem_per_cpu = true},
     N(2, 600, 1, 0)},
    {"-n 3 -c 2 --mem-per-cpu=100",
     {.num_tasks = 3,
      .cpus_per_task = 2,
      .min_cpus = 6,
      .mem_mb = 100,
      .mem_set = true,
      .mem_per_cpu = true},
     N(6, 600, 1, 0)},
    {"--mem=0 -N 3",
     {.min_nodes = 3,
      .max_nodes = 3,
      .min_cpus = 3,
      .mem_set = true,
      .node_mem_mb = 1000},
     N(3, 3000, 3, 0)},
    {"--mem-per-cpu=0",
     {ONE, .mem_set = true, .mem_per_cpu = true},
     N(1, 1000, 1, 0)},
    {"DefMemPerCPU=100 -n 4",
     {.num_tasks = 4,
      .min_cpus = 4,
      .def_mem_mb = 100,
      .def_mem_per_cpu = true},
     N(4, 400, 1, 0)},
    {"DefMemPerNode=500 -N 2",
     {.min_nodes = 2, .max_nodes = 2, .min_cpus = 2, .def_mem_mb = 500},
     N(2, 1000, 2, 0)},
    {"--gpus=2 --mem-per-gpu=500",
     {ONE, .tres_per_job = "gres:gpu:2", .mem_per_tres = "gres:gpu:500"},
     N(1, 1000, 1, 2)},
    /* --mem-per-gpu applies only where the user set no --mem* */
    {"--gpus=2 --mem-per-gpu=500 with DefMemPerCPU",
     {ONE, .def_mem_mb = 7, .def_mem_per_cpu = true,
      .tres_per_job = "gres:gpu:2", .mem_per_tres = "gres:gpu:500"},
     N(1, 1000, 1, 2)},
    {"--gpus=2 --mem-per-gpu=500 --mem=64 (raw)",
     {ONE, .mem_mb = 64, .mem_set = true, .tres_per_job = "gres:gpu:2",
      .mem_per_tres = "gres:gpu:500"},
     N(1, 64, 1, 2)},
    /* per task: _test_gres_cnt turns it into gres_per_job = 2 x 1 */
    {"-n 2 --gpus-per-task=1 --mem-per-gpu=100",
     {.num_tasks = 2,
      .min_cpus = 2,
      .tres_per_task = "gres:gpu:1",
      .mem_per_tres = "gres:gpu:100"},
     N(2, 200, 1, 2)},
    {"-N 3 --gpus-per-node=2 --mem-per-gpu=10",
     {.min_nodes = 3,
      .max_nodes = 3,
      .min_cpus = 3,
      .tres_per_node = "gres:gpu:2",
      .mem_per_tres = "gres:gpu:10"},
     N(3, 60, 3, 6)},
    {"-N 2 --sockets-per-node=2 --gpus-per-socket=1 --mem-per-gpu=10",
     {.min_nodes = 2,
      .max_nodes = 2,
      .num_tasks = 4,
      .min_cpus = 4,
      .sockets_per_node = 2,
      .tres_per_socket = "gres:gpu:1",
      .mem_per_tres = "gres:gpu:10"},
     N(4, 40, 2, 4)},
    /* _merge_generic_data hands the untyped --mem-per-gpu to the type */
    {"--gres=gpu:a100:3 --mem-per-gpu=100",
     {ONE, .tres_per_node = "gres:gpu:a100:3", .mem_per_tres = "gres:gpu:100"},
     T(1, 300, 1, 3, "a100", 3)},
    {"--mem-per-gpu without GPUs",
     {ONE, .mem_per_tres = "gres:gpu:100"},
     FAILS},
    /* ... and rejects typed and untyped counts together */
    {"--gres=gpu:2,gpu:a100:1",
     {ONE, .tres_per_node = "gres:gpu:2,gres:gpu:a100:1"},
     FAILS},
    /* --ntasks-per-gpu: GPUs from tasks, or tasks from GPUs */
    {"-n 4 --ntasks-per-gpu=2",
     {.num_tasks = 4, .min_cpus = 4, .ntasks_per_tres = 2},
     N(4, 0, 1, 2)},
    {"--gpus=3 --ntasks-per-gpu=2",
     {ONE, .ntasks_per_tres = 2, .tres_per_job = "gres:gpu:3"},
     N(1, 1000, 1, 3)},
    {"--ntasks-per-gpu=2 alone (raw)", {.ntasks_per_tres = 2}, FAILS},
    /* _get_next_gres: one record per type, total_gres the largest */
    {"gpu:a100:2,gpu:a100:3",
     {ONE, .tres_per_node = "gres:gpu:a100:2,gres:gpu:a100:3"},
     T(1, 1000, 1, 3, "a100", 3)},
    /* types are told apart case-sensitively, TRES names are not */
    {"gpu:A100:1,gpu:a100:2",
     {ONE, .tres_per_node = "gres:gpu:A100:1,gres:gpu:a100:2"},
     T(1, 1000, 1, 3, "a100", 2)},
    /* GRES names are case-sensitive: "GPU" is another GRES */
    {"gres:GPU:2", {ONE, .tres_per_node = "gres:GPU:2"}, N(1, 1000, 1, 0)},
    /* whole GPUs and MPS shares of them: gres_job_state_validate's
     * have_gres_sharing && have_gres_shared */
    {"gres:gpu:2,gres:mps:50",
     {ONE, .tres_per_node = "gres:gpu:2,gres:mps:50"},
     FAILS},
    {"license:foo:3,gres:gpu:1",
     {ONE, .tres_per_node = "license:foo:3,gres:gpu:1"},
     N(1, 1000, 1, 1)},
    /* counts: omitted = 1, suffixes multiply, 0 drops the item */
    {"gres:gpu", {ONE, .tres_per_job = "gres:gpu"}, N(1, 1000, 1, 1)},
    {"gres:gpu:a100",
     {ONE, .tres_per_job = "gres:gpu:a100"},
     T(1, 1000, 1, 1, "a100", 1)},
    {"gres:gpu:1k", {ONE, .tres_per_job = "gres:gpu:1k"}, N(1, 1000, 1, 1024)},
    {"gres:gpu:2x is type 2x",
     {ONE, .tres_per_job = "gres:gpu:2x"},
     T(1, 1000, 1, 1, "2x", 1)},
    {"gres:gpu:0", {ONE, .tres_per_job = "gres:gpu:0"}, N(1, 1000, 1, 0)},
    /* malformed items: ESLURM_INVALID_GRES */
    {"gres:gpu:", {ONE, .tres_per_node = "gres:gpu:"}, FAILS},
    {"gres:gpu::1", {ONE, .tres_per_node = "gres:gpu::1"}, FAILS},
    {"gres:gpu:a100:", {ONE, .tres_per_node = "gres:gpu:a100:"}, FAILS},
    {"gres:gpu:a100:x", {ONE, .tres_per_node = "gres:gpu:a100:x"}, FAILS},
    {"gres:gpu:a:1:2", {ONE, .tres_per_node = "gres:gpu:a:1:2"}, FAILS},
    {"gres:gpu:a100:-1", {ONE, .tres_per_node = "gres:gpu:a100:-1"}, FAILS},
    /* garbage that holds no GPU request counts no GPU */
    {"empty strings",
     {ONE, .tres_per_job = "", .tres_per_node = "", .tres_per_socket = "",
      .tres_per_task = "", .cpus_per_tres = ""},
     N(1, 1000, 1, 0)},
    {"no gres: in it", {ONE, .tres_per_node = "gpu:4"}, N(1, 1000, 1, 0)},
    {"commas only",
     {ONE, .tres_per_node = ",,,gres:,gres:,,"},
     N(1, 1000, 1, 0)},
    /* huge counts saturate instead of wrapping */
    {"gres:gpu:-2 is 2^64-2",
     {.min_nodes = 2,
      .max_nodes = 2,
      .min_cpus = 2,
      .tres_per_node = "gres:gpu:-2"},
     N(2, 0, 2, CAP)},
    {"gpus-per-node 10^12 on 4e9 nodes",
     {.min_nodes = 4000000000u,
      .max_nodes = 4000000000u,
      .min_cpus = 4000000000u,
      .mem_mb = 1ull << 40,
      .mem_set = true,
      .tres_per_node = "gres:gpu:1000000000000"},
     N(4000000000u, CAP, 4000000000u, CAP)},
    {"overflowing count is a type",
     {ONE, .tres_per_job = "gres:gpu:99999999999999999999999"},
     N(1, 1000, 1, 1)},
    {"max tasks x max cpus",
     {.num_tasks = UINT32_MAX,
      .cpus_per_task = UINT32_MAX,
      .min_cpus = 1,
      .mem_mb = UINT64_MAX,
      .mem_set = true,
      .mem_per_cpu = true},
     N((uint64_t)UINT32_MAX *UINT32_MAX, CAP, 1, 0)},
};

/*
 * Criterion runs each case in a fresh process, where the rows' string
 * pointers from the parent would dangle: the parameter is the row's index.
 */
ParameterizedTestParameters(request, table)
{
	static size_t idx[sizeof(rows) / sizeof(rows[0])];

	for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		idx[i] = i;
	return cr_make_param_array(size_t, idx, sizeof(idx) / sizeof(idx[0]));
}

static void expect(const char *row, const char *what, uint64_t got,
		   uint64_t want)
{
	cr_expect_eq(got, want, "%s: %s is %llu, not %llu", row, what,
		     (unsigned long long)got, (unsigned long long)want);
}

ParameterizedTest(size_t *i, request, table)
{
	const struct row *r = &rows[*i];
	const struct want *w = &r->want;
	struct qd_tres t;
	char err[128] = "";
	int rc = qd_request_count(&r->req, &t, err, sizeof(err));

	if (w->cpu == ERR) {
		cr_assert_eq(rc, -1, "%s: expected an error", r->name);
		cr_assert_neq(err[0], '\0', "%s: no error text", r->name);
		return;
	}
	cr_assert_eq(rc, 0, "%s: %s", r->name, err);
	expect(r->name, "cpu", qd_tres_get(&t, QD_TRES_CPU, 99), w->cpu);
	expect(r->name, "mem", qd_tres_get(&t, QD_TRES_MEM, 99), w->mem);
	expect(r->name, "node", qd_tres_get(&t, QD_TRES_NODE, 99), w->node);
	expect(r->name, "gres/gpu", qd_tres_get(&t, QD_TRES_GPU, 99), w->gpu);
	if (w->type)
		expect(r->name, w->type, qd_tres_get_typed(&t, w->type, 99),
		       w->typed);
}

Test(request, typed_entries_listed)
{
	struct qd_job_request req = {
	    .min_cpus = 1,
	    .tres_per_job = "gres:gpu:v100:1,gres:gpu:a100:2",
	    .tres_per_node = "gres:gpu:a100:1",
	};
	struct qd_tres t;

	cr_assert_eq(qd_request_count(&req, &t, NULL, 0), 0);
	cr_assert_eq(t.ntyped, 2);
	cr_expect_str_eq(t.typed[0].type, "a100");
	cr_expect_eq(t.typed[0].value, 2);
	cr_expect_str_eq(t.typed[1].type, "v100");
	cr_expect_eq(t.typed[1].value, 1);
	cr_expect_eq(qd_tres_get(&t, QD_TRES_GPU, 0), 3);
}

Test(request, null_request)
{
	struct qd_tres t;
	char err[64];

	cr_assert_eq(qd_request_count(NULL, &t, err, sizeof(err)), -1);
	cr_expect_eq(qd_tres_get(&t, QD_TRES_GPU, 99), 99);
}

Test(request, error_clears_output)
{
	struct qd_job_request req = {.tres_per_node = "gres:gpu::2"};
	struct qd_tres t;
	char err[16];

	cr_assert_eq(qd_request_count(&req, &t, err, sizeof(err)), -1);
	cr_expect_eq(strlen(err), sizeof(err) - 1, "truncated, terminated");
	cr_expect_eq(qd_tres_get(&t, QD_TRES_CPU, 99), 99);
}

/* A long type name cannot carry a limit: counted in gres/gpu only. */
Test(request, long_type_name)
{
	struct qd_job_request req = {
	    .min_cpus = 1,
	    .tres_per_job = "gres:gpu:nvidia_rtx_a6000_ada_generation_x:2",
	};
	struct qd_tres t;

	cr_assert_eq(qd_request_count(&req, &t, NULL, 0), 0);
	cr_expect_eq(qd_tres_get(&t, QD_TRES_GPU, 0), 2);
	cr_expect_eq(t.ntyped, 0);
}

/* Beyond QD_TYPES_MAX types gres/gpu still counts them all. */
Test(request, more_types_than_a_vector_holds)
{
	char s[1024] = "";
	struct qd_job_request req = {.min_cpus = 1, .tres_per_job = s};
	struct qd_tres t;

	for (int i = 0; i < QD_TYPES_MAX + 4; i++)
		snprintf(s + strlen(s), sizeof(s) - strlen(s),
			 "%sgres:gpu:t%02d:1", i ? "," : "", i);
	cr_assert_eq(qd_request_count(&req, &t, NULL, 0), 0);
	cr_expect_eq(qd_tres_get(&t, QD_TRES_GPU, 0), QD_TYPES_MAX + 4);
	cr_expect_eq(t.ntyped, QD_TYPES_MAX);
}

Test(request, too_many_gpu_records)
{
	static char s[8192];
	struct qd_job_request req = {.min_cpus = 1, .tres_per_job = s};
	struct qd_tres t;
	char err[128];

	for (int i = 0; i < 100; i++)
		snprintf(s + strlen(s), sizeof(s) - strlen(s),
			 "%sgres:gpu:t%03d:1", i ? "," : "", i);
	cr_assert_eq(qd_request_count(&req, &t, err, sizeof(err)), -1);
	cr_expect(strstr(err, "GRES types") != NULL, "%s", err);
}

/* Megabytes of repeated items: one record, no allocation, no crash. */
Test(request, huge_string)
{
	const char item[] = "gres:gpu:a100:2,";
	size_t n = 1 << 16, len = n * (sizeof(item) - 1);
	char *s = malloc(len + 1);
	struct qd_job_request req = {.min_cpus = 1, .tres_per_node = s};
	struct qd_tres t;

	cr_assert_not_null(s);
	for (size_t i = 0; i < n; i++)
		memcpy(s + i * (sizeof(item) - 1), item, sizeof(item) - 1);
	s[len] = '\0';
	cr_assert_eq(qd_request_count(&req, &t, NULL, 0), 0);
	cr_expect_eq(qd_tres_get(&t, QD_TRES_GPU, 0), 2);
	cr_expect_eq(qd_tres_get_typed(&t, "a100", 0), 2);
	free(s);
}

/* Every byte value in every position of a short item: never a crash, and
 * any success leaves a sane vector. */
Test(request, byte_soup)
{
	const char *base = "gres:gpu:a1:2,";
	char s[32];
	struct qd_tres t;

	for (size_t pos = 0; pos < strlen(base); pos++) {
		for (int c = 1; c < 256; c++) {
			struct qd_job_request req = {.min_cpus = 1};

			strcpy(s, base);
			s[pos] = (char)c;
			req.tres_per_job = s;
			req.tres_per_node = s;
			req.tres_per_task = s;
			req.num_tasks = 2;
			if (qd_request_count(&req, &t, NULL, 0) == 0)
				cr_expect_leq(t.ntyped, QD_TYPES_MAX);
		}
	}
}

/* The strings of a row, respelled as Slurm 23.11's clients write them:
 * "gres:" becomes "gres/". */
struct slash_row {
	struct qd_job_request req;
	char buf[6][160];
};

static const char *respell(const char *s, char *buf, size_t len)
{
	char *p;

	if (!s)
		return NULL;
	snprintf(buf, len, "%s", s);
	for (p = buf; (p = strstr(p, "gres:")); p += 5)
		p[4] = '/';
	return buf;
}

static void to_slash(const struct qd_job_request *in, struct slash_row *out)
{
	out->req = *in;
	out->req.slurm_release = QD_SLURM_RELEASE(23, 11);
	out->req.tres_per_job = respell(in->tres_per_job, out->buf[0], 160);
	out->req.tres_per_node = respell(in->tres_per_node, out->buf[1], 160);
	out->req.tres_per_socket =
	    respell(in->tres_per_socket, out->buf[2], 160);
	out->req.tres_per_task = respell(in->tres_per_task, out->buf[3], 160);
	out->req.mem_per_tres = respell(in->mem_per_tres, out->buf[4], 160);
	out->req.cpus_per_tres = respell(in->cpus_per_tres, out->buf[5], 160);
}

/* Every valid row of the 22.05 table, spelled the 23.11 way, asks for the
 * same GPUs: the strings' syntax changed, not what they mean, but for these
 * rows (slash_corners has their 23.11 reading). 23.02's CPU and task
 * arithmetic is tested against 24.11's own counts in t_counting.sh. */
static const char *const differs_in_slash[] = {
    "gres:gpu:-2 is 2^64-2", /* a count must start with a digit */
};

static bool differs(const char *name)
{
	for (size_t i = 0;
	     i < sizeof(differs_in_slash) / sizeof(differs_in_slash[0]); i++)
		if (!strcmp(name, differs_in_slash[i]))
			return true;
	return false;
}

ParameterizedTestParameters(request, table_slash)
{
	static size_t idx[sizeof(rows) / sizeof(rows[0])];

	for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		idx[i] = i;
	return cr_make_param_array(size_t, idx, sizeof(idx) / sizeof(idx[0]));
}

ParameterizedTest(size_t *i, request, table_slash)
{
	const struct row *r = &rows[*i];
	struct slash_row s;
	struct qd_tres colon, slash;

	if (r->want.cpu == ERR || differs(r->name))
		return;
	to_slash(&r->req, &s);
	cr_assert_eq(qd_request_count(&r->req, &colon, NULL, 0), 0);
	cr_assert_eq(qd_request_count(&s.req, &slash, NULL, 0), 0, "%s",
		     r->name);
	expect(r->name, "gres/gpu", slash.v[QD_TRES_GPU], colon.v[QD_TRES_GPU]);
	cr_assert_eq(slash.ntyped, colon.ntyped, "%s", r->name);
	for (size_t t = 0; t < colon.ntyped; t++) {
		cr_expect_str_eq(slash.typed[t].type, colon.typed[t].type);
		expect(r->name, colon.typed[t].type, slash.typed[t].value,
		       colon.typed[t].value);
	}
}

struct slash_case {
	const char *str; /* tres_per_job of a 1-CPU job */
	uint64_t gpu;	 /* ERR: rejected */
	const char *type;
	uint64_t typed;
};

/* slurm_get_next_tres's corners, as 24.11 splits them. */
static const struct slash_case slash_cases[] = {
    {"gres/gpu:2", 2, NULL, 0},
    {"gres/gpu=3", 3, NULL, 0},
    {"gres/gpu:a100:2", 2, "a100", 2},
    {"gres/gpu:a100=2", 2, "a100", 2},
    {"gres/gpu:a100", 1, "a100", 1},
    {"gres/gpu:a100:x:2", 2, "a100:x", 2},
    {"gres/gpu:1k", 1024, NULL, 0},
    {"gres/gpu:0,gres/gpu:a100:2", 2, "a100", 2},
    {"cpu=4,gres/gpu:1", 1, NULL, 0},
    {"gres/2,gres/gpu:2", ERR, NULL, 0},
    {"gres:gpu:2", ERR, NULL, 0},
    {"gres/gpu:", ERR, NULL, 0},
    {"gres/gpu=x", ERR, NULL, 0},
    {"gres/gpu:a100:2=1", 1, "a100:2", 1},
    {"gres/gpu:-2", 1, "-2", 1},
    {"gres/gpu: 2", 1, " 2", 1},
};

Test(request, slash_corners)
{
	for (size_t i = 0; i < sizeof(slash_cases) / sizeof(slash_cases[0]);
	     i++) {
		const struct slash_case *c = &slash_cases[i];
		struct qd_job_request req = {.slurm_release =
						 QD_SLURM_RELEASE(23, 11),
					     .min_cpus = 1,
					     .node_mem_mb = 1000,
					     .tres_per_job = c->str};
		struct qd_tres t;
		int rc = qd_request_count(&req, &t, NULL, 0);

		if (c->gpu == ERR) {
			cr_expect_eq(rc, -1, "%s: expected an error", c->str);
			continue;
		}
		cr_assert_eq(rc, 0, "%s", c->str);
		expect(c->str, "gres/gpu", qd_tres_get(&t, QD_TRES_GPU, 0),
		       c->gpu);
		if (c->type)
			expect(c->str, c->type,
			       qd_tres_get_typed(&t, c->type, 0), c->typed);
	}
}

/*
 * Rows whose count changed after 22.05, as job_submit saw them and as the
 * ReqTRES of the held job read, measured on slurmctld 24.11.5 and 26.05.3
 * (the test cluster: DefMemPerCPU=1000, nodes of 64000 MiB; "dmg" a
 * partition with DefMemPerGPU=2000, "mn2" one with MinNodes=2).
 */
#define R2411 QD_SLURM_RELEASE(24, 11)
#define R2605 QD_SLURM_RELEASE(26, 5)
#define NODE_DEF                                                               \
	.def_mem_mb = 1000, .def_mem_per_cpu = true, .node_mem_mb = 64000

struct release_row {
	const char *name;
	struct qd_job_request req;
	struct want want;
};

static const struct release_row release_rows[] = {
    /* 23.02: -n wins over --gpus / --gpus-per-task */
    {"24.11 raw: --gpus=2, 1 per task, -n 4",
     {.slurm_release = R2411,
      NODE_DEF,
      .min_cpus = 4,
      .num_tasks = 4,
      .tres_per_job = "gres/gpu:2",
      .tres_per_task = "gres/gpu:1"},
     N(4, 4000, 1, 4)},
    {"24.11: -n 2 --gpus-per-task=a100:2 (\"=\" count)",
     {.slurm_release = R2411,
      NODE_DEF,
      .min_cpus = 2,
      .num_tasks = 2,
      .tres_per_task = "gres/gpu:a100=2"},
     T(2, 2000, 1, 4, "a100", 4)},
    /* 23.02: a job without -N is one node for its tasks and min_cpus */
    {"24.11 raw: -n 2 -c 3, no min_cpus",
     {.slurm_release = R2411, NODE_DEF, .num_tasks = 2, .cpus_per_task = 3},
     N(6, 6000, 1, 0)},
    {"24.11: -n 2, cpu=4 and a GPU per task (-c not sent)",
     {.slurm_release = R2411,
      NODE_DEF,
      .num_tasks = 2,
      .tres_per_task = "cpu=4,gres/gpu=1"},
     N(2, 2000, 1, 2)},
    /* 24.05: GPUs per job as given, over per-socket ones */
    {"24.11: --gpus=2 --gpus-per-socket=2 --sockets-per-node=2",
     {.slurm_release = R2411,
      NODE_DEF,
      .min_cpus = 1,
      .sockets_per_node = 2,
      .tres_per_job = "gres/gpu:2",
      .tres_per_socket = "gres/gpu:2"},
     N(1, 1000, 1, 2)},
    /* 24.05: CPUs per GPU raise the CPUs, after the GRES checks */
    {"24.11: -N 2 --gres=gpu:2 --cpus-per-gpu=3",
     {.slurm_release = R2411,
      NODE_DEF,
      .min_cpus = 12,
      .min_nodes = 2,
      .max_nodes = 2,
      .tres_per_node = "gres/gpu:2",
      .cpus_per_tres = "gres/gpu:3"},
     N(12, 12000, 2, 4)},
    {"24.11 raw: -p mn2 --gres=gpu:2 --cpus-per-gpu=3, min_cpus 1",
     {.slurm_release = R2411,
      NODE_DEF,
      .min_cpus = 1,
      .part_min_nodes = 2,
      .tres_per_node = "gres/gpu:2",
      .cpus_per_tres = "gres/gpu:3"},
     N(12, 12000, 2, 4)},
    /* 25.11: min_cpus at least tasks x -c, -O or not */
    {"24.11: --gpus=2 --ntasks-per-gpu=2 -c 4",
     {.slurm_release = R2411,
      NODE_DEF,
      .min_cpus = 4,
      .num_tasks = 4,
      .cpus_per_task = 4,
      .ntasks_per_tres = 2,
      .tres_per_job = "gres/gpu:2",
      .tres_per_task = "cpu=4"},
     N(4, 4000, 1, 2)},
    {"26.05: --gpus=2 --ntasks-per-gpu=2 -c 4",
     {.slurm_release = R2605,
      NODE_DEF,
      .min_cpus = 4,
      .num_tasks = 4,
      .cpus_per_task = 4,
      .ntasks_per_tres = 2,
      .tres_per_job = "gres/gpu:2",
      .tres_per_task = "cpu=4"},
     N(16, 16000, 1, 2)},
    {"24.11: -O -n 4 -c 2 --gres=gpu:1",
     {.slurm_release = R2411,
      NODE_DEF,
      .min_cpus = 1,
      .overcommit = true,
      .num_tasks = 4,
      .cpus_per_task = 2,
      .tres_per_node = "gres/gpu:1",
      .tres_per_task = "cpu=2"},
     N(1, 1000, 1, 1)},
    {"26.05: -O -n 4 -c 2 --gres=gpu:1",
     {.slurm_release = R2605,
      NODE_DEF,
      .min_cpus = 1,
      .overcommit = true,
      .num_tasks = 4,
      .cpus_per_task = 2,
      .tres_per_node = "gres/gpu:1",
      .tres_per_task = "cpu=2"},
     N(8, 8000, 1, 1)},
    /* 25.05: DefMemPerGPU x the first GPU record */
    {"26.05: -p dmg --gpus=3",
     {.slurm_release = R2605,
      NODE_DEF,
      .min_cpus = 1,
      .def_mem_per_gpu = 2000,
      .tres_per_job = "gres/gpu:3"},
     N(1, 6000, 1, 3)},
    {"26.05: -p dmg --gpus=a100:1,v100:2",
     {.slurm_release = R2605,
      NODE_DEF,
      .min_cpus = 1,
      .def_mem_per_gpu = 2000,
      .tres_per_job = "gres/gpu:a100:1,gres/gpu:v100:2"},
     T(1, 2000, 1, 3, "v100", 2)},
    {"24.11: -p dmg --gpus=3 (DefMemPerGPU not yet)",
     {.slurm_release = R2411,
      NODE_DEF,
      .min_cpus = 1,
      .def_mem_per_gpu = 2000,
      .tres_per_job = "gres/gpu:3"},
     N(1, 1000, 1, 3)},
};

ParameterizedTestParameters(request, releases)
{
	static size_t idx[sizeof(release_rows) / sizeof(release_rows[0])];

	for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		idx[i] = i;
	return cr_make_param_array(size_t, idx, sizeof(idx) / sizeof(idx[0]));
}

ParameterizedTest(size_t *i, request, releases)
{
	const struct release_row *r = &release_rows[*i];
	struct qd_tres t;
	char err[128] = "";

	cr_assert_eq(qd_request_count(&r->req, &t, err, sizeof(err)), 0,
		     "%s: %s", r->name, err);
	expect(r->name, "cpu", qd_tres_get(&t, QD_TRES_CPU, 99), r->want.cpu);
	expect(r->name, "mem", qd_tres_get(&t, QD_TRES_MEM, 99), r->want.mem);
	expect(r->name, "node", qd_tres_get(&t, QD_TRES_NODE, 99),
	       r->want.node);
	expect(r->name, "gres/gpu", qd_tres_get(&t, QD_TRES_GPU, 99),
	       r->want.gpu);
	if (r->want.type)
		expect(r->name, r->want.type,
		       qd_tres_get_typed(&t, r->want.type, 99), r->want.typed);
}

struct share_case {
	const char *name;
	struct qd_job_request req;
	uint64_t shard, mps, gpu; /* shard ERR: rejected */
};

/*
 * The GPU-sharing GRES, counted as gres_job_state_validate and
 * _set_type_tres_cnt count them: records of their own, summed into
 * gres/shard and gres/mps (a typed share too), never into gres/gpu.
 */
static const struct share_case share_cases[] = {
    {"--gres=shard:2", {ONE, .tres_per_node = "gres:shard:2"}, 2, 0, 0},
    {"-N 2 --gres=shard:3",
     {.min_nodes = 2,
      .max_nodes = 2,
      .min_cpus = 2,
      .node_mem_mb = 1000,
      .tres_per_node = "gres:shard:3"},
     6,
     0,
     0},
    {"--gres=mps:50", {ONE, .tres_per_node = "gres:mps:50"}, 0, 50, 0},
    {"--gres=shard:a100:2: a typed share counts in gres/shard",
     {ONE, .tres_per_node = "gres:shard:a100:2"},
     2,
     0,
     0},
    {"--gres=shard:1,mps:10",
     {ONE, .tres_per_node = "gres:shard:1,gres:mps:10"},
     1,
     10,
     0},
    /* gres_id_sharing and gres_id_shared: whole GPUs and shares, even a
     * --mem-per-gpu's record, is ESLURM_INVALID_GRES */
    {"--gres=gpu:1,shard:1",
     {ONE, .tres_per_node = "gres:gpu:1,gres:shard:1"},
     ERR,
     0,
     0},
    {"--gpus=1 --gres=mps:50",
     {ONE, .tres_per_job = "gres:gpu:1", .tres_per_node = "gres:mps:50"},
     ERR,
     0,
     0},
    {"--gres=shard:2 --mem-per-gpu=100",
     {ONE, .tres_per_node = "gres:shard:2", .mem_per_tres = "gres:gpu:100"},
     ERR,
     0,
     0},
    /* _merge_generic_data, per GRES */
    {"--gres=shard:2,shard:a100:1",
     {ONE, .tres_per_node = "gres:shard:2,gres:shard:a100:1"},
     ERR,
     0,
     0},
    {"--gres=shard:2,shard:3: one record, the larger count",
     {ONE, .tres_per_node = "gres:shard:2,gres:shard:3"},
     3,
     0,
     0},
    /* 22.05: a share per job, socket or task only on one node, socket or
     * task */
    {"22.05 tres_per_task shard:1, 2 tasks",
     {.num_tasks = 2,
      .min_cpus = 2,
      .node_mem_mb = 1000,
      .tres_per_task = "gres:shard:1"},
     ERR,
     0,
     0},
    /* _test_gres_cnt made it per job (1 task x 2), so one node too */
    {"22.05 tres_per_task shard:2, 1 task",
     {.num_tasks = 1,
      .min_cpus = 1,
      .node_mem_mb = 1000,
      .tres_per_task = "gres:shard:2"},
     ERR,
     0,
     0},
    {"22.05 tres_per_task shard:2, 1 task, -N 1",
     {.num_tasks = 1,
      .min_nodes = 1,
      .max_nodes = 1,
      .min_cpus = 1,
      .node_mem_mb = 1000,
      .tres_per_task = "gres:shard:2"},
     2,
     0,
     0},
    {"22.05 tres_per_job shard:4, no node count",
     {ONE, .tres_per_job = "gres:shard:4"},
     ERR,
     0,
     0},
    {"22.05 tres_per_job shard:4 -N 1",
     {ONE, .min_nodes = 1, .max_nodes = 1, .tres_per_job = "gres:shard:4"},
     4,
     0,
     0},
    /* 23.02 dropped that rule */
    {"23.02 tres_per_task shard:1, 2 tasks",
     {.slurm_release = QD_SLURM_RELEASE(23, 2),
      .num_tasks = 2,
      .min_cpus = 2,
      .node_mem_mb = 1000,
      .tres_per_task = "gres:shard:1"},
     2,
     0,
     0},
    {"23.11 -n 3 --tres-per-task=gres/shard:1",
     {.slurm_release = QD_SLURM_RELEASE(23, 11),
      .num_tasks = 3,
      .min_cpus = 3,
      .node_mem_mb = 1000,
      .tres_per_task = "gres/shard:1"},
     3,
     0,
     0},
    {"23.11 --gres=gpu:1,mps:5: still whole GPUs and shares",
     {.slurm_release = QD_SLURM_RELEASE(23, 11),
      ONE,
      .tres_per_node = "gres/gpu:1,gres/mps:5"},
     ERR,
     0,
     0},
    /* slurmctld's merge answers for it once a GRES had typed and untyped
     * records (here --cpus-per-gpu's and --gpus=a100:1's): the job is
     * taken, its shards untested */
    {"--cpus-per-gpu=2 --gpus=a100:1 --gres=shard:1",
     {ONE, .cpus_per_tres = "gres:gpu:2", .tres_per_job = "gres:gpu:a100:1",
      .tres_per_node = "gres:shard:1"},
     1,
     0,
     1},
    /* --mem-per-gpu's record comes last: no overlap before the shards */
    {"--mem-per-gpu=100 --gpus=a100:1 --gres=shard:1",
     {ONE, .mem_per_tres = "gres:gpu:100", .tres_per_job = "gres:gpu:a100:1",
      .tres_per_node = "gres:shard:1"},
     ERR,
     0,
     0},
    {"23.11 the same per-socket shards: the largest reading",
     {.slurm_release = QD_SLURM_RELEASE(23, 11),
      .min_nodes = 3,
      .max_nodes = 3,
      .min_cpus = 3,
      .sockets_per_node = 2,
      .node_mem_mb = 1000,
      .tres_per_job = "gres/shard:4",
      .tres_per_socket = "gres/shard:1"},
     6,
     0,
     0},
    {"24.11 -N 3 --sockets-per-node=2, shard:4 per job, 1 per socket",
     {.slurm_release = R2411,
      .min_nodes = 3,
      .max_nodes = 3,
      .min_cpus = 3,
      .sockets_per_node = 2,
      .node_mem_mb = 1000,
      .tres_per_job = "gres/shard:4",
      .tres_per_socket = "gres/shard:1"},
     4,
     0,
     0},
    /* 24.05: a per-job count as given, shares too */
    {"24.11 tres_per_job shard:4 beside per node shard:1 on 2 nodes",
     {.slurm_release = R2411,
      .min_nodes = 2,
      .max_nodes = 2,
      .min_cpus = 2,
      .node_mem_mb = 1000,
      .tres_per_job = "gres/shard:4",
      .tres_per_node = "gres/shard:2"},
     4,
     0,
     0},
    /* names compare case-sensitively: not a share Slurm knows */
    {"--gres=SHARD:2", {ONE, .tres_per_node = "gres:SHARD:2"}, 0, 0, 0},
    /* --ntasks-per-gpu counts whole GPUs only */
    {"--gres=gpu:2,nic:1 --ntasks-per-gpu=2",
     {ONE, .ntasks_per_tres = 2, .tres_per_node = "gres:gpu:2,gres:nic:1"},
     0,
     0,
     2},
};

Test(request, shares)
{
	for (size_t i = 0; i < sizeof(share_cases) / sizeof(share_cases[0]);
	     i++) {
		const struct share_case *c = &share_cases[i];
		struct qd_tres t;
		char err[128] = "";
		int rc = qd_request_count(&c->req, &t, err, sizeof(err));

		if (c->shard == ERR) {
			cr_expect_eq(rc, -1, "%s: expected an error", c->name);
			continue;
		}
		cr_assert_eq(rc, 0, "%s: %s", c->name, err);
		expect(c->name, "gres/shard",
		       qd_tres_get(&t, QD_TRES_SHARD, 99), c->shard);
		expect(c->name, "gres/mps", qd_tres_get(&t, QD_TRES_MPS, 99),
		       c->mps);
		expect(c->name, "gres/gpu", qd_tres_get(&t, QD_TRES_GPU, 99),
		       c->gpu);
		cr_expect_eq(t.ntyped, c->gpu ? t.ntyped : 0, "%s: no GPU type",
			     c->name);
	}
}
