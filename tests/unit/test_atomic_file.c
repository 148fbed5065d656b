/* SPDX-License-Identifier: GPL-2.0-or-later
 * The whole-file writer under the spool, the adoption records and the kept
 * policy: what it leaves behind on success and on each failure.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "atomic_file.h"
#include "dir_names.h"

static char dir[] = "/tmp/qd-atomic-test.XXXXXX";
static int dfd = -1;
static char err[512];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(dfd, 0);
	err[0] = '\0';
}

static void teardown(void)
{
	char cmd[sizeof(dir) + 16];

	close(dfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(atomic_file, .init = setup, .fini = teardown);

static const char *cat(const char *name)
{
	static char buf[256];
	int fd = openat(dfd, name, O_RDONLY);
	ssize_t n;

	cr_assert_geq(fd, 0, "%s: %s", name, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	cr_assert_geq(n, 0);
	buf[n] = '\0';
	return buf;
}

static void put(const char *name, const char *text)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static int write_as(const char *name, char *tmp, unsigned flags,
		    const char *text, struct qd_atomic_file *f)
{
	*f = (struct qd_atomic_file){
	    .dfd = dfd, .name = name, .tmp = tmp, .flags = flags};
	return qd_atomic_write(f, text, strlen(text), err, sizeof(err));
}

Test(atomic_file, writes_whole_private_file)
{
	char tmp[] = ".tmp.a";
	struct qd_atomic_file f;
	struct stat st;
	mode_t old = umask(022);

	cr_assert_eq(write_as("a", tmp,
			      QD_ATOMIC_FSYNC_FILE | QD_ATOMIC_FSYNC_DIR,
			      "one\ntwo\n", &f),
		     0, "%s", err);
	umask(old);
	cr_expect_eq(f.failed, QD_ATOMIC_DONE);
	cr_expect_str_eq(cat("a"), "one\ntwo\n");
	cr_assert_eq(fstatat(dfd, "a", &st, 0), 0);
	cr_expect_eq(st.st_mode & 07777, 0600, "mode %04o",
		     (unsigned)(st.st_mode & 07777));
	cr_expect_str_eq(dir_names(dir), "a");
}

/* The metrics files: 0644 for node_exporter's user, whatever the umask. */
Test(atomic_file, world_readable_whatever_the_umask)
{
	char tmp[] = ".tmp.m.XXXXXX";
	struct qd_atomic_file f;
	struct stat st;
	mode_t old = umask(077);

	cr_assert_eq(write_as("m", tmp, QD_ATOMIC_WORLD_READABLE, "x 1\n", &f),
		     0, "%s", err);
	umask(old);
	cr_assert_eq(fstatat(dfd, "m", &st, 0), 0);
	cr_expect_eq(st.st_mode & 07777, 0644, "mode %04o",
		     (unsigned)(st.st_mode & 07777));
	cr_expect_str_eq(dir_names(dir), "m");
}

/* The old text goes entirely, a longer one included. */
Test(atomic_file, replaces_longer_text)
{
	char tmp[] = ".tmp.a";
	struct qd_atomic_file f;

	put("a", "a much longer text than the new one\n");
	cr_assert_eq(write_as("a", tmp, 0, "new\n", &f), 0, "%s", err);
	cr_expect_str_eq(cat("a"), "new\n");
	cr_expect_str_eq(dir_names(dir), "a");
}

/* Another writer's temporary file of the same name is neither written over
 * nor removed. */
Test(atomic_file, busy_tmp_refused_and_kept)
{
	char tmp[] = ".tmp.a";
	struct qd_atomic_file f;

	put("a", "old\n");
	put(".tmp.a", "theirs\n");
	cr_expect_eq(write_as("a", tmp, 0, "new\n", &f), -1);
	cr_expect_eq(errno, EEXIST);
	cr_expect_eq(f.failed, QD_ATOMIC_CREATE);
	cr_expect_str_eq(err, "create .tmp.a: File exists");
	cr_expect_str_eq(cat(".tmp.a"), "theirs\n");
	cr_expect_str_eq(cat("a"), "old\n");
}

