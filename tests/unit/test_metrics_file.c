/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "metrics_file.h"
#include "peer_plugin.h"

/* A failure is said once, the next success once, then nothing. */
Test(metrics_file, each_failure_said_once_and_the_recovery)
{
	struct qd_metrics_said s = {0};

	cr_assert_eq(qd_metrics_say(&s, ""), QD_METRICS_SAY_NOTHING);
	cr_assert_eq(qd_metrics_say(&s, "Permission denied"),
		     QD_METRICS_SAY_FAILED);
	cr_assert_eq(qd_metrics_say(&s, "Permission denied"),
		     QD_METRICS_SAY_NOTHING);
	cr_assert_eq(qd_metrics_say(&s, "No space left on device"),
		     QD_METRICS_SAY_FAILED);
	cr_assert_eq(qd_metrics_say(&s, ""), QD_METRICS_SAY_WRITTEN);
	cr_assert_eq(qd_metrics_say(&s, ""), QD_METRICS_SAY_NOTHING);
}

Test(metrics_file, written_whole_and_readable)
{
	char dir[] = "/tmp/qd-metrics-test.XXXXXX", path[64], buf[64] = "";
	struct qd_prom p = {0};
	struct stat st;
	char err[256] = "";
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	qd_prom_u64(&p, "qosdeny_x_total", NULL, 7);
	cr_assert_eq(
	    qd_metrics_write(dir, "qosdeny_ctld.prom", &p, err, sizeof(err)), 0,
	    "%s", err);
	snprintf(path, sizeof(path), "%s/qosdeny_ctld.prom", dir);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0644);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_expect_not_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	cr_expect_str_eq(buf, "qosdeny_x_total 7\n");
	unlink(path);
	cr_expect_eq(rmdir(dir), 0, "only the file was left in %s", dir);
	cr_expect_eq(
	    qd_metrics_write(dir, "qosdeny_ctld.prom", &p, err, sizeof(err)),
	    -1);
	cr_expect_str_eq(err, "No such file or directory");
	qd_prom_free(&p);
}

/* The other plugin is found by its file name among the loaded objects. */
Test(metrics_file, peer_found_by_file_name)
{
	cr_expect(qd_peer_loaded("libc.so.6"));
	cr_expect_not(qd_peer_loaded(QD_PEER_SITE_FACTOR));
	cr_expect_null(
	    qd_peer_text(QD_PEER_SITE_FACTOR, QD_PEER_SITE_FACTOR_TEXT));
}
