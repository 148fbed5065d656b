/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "policy_keep.h"
#include "textfile.h"

static char dir[64];
static char conf[128];
static char copy[128];
static struct qd_policy_file pf;

static void make_dir(void)
{
	strcpy(dir, "/tmp/qd_keep_XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(conf, sizeof(conf), "%s/qosdeny.conf", dir);
	snprintf(copy, sizeof(copy), "%s/%s", dir, QD_KEPT_NAME);
	memset(&pf, 0, sizeof(pf));
	strcpy(pf.path, conf);
}

static void remove_dir(void)
{
	qd_policy_file_release(&pf);
	unlink(conf);
	unlink(copy);
	rmdir(dir);
}

TestSuite(policy_keep, .init = make_dir, .fini = remove_dir);

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static void keep(const char *text, time_t when)
{
	char err[QD_ERR_MAX] = "";

	cr_assert_eq(qd_policy_keep(dir, conf, text, when, err, sizeof(err)), 0,
		     "%s", err);
}

/* Names in dir other than the copy and the conf: temporary files left. */
static int strays(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.' && strcmp(e->d_name, QD_KEPT_NAME) &&
		     strcmp(e->d_name, "qosdeny.conf");
	closedir(d);
	return n;
}

Test(policy_keep, round_trip)
{
	char err[QD_ERR_MAX] = "", when[32];
	struct qd_kept kept;
	struct tm tm;
	time_t t = 1764087298;
	struct qd_policy *p;

	keep("Enforce=no\nQOS=a Flags=DenyOnGrp MaxTRESPerJob=gres/gpu=2\n", t);
	cr_assert_eq(strays(), 0);
	p = qd_policy_kept(dir, &kept, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_assert(kept.exists);
	cr_assert_str_eq(kept.path, copy);
	cr_assert_str_eq(kept.source, conf);
	cr_assert_eq(kept.accepted, t);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", localtime_r(&t, &tm));
	cr_assert_str_eq(kept.when, when);
	cr_assert_not(p->enforce);
	cr_assert_eq(qd_policy_rule(p, "a")->flags, QD_DENY_ON_GRP);
	qd_policy_free(p);
}

/* The copy is a qosdeny.conf that `qosdeny check` and the parser read: its
 * header is comments, the file's text follows unchanged. */
Test(policy_keep, copy_is_header_then_text)
{
	char *text;

	keep("QOS=a Flags=DenyOnGrp \\\n  MaxTRESPerJob=cpu=1", 5);
	text = qd_read_file(copy, NULL, NULL, 0);
	cr_assert_not_null(text);
	cr_assert(strstr(text, "\n# Accepted: 5\nQOS=a Flags=DenyOnGrp \\\n"
			       "  MaxTRESPerJob=cpu=1"),
		  "%s", text);
	cr_assert_eq(text[0], '#');
	free(text);
}

Test(policy_keep, a_new_copy_replaces_the_old)
{
	char err[QD_ERR_MAX] = "";
	struct qd_kept kept;
	struct qd_policy *p;

	keep("QOS=old Flags=DenyOnGrp\n", 1);
	keep("QOS=new Flags=DenyOnGrp\n", 2);
	p = qd_policy_kept(dir, &kept, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_assert_null(qd_policy_rule(p, "old"));
	cr_assert_not_null(qd_policy_rule(p, "new"));
	cr_assert_eq(kept.accepted, 2);
	cr_assert_eq(strays(), 0);
	qd_policy_free(p);
}

/* A temporary copy with the given age in seconds, as a write left it. */
static void leave_tmp(const char *name, time_t age)
{
	char path[192];
	struct timespec t[2] = {{.tv_sec = time(NULL) - age},
				{.tv_sec = time(NULL) - age}};

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_text(path, "QOS=half");
	cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
}

static void remove_name(const char *name)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

static bool present(const char *name)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* What a slurmctld killed mid-write left goes at the next write; a fresh
 * one may be the other plugin's write in progress, and an unrelated name
 * is not ours. */
Test(policy_keep, stale_temporary_copies_are_swept)
{
	leave_tmp(QD_KEPT_NAME ".a1B2c3", 3600);
	leave_tmp(QD_KEPT_NAME ".d4E5f6", 5);
	leave_tmp(QD_KEPT_NAME ".orig", 3600);
	keep("QOS=a Flags=DenyOnGrp\n", 1);
	cr_expect_not(present(QD_KEPT_NAME ".a1B2c3"));
	cr_expect(present(QD_KEPT_NAME ".d4E5f6"));
	cr_expect(present(QD_KEPT_NAME ".orig"));
	cr_expect(present(QD_KEPT_NAME));
	remove_name(QD_KEPT_NAME ".d4E5f6");
	remove_name(QD_KEPT_NAME ".orig");
}

Test(policy_keep, none_kept)
{
	char err[QD_ERR_MAX] = "", want[256];
	struct qd_kept kept;

	cr_assert_null(qd_policy_kept(dir, &kept, err, sizeof(err)));
	cr_assert_not(kept.exists);
	snprintf(want, sizeof(want), "%s: No such file or directory", copy);
	cr_assert_str_eq(err, want);
}

Test(policy_keep, a_copy_without_header_is_refused)
{
	char err[QD_ERR_MAX] = "", want[256];
	struct qd_kept kept;

	write_text(copy, "QOS=a Flags=DenyOnGrp\n");
	cr_assert_null(qd_policy_kept(dir, &kept, err, sizeof(err)));
	cr_assert(kept.exists);
	snprintf(want, sizeof(want), "%s: not a copy qosdeny wrote", copy);
	cr_assert_str_eq(err, want);
}

Test(policy_keep, unwritable_dir_fails_with_the_reason)
{
	char err[QD_ERR_MAX] = "", gone[160];

	snprintf(gone, sizeof(gone), "%s/missing", dir);
	cr_assert_eq(
	    qd_policy_keep(gone, conf, "Enforce=yes\n", 1, err, sizeof(err)),
	    -1);
	cr_assert(strstr(err, "No such file or directory"), "%s", err);
	cr_assert(strstr(err, gone), "%s", err);
}

Test(policy_keep, start_with_a_valid_file_uses_it)
{
	char err[QD_ERR_MAX] = "", kerr[QD_ERR_MAX] = "";
	struct qd_kept kept;

	keep("QOS=kept Flags=DenyOnGrp\n", 1);
	write_text(conf, "QOS=file Flags=DenyOnGrp\n");
	cr_assert_eq(qd_policy_file_start(&pf, dir, &kept, err, sizeof(err),
					  kerr, sizeof(kerr)),
		     QD_START_FILE, "%s", err);
	cr_assert_not_null(qd_policy_rule(pf.current, "file"));
	cr_assert_str_eq(pf.text, "QOS=file Flags=DenyOnGrp\n");
}

Test(policy_keep, start_with_a_broken_file_runs_on_the_copy)
{
	char err[QD_ERR_MAX] = "", kerr[QD_ERR_MAX] = "", want[512], msg[512];
	struct qd_kept kept;

	keep("QOS=kept Flags=DenyOnGrp\n", 7);
	write_text(conf, "QOS=interactive Flags=DenyOnGrp,NoSuchFlag\n");
	cr_assert_eq(qd_policy_file_start(&pf, dir, &kept, err, sizeof(err),
					  kerr, sizeof(kerr)),
		     QD_START_KEPT, "%s", kerr);
	snprintf(want, sizeof(want), "%s:1: unknown flag 'NoSuchFlag'", conf);
	cr_assert_str_eq(err, want);
	cr_assert_not_null(qd_policy_rule(pf.current, "kept"));
	cr_assert_eq(kept.accepted, 7);
	qd_policy_start_explain(QD_START_KEPT, &pf, &kept, kerr, msg,
				sizeof(msg));
	snprintf(want, sizeof(want),
		 "running on the policy slurmctld accepted at %s from %s, "
		 "kept in %s (1 QOS records, Enforce=yes)",
		 kept.when, conf, copy);
	cr_assert_str_eq(msg, want);
	/* Reported once: the next refresh finds the same broken file. */
	cr_assert_eq(qd_policy_file_refresh(&pf, err, sizeof(err)),
		     QD_REFRESH_SAME);
	cr_assert_not_null(qd_policy_rule(pf.current, "kept"));
}

Test(policy_keep, start_with_an_unreadable_file_runs_on_the_copy)
{
	char err[QD_ERR_MAX] = "", kerr[QD_ERR_MAX] = "", want[256];
	struct qd_kept kept;

	keep("QOS=kept Flags=DenyOnGrp\n", 7);
	cr_assert_eq(mkdir(conf, 0755), 0);
	cr_assert_eq(qd_policy_file_start(&pf, dir, &kept, err, sizeof(err),
					  kerr, sizeof(kerr)),
		     QD_START_KEPT, "%s", kerr);
	snprintf(want, sizeof(want), "%s: Is a directory", conf);
	cr_assert_str_eq(err, want);
	cr_assert_not_null(qd_policy_rule(pf.current, "kept"));
	rmdir(conf);
}

Test(policy_keep, first_start_with_a_broken_file_has_nothing)
{
	char err[QD_ERR_MAX] = "", kerr[QD_ERR_MAX] = "", want[512], msg[512];
	struct qd_kept kept;

	write_text(conf, "QOS=a Flags=Nope\n");
	cr_assert_eq(qd_policy_file_start(&pf, dir, &kept, err, sizeof(err),
					  kerr, sizeof(kerr)),
		     QD_START_NONE);
	cr_assert(strstr(err, "qosdeny.conf:1: unknown flag 'Nope'"), "%s",
		  err);
	cr_assert_not(kept.exists);
	cr_assert_null(pf.current);
	qd_policy_start_explain(QD_START_NONE, &pf, &kept, kerr, msg,
				sizeof(msg));
	snprintf(want, sizeof(want),
		 "slurmctld never accepted a policy before (none kept in %s): "
		 "fix the file (qosdeny check %s) and start slurmctld again",
		 copy, conf);
	cr_assert_str_eq(msg, want);
}

Test(policy_keep, a_copy_that_cannot_be_used_is_named)
{
	char err[QD_ERR_MAX] = "", kerr[QD_ERR_MAX] = "", msg[512];
	struct qd_kept kept;

	write_text(copy, "QOS=a Flags=DenyOnGrp\n");
	write_text(conf, "QOS=a Flags=Nope\n");
	cr_assert_eq(qd_policy_file_start(&pf, dir, &kept, err, sizeof(err),
					  kerr, sizeof(kerr)),
		     QD_START_NONE);
	cr_assert(kept.exists);
	qd_policy_start_explain(QD_START_NONE, &pf, &kept, kerr, msg,
				sizeof(msg));
	cr_assert(strstr(msg, "not a copy qosdeny wrote"), "%s", msg);
	cr_assert(strstr(msg, "qosdeny check "), "%s", msg);
}

/* A plugin unloaded and loaded again in one slurmctld starts anew. */
Test(policy_keep, a_start_after_release_reads_the_file_again)
{
	char err[QD_ERR_MAX] = "", kerr[QD_ERR_MAX] = "";
	struct qd_kept kept;

	write_text(conf, "QOS=file Flags=DenyOnGrp\n");
	cr_assert_eq(qd_policy_file_start(&pf, dir, &kept, err, sizeof(err),
					  kerr, sizeof(kerr)),
		     QD_START_FILE, "%s", err);
	qd_policy_file_release(&pf);
	cr_assert_eq(qd_policy_file_start(&pf, dir, &kept, err, sizeof(err),
					  kerr, sizeof(kerr)),
		     QD_START_FILE, "%s", err);
	cr_assert_not_null(qd_policy_rule(pf.current, "file"));
}
