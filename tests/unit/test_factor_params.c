/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_factor_params_parse: PrioritySiteFactorParameters (docs/fair-share.md,
 * "GPU fair share in job priority"), "weight=N,interval=SECONDS".
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "factor_params.h"

#define PREFIX "PrioritySiteFactorParameters: "

/* Parsed values, the parser having started from garbage. */
static struct qd_factor_params ok(const char *text)
{
	struct qd_factor_params p = {12345, 54321};
	char err[QD_FACTOR_ERR_MAX] = "untouched";

	cr_assert_eq(qd_factor_params_parse(text, &p, err, sizeof(err)), 0,
		     "'%s' rejected: %s", text ? text : "(null)", err);
	return p;
}

static void expect(const char *text, uint32_t weight, uint32_t interval)
{
	struct qd_factor_params p = ok(text);

	cr_expect_eq(p.weight, weight, "'%s': weight %u, expected %u", text,
		     p.weight, weight);
	cr_expect_eq(p.interval_s, interval, "'%s': interval %u, expected %u",
		     text, p.interval_s, interval);
}

Test(factor_params, defaults)
{
	cr_assert_eq(QD_FACTOR_WEIGHT_DEFAULT, 10000);
	cr_assert_eq(QD_FACTOR_INTERVAL_DEFAULT, 60);
	expect(NULL, 10000, 60);
	expect("", 10000, 60);
}

Test(factor_params, the_contract_line)
{
	expect("weight=10000,interval=60", 10000, 60);
}

Test(factor_params, one_key_keeps_the_other_default)
{
	expect("weight=0", 0, 60);
	expect("weight=1", 1, 60);
	expect("weight=1000000", 1000000, 60);
	expect("interval=5", 10000, 5);
	expect("interval=3600", 10000, 3600);
	expect("interval=61", 10000, 61);
}

Test(factor_params, keys_case_insensitive_either_order)
{
	expect("Weight=5,INTERVAL=10", 5, 10);
	expect("interval=10,weight=5", 5, 10);
	expect("WEIGHT=7", 7, 60);
	expect("iNtErVaL=3599", 10000, 3599);
}

/* Leading zeros are still a decimal number in range, however many. */
Test(factor_params, leading_zeros)
{
	expect("weight=007,interval=0005", 7, 5);
	expect("weight=00000000000000000001", 1, 60);
	expect("weight=0000000000000000000000000", 0, 60);
	expect("interval=000000000000003600", 10000, 3600);
}

struct bad {
	char text[96];
	char err[160];
};

