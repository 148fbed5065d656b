/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_request_count: every job description a user submits, fields as the
 * client filled them in (sbatch, salloc, srun, or a hand-made RPC: nothing
 * in them is trusted).
 *
 * Input: a first line of blank-separated decimal numbers, then the six
 * request strings separated by NULs:
 *
 *   min_nodes max_nodes num_tasks min_cpus cpus_per_task ntasks_per_node
 *   sockets_per_node ntasks_per_socket ntasks_per_tres mem flags
 *   pn_min_cpus part_min_nodes def_mem node_mem \n
 *   tres_per_job \0 tres_per_node \0 tres_per_socket \0 tres_per_task \0
 *   mem_per_tres \0 cpus_per_tres
 *
 * A missing number is 0 (not given); numbers wrap to the field's width, as a
 * client could send any bit pattern. flags: 1 overcommit, 2 mem_set,
 * 4 mem_per_cpu, 8 def_mem_per_cpu; 0x10 << i makes an empty string i NULL
 * rather than "", 0x400 passes no request at all, 0x800 reads the strings
 * and counts as Slurm 26.05 does. A missing string is NULL.
 * Each string is its own heap block of its exact size, so that ASan sees a read
 * past its end.
 *
 * Checks, beyond the sanitizers: the input strings are not written; the
 * answer is the same twice over; a failure leaves *out empty and says why;
 * a success has cpu, mem, node and gres/gpu set, none of them QD_UNLIMITED
 * (counts saturate below it, or they would read as "no limit"), node at
 * least 1 and at least min_nodes, cpu at least min_cpus, and gres/gpu at
 * least the sum of the gres/gpu:<type> counts (request.c sums every GPU
 * record into gres/gpu and gives each type one record's total; of two
 * records whose types differ only in case the later one's). A request that
 * names no GPU at all counts none.
 */
#include "fuzz_util.h"
#include "request.h"

#define NSTR 6

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > QD_UNLIMITED - 1 - b ? QD_UNLIMITED - 1 : a + b;
}

/* Numbers up to the first '\n'; returns where the strings start, past the
 * end when there is no '\n' (no strings at all). */
static size_t read_numbers(const uint8_t *data, size_t size, uint64_t *num,
			   size_t nnum)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t len = nl ? (size_t)(nl - data) : size;
	char *line = fuzz_strndup(data, len), *p = line;

	for (size_t i = 0; i < nnum; i++)
		num[i] = 0;
	for (size_t i = 0; i < nnum && *p;) {
		char *end;

		if (*p < '0' || *p > '9') {
			p++;
			continue;
		}
		num[i++] = strtoull(p, &end, 10);
		p = end;
	}
	free(line);
	return len + 1;
}

