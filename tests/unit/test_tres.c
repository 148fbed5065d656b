/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tres.h"

static struct qd_tres parse_ok(const char *text)
{
	struct qd_tres t;
	char err[256] = "";

	qd_tres_init(&t);
	cr_assert_eq(qd_tres_parse(text, &t, err, sizeof(err)), 0,
		     "'%s' rejected: %s", text, err);
	return t;
}

Test(tres, parses_the_contract_example)
{
	struct qd_tres t =
	    parse_ok("cpu=16,mem=64G,node=2,gres/gpu=4,gres/gpu:a100=2");

	cr_assert_eq(qd_tres_get(&t, QD_TRES_CPU, 0), 16);
	cr_assert_eq(qd_tres_get(&t, QD_TRES_MEM, 0), 65536);
	cr_assert_eq(qd_tres_get(&t, QD_TRES_NODE, 0), 2);
	cr_assert_eq(qd_tres_get(&t, QD_TRES_GPU, 0), 4);
	cr_assert_eq(qd_tres_get_typed(&t, "a100", 0), 2);
	cr_assert_eq(t.ntyped, 1);
}

Test(tres, absent_tres_reads_as_the_default)
{
	struct qd_tres t = parse_ok("cpu=1");

	cr_assert_not(t.set[QD_TRES_MEM]);
	cr_assert_eq(qd_tres_get(&t, QD_TRES_MEM, 7), 7);
	cr_assert_eq(qd_tres_get(&t, QD_TRES_GPU, QD_UNLIMITED), QD_UNLIMITED);
	cr_assert_eq(qd_tres_get_typed(&t, "a100", 9), 9);
}

Test(tres, keys_are_case_insensitive_and_types_lowercased)
{
	struct qd_tres t = parse_ok("CPU=3,Mem=1,GRES/GPU:A100=5,Node=1");

	cr_assert_eq(qd_tres_get(&t, QD_TRES_CPU, 0), 3);
	cr_assert_eq(qd_tres_get(&t, QD_TRES_NODE, 0), 1);
	cr_assert_str_eq(t.typed[0].type, "a100");
	cr_assert_eq(qd_tres_get_typed(&t, "A100", 0), 5);
}

Test(tres, minus_one_is_unlimited)
{
	struct qd_tres t = parse_ok("cpu=-1,mem=-1,gres/gpu:v100=-1");

	cr_assert_eq(qd_tres_get(&t, QD_TRES_CPU, 0), QD_UNLIMITED);
	cr_assert_eq(qd_tres_get(&t, QD_TRES_MEM, 0), QD_UNLIMITED);
	cr_assert_eq(qd_tres_get_typed(&t, "v100", 0), QD_UNLIMITED);
}

Test(tres, zero_is_a_limit_not_absence)
{
	struct qd_tres t = parse_ok("gres/gpu=0,gres/gpu:t4=0");

	cr_assert(t.set[QD_TRES_GPU]);
	cr_assert_eq(qd_tres_get(&t, QD_TRES_GPU, QD_UNLIMITED), 0);
	cr_assert_eq(qd_tres_get_typed(&t, "t4", QD_UNLIMITED), 0);
}

/* Parameters are copied into the test's process, so strings are held in
 * place rather than pointed to. */
struct mem_case {
	char text[32];
	uint64_t mib;
};

