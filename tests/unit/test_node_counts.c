/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "node_counts.h"
#include "node_text.h"

static char dir[] = "/tmp/qd-node-counts.XXXXXX";
static char err[512];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[sizeof(dir) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(node_counts, .init = setup, .fini = teardown);

/* Without the file an event counts nowhere, and nothing fails. */
Test(node_counts, no_file_no_count)
{
	struct qd_node_counts c;

	qd_node_counts_add(dir, QD_NC_SENT, 1);
	cr_assert_eq(qd_node_counts_read(dir, &c, err, sizeof(err)), -1);
	cr_assert_not_null(strstr(err, "metrics.counts"), "%s", err);
}

Test(node_counts, counters_add_gauges_set)
{
	struct qd_node_counts c;
	char path[64];
	struct stat st;

	cr_assert_eq(qd_node_counts_create(dir, err, sizeof(err)), 0, "%s",
		     err);
	qd_node_counts_add(dir, QD_NC_SENT, 2);
	qd_node_counts_add(dir, QD_NC_SENT, 3);
	qd_node_counts_add(dir, QD_NC_SPOOLED, 1);
	qd_node_counts_add(dir, QD_NC_REDIS_US, 900);
	qd_node_counts_add(dir, QD_NC_REDIS_US, 400);
	/* A second create keeps what was counted. */
	cr_assert_eq(qd_node_counts_create(dir, err, sizeof(err)), 0);
	cr_assert_eq(qd_node_counts_read(dir, &c, err, sizeof(err)), 0, "%s",
		     err);
	cr_expect_eq(c.v[QD_NC_SENT], 5);
	cr_expect_eq(c.v[QD_NC_SPOOLED], 1);
	cr_expect_eq(c.v[QD_NC_FAILED], 0);
	cr_expect_eq(c.v[QD_NC_REDIS_US], 400);
	snprintf(path, sizeof(path), "%s/metrics.counts", dir);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600, "%o", st.st_mode & 0777);
}

/* A file of another layout is never misread: made again, from zero. */
Test(node_counts, another_layout_is_made_again)
{
	struct qd_node_counts c;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/metrics.counts", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("something else entirely, of another size", f);
	fclose(f);
	qd_node_counts_add(dir, QD_NC_SENT, 1);
	cr_assert_eq(qd_node_counts_read(dir, &c, err, sizeof(err)), -1);
	cr_assert_eq(qd_node_counts_create(dir, err, sizeof(err)), 0, "%s",
		     err);
	qd_node_counts_add(dir, QD_NC_SENT, 1);
	cr_assert_eq(qd_node_counts_read(dir, &c, err, sizeof(err)), 0);
	cr_expect_eq(c.v[QD_NC_SENT], 1);
}

Test(node_counts, text)
{
	struct qd_node_metrics m = {.spool_open = 2,
				    .spool_closed = 1,
				    .oldest_closed_end = 1000,
				    .now = 1090};
	struct qd_prom p = {0};

	m.c.v[QD_NC_SENT] = 7;
	m.c.v[QD_NC_REDIS_US] = 1500;
	m.c.v[QD_NC_REDIS_AT] = 1080;
	m.c.v[QD_NC_BIND_TASK] = 3;
	m.c.v[QD_NC_SSH_REFUSED] = 2;
	qd_node_metrics_text("n1", &m, &p);
	cr_assert_not_null(
	    strstr(p.text,
		   "\nqosdeny_node_usage_records_sent_total{node=\"n1\"} 7\n"));
	cr_assert_not_null(strstr(p.text, "\nqosdeny_node_spool_records{node="
					  "\"n1\",state=\"closed\"} 1\n"));
	cr_assert_not_null(strstr(
	    p.text,
	    "\nqosdeny_node_spool_oldest_age_seconds{node=\"n1\"} 90\n"));
	cr_assert_not_null(strstr(
	    p.text,
	    "\nqosdeny_node_redis_round_trip_seconds{node=\"n1\"} 0.0015\n"));
	cr_assert_not_null(strstr(p.text, "\nqosdeny_node_binding_failures_"
					  "total{node=\"n1\",step=\"task\"} "
					  "3\n"));
	cr_assert_not_null(strstr(p.text, "\nqosdeny_node_ssh_sessions_total{"
					  "node=\"n1\",result=\"refused\"} "
					  "2\n"));
	qd_prom_free(&p);
}