static void check_counts(const struct qd_job_request *r,
			 const struct qd_tres *t, bool names_gpu)
{
	uint64_t gpu = qd_tres_get(t, QD_TRES_GPU, 0), typed = 0;

	for (int id = 0; id < QD_TRES_FIXED; id++) {
		FUZZ_ASSERT(t->set[id], "%s not set", qd_tres_name(id));
		FUZZ_ASSERT(t->v[id] != QD_UNLIMITED, "%s reads as unlimited",
			    qd_tres_name(id));
	}
	FUZZ_ASSERT(t->v[QD_TRES_NODE] >= 1, "no node");
	FUZZ_ASSERT(t->v[QD_TRES_NODE] >= r->min_nodes,
		    "node %" PRIu64 " < min_nodes %" PRIu32, t->v[QD_TRES_NODE],
		    r->min_nodes);
	FUZZ_ASSERT(t->v[QD_TRES_CPU] >= 1, "no cpu");
	FUZZ_ASSERT(t->v[QD_TRES_CPU] >= r->min_cpus,
		    "cpu %" PRIu64 " < min_cpus %" PRIu32, t->v[QD_TRES_CPU],
		    r->min_cpus);
	fuzz_check_typed(t);
	for (size_t i = 0; i < t->ntyped; i++) {
		FUZZ_ASSERT(t->typed[i].value != QD_UNLIMITED,
			    "gres/gpu:%s reads as unlimited", t->typed[i].type);
		FUZZ_ASSERT(t->typed[i].value <= gpu,
			    "gres/gpu:%s %" PRIu64 " > gres/gpu %" PRIu64,
			    t->typed[i].type, t->typed[i].value, gpu);
		typed = sat_add(typed, t->typed[i].value);
	}
	FUZZ_ASSERT(typed <= gpu, "typed GPUs %" PRIu64 " > gres/gpu %" PRIu64,
		    typed, gpu);
	if (!names_gpu)
		FUZZ_ASSERT(gpu == 0 && t->ntyped == 0,
			    "%" PRIu64 " GPUs from a request naming none", gpu);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t errlens[] = {256, 0, 1, 16, 512};
	size_t errlen = errlens[size % 5];
	uint64_t n[15];
	size_t off = read_numbers(data, size, n, 15);
	char *str[NSTR] = {0}, *copy[NSTR] = {0};
	size_t len[NSTR] = {0};
	struct qd_job_request r = {
	    .slurm_release = n[10] & 0x800 ? QD_SLURM_RELEASE(26, 5) : 0,
	    .min_nodes = n[0],
	    .max_nodes = n[1],
	    .num_tasks = n[2],
	    .min_cpus = n[3],
	    .cpus_per_task = n[4],
	    .ntasks_per_node = n[5],
	    .sockets_per_node = n[6],
	    .ntasks_per_socket = n[7],
	    .ntasks_per_tres = n[8],
	    .mem_mb = n[9],
	    .overcommit = n[10] & 1,
	    .mem_set = n[10] & 2,
	    .mem_per_cpu = n[10] & 4,
	    .def_mem_per_cpu = n[10] & 8,
	    .pn_min_cpus = n[11],
	    .part_min_nodes = n[12],
	    .def_mem_mb = n[13],
	    .node_mem_mb = n[14],
	};
	struct qd_tres out, again;
	char *err = fuzz_errbuf(errlen), *err2 = fuzz_errbuf(errlen);
	bool names_gpu = r.ntasks_per_tres != 0;
	int rc;

	for (int i = 0; i < NSTR && off <= size; i++) {
		const uint8_t *nul = memchr(data + off, '\0', size - off);

		len[i] = nul ? (size_t)(nul - (data + off)) : size - off;
		if (len[i] || !(n[10] & (0x10 << i))) {
			str[i] = fuzz_strndup(data + off, len[i]);
			copy[i] = fuzz_strndup(data + off, len[i]);
			names_gpu |= r.slurm_release
					 ? strstr(str[i], "gres") &&
					       strstr(str[i], "gpu")
					 : strstr(str[i], "gres:gpu") != NULL;
		}
		off += len[i] + 1;
	}
	r.tres_per_job = str[0];
	r.tres_per_node = str[1];
	r.tres_per_socket = str[2];
	r.tres_per_task = str[3];
	r.mem_per_tres = str[4];
	r.cpus_per_tres = str[5];

	memset(&out, 0xa5, sizeof(out)); /* must be initialised by the call */
	rc = qd_request_count(n[10] & 0x400 ? NULL : &r, &out, err, errlen);
	FUZZ_ASSERT(rc == 0 || rc == -1, "rc %d", rc);
	for (int i = 0; i < NSTR; i++)
		FUZZ_ASSERT(!str[i] || !memcmp(str[i], copy[i], len[i] + 1),
			    "request string %d written", i);
	if (rc) {
		struct qd_tres empty;

		qd_tres_init(&empty);
		FUZZ_ASSERT(!memcmp(&out, &empty, sizeof(out)),
			    "counts left after a failure");
		fuzz_check_err(err, errlen, true);
	} else {
		FUZZ_ASSERT(!(n[10] & 0x400), "no request counted");
		check_counts(&r, &out, names_gpu);
	}
	FUZZ_ASSERT(qd_request_count(n[10] & 0x400 ? NULL : &r, &again, err2,
				     errlen) == rc,
		    "second call differs");
	FUZZ_ASSERT(fuzz_tres_equal(&out, &again), "second count differs");
	if (rc && errlen)
		FUZZ_ASSERT(!strcmp(err, err2), "'%s' then '%s'", err, err2);

	for (int i = 0; i < NSTR; i++) {
		free(str[i]);
		free(copy[i]);
	}
	free(err);
	free(err2);
	return 0;
}