ParameterizedTestParameters(factor_params, errors)
{
	static struct bad cases[] = {
	    {"foo=1", PREFIX "unknown parameter 'foo=1'"},
	    {"weight=1,foo=1", PREFIX "unknown parameter 'foo=1'"},
	    {"weights=1", PREFIX "unknown parameter 'weights=1'"},
	    {"weigh=1", PREFIX "unknown parameter 'weigh=1'"},
	    {"weight =5", PREFIX "unknown parameter 'weight =5'"},
	    {" weight=5", PREFIX "unknown parameter ' weight=5'"},
	    {"=5", PREFIX "unknown parameter '=5'"},
	    {"x", PREFIX "unknown parameter 'x'"},
	    {"weight=1000001",
	     PREFIX "weight must be 0 to 1000000: 'weight=1000001'"},
	    {"weight=4294967296",
	     PREFIX "weight must be 0 to 1000000: 'weight=4294967296'"},
	    {"weight=99999999999999999999999",
	     PREFIX "weight must be 0 to 1000000: "
		    "'weight=99999999999999999999999'"},
	    {"interval=4", PREFIX "interval must be 5 to 3600: 'interval=4'"},
	    {"interval=0", PREFIX "interval must be 5 to 3600: 'interval=0'"},
	    {"interval=3601",
	     PREFIX "interval must be 5 to 3600: 'interval=3601'"},
	    {"weight=abc", PREFIX "weight must be 0 to 1000000: 'weight=abc'"},
	    {"weight=-1", PREFIX "weight must be 0 to 1000000: 'weight=-1'"},
	    {"weight=+1", PREFIX "weight must be 0 to 1000000: 'weight=+1'"},
	    {"weight= 5", PREFIX "weight must be 0 to 1000000: 'weight= 5'"},
	    {"weight=5 ", PREFIX "weight must be 0 to 1000000: 'weight=5 '"},
	    {"weight=", PREFIX "weight must be 0 to 1000000: 'weight='"},
	    {"weight", PREFIX "weight must be 0 to 1000000: 'weight'"},
	    {"weight=1.5", PREFIX "weight must be 0 to 1000000: 'weight=1.5'"},
	    {"weight=0x10",
	     PREFIX "weight must be 0 to 1000000: 'weight=0x10'"},
	    {"weight=1=2", PREFIX "weight must be 0 to 1000000: 'weight=1=2'"},
	    {"interval=60s",
	     PREFIX "interval must be 5 to 3600: 'interval=60s'"},
	    {"interval=1:00",
	     PREFIX "interval must be 5 to 3600: 'interval=1:00'"},
	    {"weight=1,weight=2", PREFIX "given twice: 'weight=2'"},
	    {"weight=1,WEIGHT=1", PREFIX "given twice: 'WEIGHT=1'"},
	    {"interval=5,weight=1,Interval=6",
	     PREFIX "given twice: 'Interval=6'"},
	    /* The repetition is the error, whatever its value. */
	    {"weight=1,weight=abc", PREFIX "given twice: 'weight=abc'"},
	    {",weight=1", PREFIX "empty item in ',weight=1'"},
	    {"weight=1,", PREFIX "empty item in 'weight=1,'"},
	    {"weight=1,,interval=5", PREFIX "empty item in "
					    "'weight=1,,interval=5'"},
	    {",", PREFIX "empty item in ','"},
	    /* Items are checked in order: the first bad one is named. */
	    {"foo=1,weight=abc", PREFIX "unknown parameter 'foo=1'"},
	    {"weight=abc,foo=1", PREFIX "weight must be 0 to 1000000: "
					"'weight=abc'"},
	    {"weight=1 interval=5",
	     PREFIX "weight must be 0 to 1000000: 'weight=1 interval=5'"},
	    {"weight=1;interval=5",
	     PREFIX "weight must be 0 to 1000000: 'weight=1;interval=5'"},
	};

	return cr_make_param_array(struct bad, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

/* A refusal names the item, and leaves the parameters as they were. */
ParameterizedTest(struct bad *c, factor_params, errors)
{
	struct qd_factor_params p = {12345, 54321};
	char err[QD_FACTOR_ERR_MAX] = "";

	cr_assert_eq(qd_factor_params_parse(c->text, &p, err, sizeof(err)), -1,
		     "'%s' accepted", c->text);
	cr_expect_str_eq(err, c->err);
	cr_expect_eq(p.weight, 12345, "'%s' changed weight to %u", c->text,
		     p.weight);
	cr_expect_eq(p.interval_s, 54321, "'%s' changed interval to %u",
		     c->text, p.interval_s);
}

/* A huge item is cut to 200 characters in the message. */
Test(factor_params, long_item_cut_in_the_message)
{
	static char text[5000], want[512];
	struct qd_factor_params p;
	char err[QD_FACTOR_ERR_MAX];

	memset(text, 'k', sizeof(text) - 1);
	cr_assert_eq(qd_factor_params_parse(text, &p, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), PREFIX "unknown parameter '%.200s'", text);
	cr_expect_str_eq(err, want);
	cr_expect_eq(strlen(err), strlen(PREFIX "unknown parameter ''") + 200);

	memcpy(text, "weight=", 7);
	memset(text + 7, '1', sizeof(text) - 8);
	cr_assert_eq(qd_factor_params_parse(text, &p, err, sizeof(err)), -1);
	snprintf(want, sizeof(want),
		 PREFIX "weight must be 0 to 1000000: '%.200s'", text);
	cr_expect_str_eq(err, want);
}

/* An empty item in a long text: the message shows the text's start. */
Test(factor_params, long_text_with_an_empty_item)
{
	static char text[3000];
	char err[QD_FACTOR_ERR_MAX], want[QD_FACTOR_ERR_MAX];
	struct qd_factor_params p;
	size_t n = 0;

	n += (size_t)snprintf(text, sizeof(text), "weight=1,,");
	memset(text + n, 'z', sizeof(text) - n - 1);
	cr_assert_eq(qd_factor_params_parse(text, &p, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), PREFIX "empty item in '%.200s'", text);
	cr_expect_str_eq(err, want);
}

/* The message is cut to the buffer, never written past it. */
Test(factor_params, small_error_buffer)
{
	char buf[32];
	struct qd_factor_params p;

	memset(buf, '#', sizeof(buf));
	cr_assert_eq(qd_factor_params_parse("foo=1", &p, buf, 10), -1);
	cr_expect_str_eq(buf, "PriorityS");
	cr_expect_eq(buf[9], '\0');
	for (size_t i = 10; i < sizeof(buf); i++)
		cr_expect_eq(buf[i], '#', "byte %zu written", i);
	memset(buf, '#', sizeof(buf));
	cr_assert_eq(qd_factor_params_parse("foo=1", &p, buf, 1), -1);
	cr_expect_eq(buf[0], '\0');
	cr_expect_eq(buf[1], '#');
}
