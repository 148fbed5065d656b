/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "policy.h"

/* Held in place: parameters are copied into the test's process. */
struct time_case {
	char text[32];
	int64_t seconds;
};

ParameterizedTestParameters(slurm_time, formats)
{
	static struct time_case cases[] = {
	    {"0", 0},
	    {"30", 30 * 60},
	    {"30:15", 30 * 60 + 15},
	    {"2:30:15", 2 * 3600 + 30 * 60 + 15},
	    {"7-0", 7 * 86400},
	    {"1-2", 86400 + 2 * 3600},
	    {"1-2:30", 86400 + 2 * 3600 + 30 * 60},
	    {"1-2:30:15", 86400 + 2 * 3600 + 30 * 60 + 15},
	    {"0-0:0:1", 1},
	    {"90", 90 * 60},
	    {"007-00", 7 * 86400},
	    {"106751991167300-15:30:07", INT64_MAX},
	};
	return cr_make_param_array(struct time_case, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct time_case *c, slurm_time, formats)
{
	cr_assert_eq(qd_parse_slurm_time(c->text), c->seconds, "%s", c->text);
}

ParameterizedTestParameters(slurm_time, rejected)
{
	static char cases[][32] = {
	    "",
	    "-1",
	    "-1-0",
	    "1-",
	    "-",
	    "1:",
	    ":1",
	    "1::2",
	    "1:2:3:4",
	    "1-2:3:4:5",
	    "1-2-3",
	    "abc",
	    "7d",
	    " 7",
	    "7 ",
	    "+7",
	    "0x10",
	    "UNLIMITED",
	    "INFINITE",
	    "unlimited",
	    "106751991167300-15:30:08",
	    "99999999999999999999",
	    "153722867280912931",
	};
	return cr_make_param_array(char[32], cases,
				   sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(char (*text)[32], slurm_time, rejected)
{
	cr_assert_eq(qd_parse_slurm_time(*text), -1, "'%s' accepted", *text);
}