/* QD_ATOMIC_REUSE_TMP: one a killed writer left is written over, whole. */
Test(atomic_file, reuse_tmp_overwrites_leftover)
{
	char tmp[] = "a.tmp";
	struct qd_atomic_file f;

	put("a.tmp", "a leftover longer than the text\n");
	cr_assert_eq(write_as("a", tmp, QD_ATOMIC_REUSE_TMP, "new\n", &f), 0,
		     "%s", err);
	cr_expect_str_eq(cat("a"), "new\n");
	cr_expect_str_eq(dir_names(dir), "a");
}

/* "XXXXXX": a fresh name each time, written back, gone after the rename. */
Test(atomic_file, unique_tmp_name)
{
	char t1[] = "a.XXXXXX", t2[] = "a.XXXXXX";
	struct qd_atomic_file f;

	cr_assert_eq(write_as("a", t1, 0, "one\n", &f), 0, "%s", err);
	cr_assert_eq(write_as("a", t2, 0, "two\n", &f), 0, "%s", err);
	cr_expect_str_neq(t1, "a.XXXXXX");
	cr_expect_str_neq(t1, t2);
	cr_expect_eq(strspn(t1 + 2, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
				    "opqrstuvwxyz0123456789"),
		     6, "%s", t1);
	cr_expect_str_eq(cat("a"), "two\n");
	cr_expect_str_eq(dir_names(dir), "a");
}

/* Paths from the working directory, when the directory is not synced. */
Test(atomic_file, paths_from_cwd)
{
	char path[sizeof(dir) + 8], tmp[sizeof(dir) + 16];
	struct qd_atomic_file f = {
	    .dfd = AT_FDCWD, .name = path, .tmp = tmp, .flags = 0};

	snprintf(path, sizeof(path), "%s/b", dir);
	snprintf(tmp, sizeof(tmp), "%s/b.tmp", dir);
	cr_assert_eq(qd_atomic_write(&f, "b\n", 2, err, sizeof(err)), 0, "%s",
		     err);
	cr_expect_str_eq(cat("b"), "b\n");
	cr_expect_str_eq(dir_names(dir), "b");
}

/* A write that fails (the file size limit here, a full disk in life): the
 * old file intact, no temporary file left, the error naming it. */
Test(atomic_file, failed_write_leaves_old_file)
{
	char tmp[] = ".tmp.a";
	struct qd_atomic_file f;
	struct rlimit old, small = {4, 4};

	put("a", "old\n");
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	small.rlim_max = old.rlim_max;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
	cr_expect_eq(write_as("a", tmp, QD_ATOMIC_FSYNC_FILE,
			      "longer than four bytes\n", &f),
		     -1);
	setrlimit(RLIMIT_FSIZE, &old);
	cr_expect_eq(f.failed, QD_ATOMIC_WRITE);
	cr_expect_str_eq(err, "write .tmp.a: File too large");
	cr_expect_str_eq(cat("a"), "old\n");
	cr_expect_str_eq(dir_names(dir), "a");
}

/* A rename that fails (a directory in the way): both names said, the
 * temporary file removed, errno the cause. */
Test(atomic_file, failed_rename_names_both)
{
	char tmp[] = ".tmp.d";
	struct qd_atomic_file f;

	cr_assert_eq(mkdirat(dfd, "d", 0700), 0);
	put("d/x", "x");
	cr_expect_eq(write_as("d", tmp, QD_ATOMIC_FSYNC_DIR, "new\n", &f), -1);
	cr_expect_eq(errno, EISDIR);
	cr_expect_eq(f.failed, QD_ATOMIC_RENAME);
	cr_expect_str_eq(err, "rename .tmp.d to d: Is a directory");
	cr_expect_str_eq(dir_names(dir), "d");
}

/* No room for a message is no reason to fail differently. */
Test(atomic_file, no_err_buffer)
{
	char tmp[] = ".tmp.a";
	struct qd_atomic_file f = {.dfd = dfd, .name = "a", .tmp = tmp};

	put(".tmp.a", "theirs\n");
	cr_expect_eq(qd_atomic_write(&f, "x", 1, NULL, 0), -1);
	cr_expect_eq(f.failed, QD_ATOMIC_CREATE);
	cr_expect_eq(errno, EEXIST);
}
