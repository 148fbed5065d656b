/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>

#include <criterion/criterion.h>

#include "prom_text.h"

Test(prom_text, family_and_samples)
{
	struct qd_prom p = {0};
	const char *labels[] = {"qos",	"gpu",	    "flag", NULL,
				"tres", "gres/gpu", NULL};

	qd_prom_family(&p, "qosdeny_x_total", "counter", "Things counted");
	qd_prom_u64(&p, "qosdeny_x_total", labels, 18446744073709551615ull);
	qd_prom_u64(&p, "qosdeny_x_total", NULL, 0);
	qd_prom_double(&p, "qosdeny_y_seconds", NULL, 0.25);
	cr_assert_not(p.oom);
	cr_assert_str_eq(p.text,
			 "# HELP qosdeny_x_total Things counted\n"
			 "# TYPE qosdeny_x_total counter\n"
			 "qosdeny_x_total{qos=\"gpu\",tres=\"gres/gpu\"} "
			 "18446744073709551615\n"
			 "qosdeny_x_total 0\n"
			 "qosdeny_y_seconds 0.25\n");
	cr_assert_eq(p.len, strlen(p.text));
	qd_prom_free(&p);
	cr_assert_null(p.text);
}

/* A label value can never end its quotes, its line or the text early. */
Test(prom_text, label_values_and_help_are_escaped)
{
	struct qd_prom p = {0};
	const char *labels[] = {"qos", "a\"b\\c\nd\te\x80\xc3\xa9", NULL};

	qd_prom_family(&p, "qosdeny_z", "gauge", "one\\two\nthree \"q\"");
	qd_prom_u64(&p, "qosdeny_z", labels, 1);
	cr_assert_str_eq(p.text,
			 "# HELP qosdeny_z one\\\\two\\nthree \"q\"\n"
			 "# TYPE qosdeny_z gauge\n"
			 "qosdeny_z{qos=\"a\\\"b\\\\c\\nd?e?\xc3\xa9\"} 1\n");
	qd_prom_free(&p);
}

/* UTF-8 is kept; overlong forms, surrogates and cut sequences are not. */
Test(prom_text, utf8)
{
	cr_assert_eq(qd_prom_utf8_len("a", 1), 1);
	cr_assert_eq(qd_prom_utf8_len("\xc3\xa9", 2), 2);
	cr_assert_eq(qd_prom_utf8_len("\xe2\x82\xac", 3), 3);
	cr_assert_eq(qd_prom_utf8_len("\xf0\x9f\x98\x80", 4), 4);
	cr_assert_eq(qd_prom_utf8_len("\xc3\xa9", 1), 0);
	cr_assert_eq(qd_prom_utf8_len("\xc0\xaf", 2), 0);
	cr_assert_eq(qd_prom_utf8_len("\xed\xa0\x80", 3), 0);
	cr_assert_eq(qd_prom_utf8_len("\xf4\x90\x80\x80", 4), 0);
	cr_assert_eq(qd_prom_utf8_len("\x80", 1), 0);
}

Test(prom_text, grows_past_its_first_block)
{
	struct qd_prom p = {0};
	char name[64];

	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "qosdeny_m%d", i);
		qd_prom_u64(&p, name, NULL, (uint64_t)i);
	}
	cr_assert_not(p.oom);
	cr_assert_gt(p.cap, 4096);
	cr_assert_not_null(strstr(p.text, "\nqosdeny_m1999 1999\n"));
	cr_assert_eq(p.len, strlen(p.text));
	qd_prom_free(&p);
}
