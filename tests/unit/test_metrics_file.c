/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

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

/* touch DIR/NAME, AGE seconds old. */
static void left(const char *dir, const char *name, time_t age)
{
	char path[128];
	struct utimbuf t = {.actime = time(NULL) - age,
			    .modtime = time(NULL) - age};
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_assert_eq(utime(path, &t), 0);
}

static int there(const char *dir, const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0;
}

/* The temporary files a writer killed before its rename left: its own,
 * old, removed at the next write; a recent one (another writer's at work)
 * and other files kept. */
Test(metrics_file, abandoned_temporary_files_removed)
{
	char dir[] = "/tmp/qd-metrics-test.XXXXXX", cmd[64], err[256] = "";
	struct qd_prom p = {0};

	cr_assert_not_null(mkdtemp(dir));
	left(dir, ".qosdeny_ctld.prom.a1b2c3", 3600);
	left(dir, ".qosdeny_ctld.prom.d4e5f6", 0);
	left(dir, ".qosdeny_node_n1.prom.a1b2c3", 3600);
	left(dir, ".qosdeny_ctld.prom.a1b2c3x", 3600);
	left(dir, "other.prom", 3600);
	qd_prom_u64(&p, "qosdeny_x_total", NULL, 7);
	cr_assert_eq(
	    qd_metrics_write(dir, "qosdeny_ctld.prom", &p, err, sizeof(err)), 0,
	    "%s", err);
	cr_expect(!there(dir, ".qosdeny_ctld.prom.a1b2c3"), "old: removed");
	cr_expect(there(dir, ".qosdeny_ctld.prom.d4e5f6"), "recent: kept");
	cr_expect(there(dir, ".qosdeny_node_n1.prom.a1b2c3"),
		  "another file's: kept");
	cr_expect(there(dir, ".qosdeny_ctld.prom.a1b2c3x"), "not a temporary");
	cr_expect(there(dir, "other.prom"));
	qd_prom_free(&p);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

/* The other plugin is found by its file name among the loaded objects. */
Test(metrics_file, peer_found_by_file_name)
{
	cr_expect(qd_peer_loaded("libc.so.6"));
	cr_expect_not(qd_peer_loaded(QD_PEER_SITE_FACTOR));
	cr_expect_null(
	    qd_peer_text(QD_PEER_SITE_FACTOR, QD_PEER_SITE_FACTOR_TEXT));
}

/* A write that fails the same way says the same: the temporary file's
 * name, which differs at every write, is not in it. */
Test(metrics_file, the_same_failure_the_same_words)
{
	char dir[] = "/tmp/qd-metrics-fail.XXXXXX", path[96], first[256] = "",
	     second[256] = "";
	struct qd_prom p = {0};
	struct qd_metrics_said said = {0};

	cr_assert_not_null(mkdtemp(dir));
	/* A directory in the file's place: every rename fails. */
	snprintf(path, sizeof(path), "%s/qosdeny_ctld.prom", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/qosdeny_ctld.prom/x", dir);
	cr_assert_eq(mkdir(path, 0755), 0);
	qd_prom_u64(&p, "qosdeny_x_total", NULL, 1);
	cr_assert_eq(qd_metrics_write(dir, "qosdeny_ctld.prom", &p, first,
				      sizeof(first)),
		     -1);
	cr_assert_eq(qd_metrics_write(dir, "qosdeny_ctld.prom", &p, second,
				      sizeof(second)),
		     -1);
	cr_expect_str_eq(first, second);
	cr_expect_not_null(strstr(first, "rename qosdeny_ctld.prom: "), "%s",
			   first);
	cr_expect_eq(qd_metrics_say(&said, first), QD_METRICS_SAY_FAILED);
	cr_expect_eq(qd_metrics_say(&said, second), QD_METRICS_SAY_NOTHING);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/qosdeny_ctld.prom", dir);
	rmdir(path);
	cr_expect_eq(rmdir(dir), 0, "no temporary file left in %s", dir);
	qd_prom_free(&p);
}

/* The first write at once, then one every interval. */
Test(metrics_file, due_every_interval)
{
	int64_t last = -1;

	cr_assert_eq(qd_metrics_due(&last, 5000, 30), 0);
	cr_assert_eq(last, 5000);
	cr_assert_eq(qd_metrics_due(&last, 5001, 30), 29999);
	cr_assert_eq(last, 5000);
	cr_assert_eq(qd_metrics_due(&last, 35000, 30), 0);
	cr_assert_eq(last, 35000);
}
