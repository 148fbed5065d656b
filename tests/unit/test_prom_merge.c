/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <criterion/criterion.h>

#include "prom_merge.h"

static const char ctld[] = "# HELP qosdeny_a_total A\n"
			   "# TYPE qosdeny_a_total counter\n"
			   "qosdeny_a_total{qos=\"x\"} 1\n";
static const char node1[] = "# HELP qosdeny_b B\n"
			    "# TYPE qosdeny_b gauge\n"
			    "qosdeny_b{node=\"n1\"} 2\n";
static const char node2[] = "# HELP qosdeny_b B\n"
			    "# TYPE qosdeny_b gauge\n"
			    "qosdeny_b{node=\"n2\"} 3\n";

/* Two nodes' files hold the same family: its HELP and TYPE once. */
Test(prom_merge, each_family_once_with_every_file_s_samples)
{
	const char *texts[] = {ctld, node1, node2};
	struct qd_prom out = {0};
	size_t skipped;

	cr_assert_eq(qd_prom_merge(texts, 3, &out, &skipped), 0);
	cr_assert_eq(skipped, 0);
	cr_assert_str_eq(out.text, "# HELP qosdeny_a_total A\n"
				   "# TYPE qosdeny_a_total counter\n"
				   "qosdeny_a_total{qos=\"x\"} 1\n"
				   "# HELP qosdeny_b B\n"
				   "# TYPE qosdeny_b gauge\n"
				   "qosdeny_b{node=\"n1\"} 2\n"
				   "qosdeny_b{node=\"n2\"} 3\n");
	qd_prom_free(&out);
}

/* Only qosdeny's metrics pass: another name, a comment, a control byte, a
 * name alone, a line with no newline at the end of the file. */
Test(prom_merge, other_lines_are_left_out_and_counted)
{
	const char *texts[] = {"# HELP qosdeny_c C\n"
			       "node_load1 1\n"
			       "# a comment\n"
			       "qosdeny_c 1\x1b[2J\n"
			       "qosdeny_c\n"
			       "qosdeny_cx\n"
			       "\n"
			       "qosdeny_c 4"};
	struct qd_prom out = {0};
	size_t skipped;

	cr_assert_eq(qd_prom_merge(texts, 1, &out, &skipped), 0);
	cr_assert_eq(skipped, 5);
	cr_assert_str_eq(out.text, "# HELP qosdeny_c C\n"
				   "qosdeny_c 4\n");
	qd_prom_free(&out);
}

Test(prom_merge, nothing_in_nothing_out)
{
	const char *texts[] = {""};
	struct qd_prom out = {0};
	size_t skipped;

	cr_assert_eq(qd_prom_merge(texts, 1, &out, &skipped), 0);
	cr_assert_eq(out.len, 0);
	qd_prom_free(&out);
}