ParameterizedTestParameters(tres, mem_suffixes)
{
	static struct mem_case cases[] = {
	    {"mem=100", 100},	    {"mem=100M", 100}, {"mem=100m", 100},
	    {"mem=2G", 2048},	    {"mem=2g", 2048},  {"mem=1T", 1048576},
	    {"mem=1P", 1073741824}, {"mem=2048K", 2},  {"mem=1K", 1},
	    {"mem=1025k", 2},	    {"mem=0K", 0},
	};
	return cr_make_param_array(struct mem_case, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct mem_case *c, tres, mem_suffixes)
{
	struct qd_tres t = parse_ok(c->text);

	cr_assert_eq(qd_tres_get(&t, QD_TRES_MEM, 0), c->mib, "%s", c->text);
}

struct bad_case {
	char text[64];
	char err[128];
};

ParameterizedTestParameters(tres, errors)
{
	static struct bad_case cases[] = {
	    {"gres/gpu=abc", "invalid TRES count 'gres/gpu=abc'"},
	    {"license/foo=1", "unknown TRES 'license/foo=1'"},
	    {"billing=1", "unknown TRES 'billing=1'"},
	    {"energy=1", "unknown TRES 'energy=1'"},
	    {"gres/gpuu=1", "unknown TRES 'gres/gpuu=1'"},
	    {"cpu=1,cpu=2", "TRES 'cpu' given twice"},
	    {"cpu=1,CPU=2", "TRES 'cpu' given twice"},
	    {"gres/gpu:a100=1,gres/gpu:a100=2",
	     "TRES 'gres/gpu:a100' given twice"},
	    {"cpu=1,,mem=2", "empty TRES item in 'cpu=1,,mem=2'"},
	    {"cpu=1,", "empty TRES item in 'cpu=1,'"},
	    {",cpu=1", "empty TRES item in ',cpu=1'"},
	    {"", "empty TRES item in ''"},
	    {"cpu", "missing TRES count 'cpu'"},
	    {"cpu=", "invalid TRES count 'cpu='"},
	    {"cpu=+1", "invalid TRES count 'cpu=+1'"},
	    {"cpu= 1", "invalid TRES count 'cpu= 1'"},
	    {"cpu=-2", "invalid TRES count 'cpu=-2'"},
	    {"cpu=4G", "invalid TRES count 'cpu=4G'"},
	    {"mem=1X", "invalid TRES count 'mem=1X'"},
	    {"mem=1GB", "invalid TRES count 'mem=1GB'"},
	    {"mem=G", "invalid TRES count 'mem=G'"},
	    {"mem=-1G", "invalid TRES count 'mem=-1G'"},
	    {"cpu=18446744073709551615",
	     "invalid TRES count 'cpu=18446744073709551615'"},
	    {"cpu=99999999999999999999",
	     "invalid TRES count 'cpu=99999999999999999999'"},
	    {"mem=17179869184P", "invalid TRES count 'mem=17179869184P'"},
	    {"gres/gpu:=1", "invalid GPU type 'gres/gpu:=1'"},
	    {"gres/gpu:a/b=1", "invalid GPU type 'gres/gpu:a/b=1'"},
	    {"gres/gpu:abcdefghijabcdefghijabcdefghijab=1",
	     "GPU type name too long "
	     "'gres/gpu:abcdefghijabcdefghijabcdefghijab=1'"},
	};
	return cr_make_param_array(struct bad_case, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_case *c, tres, errors)
{
	struct qd_tres t;
	char err[256] = "";

	qd_tres_init(&t);
	cr_assert_eq(qd_tres_parse(c->text, &t, err, sizeof(err)), -1,
		     "'%s' accepted", c->text);
	cr_assert_str_eq(err, c->err);
}

Test(tres, largest_counts_fit)
{
	struct qd_tres t =
	    parse_ok("cpu=18446744073709551614,mem=17179869183P");

	cr_assert_eq(qd_tres_get(&t, QD_TRES_CPU, 0), QD_UNLIMITED - 1);
	cr_assert_eq(qd_tres_get(&t, QD_TRES_MEM, 0),
		     17179869183ULL * 1024 * 1024 * 1024);
}

Test(tres, failed_parse_leaves_out_untouched)
{
	struct qd_tres t;
	char err[256];

	qd_tres_init(&t);
	qd_tres_set(&t, QD_TRES_NODE, 3);
	cr_assert_eq(
	    qd_tres_parse("cpu=1,gres/gpu:a100=2,mem=x", &t, err, sizeof(err)),
	    -1);
	cr_assert_not(t.set[QD_TRES_CPU]);
	cr_assert_eq(t.ntyped, 0);
	cr_assert_eq(qd_tres_get(&t, QD_TRES_NODE, 0), 3);
}

Test(tres, parse_merges_into_out)
{
	struct qd_tres t;
	char err[256];

	qd_tres_init(&t);
	qd_tres_set(&t, QD_TRES_NODE, 3);
	cr_assert_eq(qd_tres_parse("cpu=1", &t, err, sizeof(err)), 0);
	cr_assert_eq(qd_tres_get(&t, QD_TRES_NODE, 0), 3);
	cr_assert_eq(qd_tres_get(&t, QD_TRES_CPU, 0), 1);
}

Test(tres, too_many_gpu_types)
{
	char text[1024] = "", err[256];
	struct qd_tres t;
	size_t len = 0;

	for (int i = 0; i <= QD_TYPES_MAX; i++)
		len += snprintf(text + len, sizeof(text) - len,
				"%sgres/gpu:t%d=1", i ? "," : "", i);
	qd_tres_init(&t);
	cr_assert_eq(qd_tres_parse(text, &t, err, sizeof(err)), -1);
	cr_assert_str_eq(err, "too many GPU types 'gres/gpu:t16=1'");
}

Test(tres, typed_entries_stay_sorted)
{
	struct qd_tres t;

	qd_tres_init(&t);
	cr_assert_eq(qd_tres_set_typed(&t, "v100", 1), 0);
	cr_assert_eq(qd_tres_set_typed(&t, "a100", 2), 0);
	cr_assert_eq(qd_tres_set_typed(&t, "h100", 3), 0);
	cr_assert_eq(qd_tres_set_typed(&t, "A100", 4), 0);
	cr_assert_eq(t.ntyped, 3);
	cr_assert_str_eq(t.typed[0].type, "a100");
	cr_assert_eq(t.typed[0].value, 4);
	cr_assert_str_eq(t.typed[1].type, "h100");
	cr_assert_str_eq(t.typed[2].type, "v100");
}

Test(tres, set_typed_rejects_long_names_and_full_vectors)
{
	char name[8];
	struct qd_tres t;

	qd_tres_init(&t);
	cr_assert_eq(
	    qd_tres_set_typed(&t, "abcdefghijabcdefghijabcdefghijab", 1), -1);
	for (int i = 0; i < QD_TYPES_MAX; i++) {
		snprintf(name, sizeof(name), "t%02d", i);
		cr_assert_eq(qd_tres_set_typed(&t, name, 1), 0);
	}
	cr_assert_eq(qd_tres_set_typed(&t, "extra", 1), -1);
	cr_assert_eq(qd_tres_set_typed(&t, "t05", 9), 0);
	cr_assert_eq(qd_tres_get_typed(&t, "t05", 0), 9);
}

Test(tres, add_typed_sums_and_saturates)
{
	struct qd_tres t;

	qd_tres_init(&t);
	cr_assert_eq(qd_tres_add_typed(&t, "a100", 2), 0);
	cr_assert_eq(qd_tres_add_typed(&t, "a100", 3), 0);
	cr_assert_eq(qd_tres_get_typed(&t, "a100", 0), 5);
	cr_assert_eq(qd_tres_add_typed(&t, "a100", QD_UNLIMITED - 2), 0);
	cr_assert_eq(qd_tres_get_typed(&t, "a100", 0), QD_UNLIMITED - 1);
	cr_assert_eq(qd_tres_add_typed(&t, "t4", QD_UNLIMITED), 0);
	cr_assert_eq(qd_tres_get_typed(&t, "t4", 0), QD_UNLIMITED - 1);
}

Test(tres, names)
{
	cr_assert_str_eq(qd_tres_name(QD_TRES_CPU), "cpu");
	cr_assert_str_eq(qd_tres_name(QD_TRES_MEM), "mem");
	cr_assert_str_eq(qd_tres_name(QD_TRES_NODE), "node");
	cr_assert_str_eq(qd_tres_name(QD_TRES_GPU), "gres/gpu");
	cr_assert_str_eq(qd_tres_name(QD_TRES_SHARD), "gres/shard");
	cr_assert_str_eq(qd_tres_name(QD_TRES_MPS), "gres/mps");
}

/* The GPU-sharing TRES, as sacctmgr takes them; a typed share is not one
 * qosdeny caps, and says so rather than capping the wrong thing. */
Test(tres, shares_of_a_gpu)
{
	struct qd_tres t;
	char err[128];

	qd_tres_init(&t);
	cr_assert_eq(qd_tres_parse("gres/shard=8,GRES/MPS=400,gres/gpu=2", &t,
				   err, sizeof(err)),
		     0, "%s", err);
	cr_expect_eq(qd_tres_get(&t, QD_TRES_SHARD, 0), 8);
	cr_expect_eq(qd_tres_get(&t, QD_TRES_MPS, 0), 400);
	cr_expect_eq(qd_tres_get(&t, QD_TRES_GPU, 0), 2);
	cr_expect_eq(t.ntyped, 0);
	cr_expect_eq(qd_tres_parse("gres/shard:a100=2", &t, err, sizeof(err)),
		     -1);
	cr_expect_str_eq(err, "unknown TRES 'gres/shard:a100=2'");
	cr_expect_eq(
	    qd_tres_parse("gres/shard=1,gres/shard=2", &t, err, sizeof(err)),
	    -1);
	cr_expect_str_eq(err, "TRES 'gres/shard' given twice");
}

Test(tres, format_value)
{
	char buf[32];

	qd_tres_format_value(QD_TRES_MEM, 65536, buf, sizeof(buf));
	cr_assert_str_eq(buf, "65536M");
	qd_tres_format_value(QD_TRES_GPU, 5, buf, sizeof(buf));
	cr_assert_str_eq(buf, "5");
	qd_tres_format_value(QD_TRES_CPU, QD_UNLIMITED, buf, sizeof(buf));
	cr_assert_str_eq(buf, "unlimited");
}

/* slurmctld's TRES names, as assoc_mgr lists them (scontrol show
 * assoc_mgr), into a vector; the TRES qosdeny does not cover are left out. */
Test(tres, set_named)
{
	struct qd_tres t;

	qd_tres_init(&t);
	cr_expect_eq(qd_tres_set_named(&t, "cpu", 8), 0);
	cr_expect_eq(qd_tres_set_named(&t, "mem", 1024), 0);
	cr_expect_eq(qd_tres_set_named(&t, "gres/gpu", 4), 0);
	cr_expect_eq(qd_tres_set_named(&t, "gres/gpu:a100", 2), 0);
	cr_expect_eq(qd_tres_set_named(&t, "gres/shard", 16), 0);
	cr_expect_eq(qd_tres_set_named(&t, "gres/mps", 400), 0);
	cr_expect_eq(qd_tres_set_named(&t, "gres/shard:a100", 7), 1);
	cr_expect_eq(qd_tres_set_named(&t, "energy", 7), 1);
	cr_expect_eq(qd_tres_set_named(&t, "gres/gpumem", 7), 1);
	cr_expect_eq(qd_tres_set_named(&t, "gres/gpu:", 7), 1);
	cr_expect_eq(qd_tres_set_named(&t, "gres/gpu:a b", 7), 1);
	cr_expect_eq(qd_tres_get(&t, QD_TRES_CPU, 0), 8);
	cr_expect_eq(qd_tres_get(&t, QD_TRES_MEM, 0), 1024);
	cr_expect_eq(qd_tres_get(&t, QD_TRES_GPU, 0), 4);
	cr_expect_eq(qd_tres_get_typed(&t, "a100", 0), 2);
	cr_expect_eq(qd_tres_get(&t, QD_TRES_SHARD, 0), 16);
	cr_expect_eq(qd_tres_get(&t, QD_TRES_MPS, 0), 400);
	cr_expect_eq(t.ntyped, 1);
	cr_expect_not(t.set[QD_TRES_NODE]);
}
