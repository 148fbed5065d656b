/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "dir_names.h"
#include "spool.h"
#include "spool_unrecorded.h"
#include "usage_fixture.h"

/* The replays' clock: the records below ended moments before. */
#define NOW 1700001000

static char base[] = "/tmp/qd-spool-test.XXXXXX";
static char dir[sizeof(base) + 16];
static char err[QD_SPOOL_ERR_MAX];

static void setup(void)
{
	cr_assert_not_null(mkdtemp(base));
	snprintf(dir, sizeof(dir), "%s/spool", base);
}

static void teardown(void)
{
	char cmd[sizeof(base) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(spool, .init = setup, .fini = teardown);

static struct qd_usage_record rec(uint32_t job, bool open)
{
	return test_record(job, 1, 1700000000, open ? 0 : 1700000000 + job);
}

static void write_ok(const struct qd_usage_record *r)
{
	cr_assert_eq(qd_spool_write(dir, r, err, sizeof(err)), 0, "%s", err);
}

Test(spool, write_read_back)
{
	struct qd_usage_record r = rec(7, false), back;
	struct stat st;
	char path[256];

	write_ok(&r);
	cr_expect_str_eq(dir_names(dir), "qd:7:n1:1700000000.rec");
	cr_assert_eq(stat(dir, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0700);
	snprintf(path, sizeof(path), "%s/qd:7:n1:1700000000.rec", dir);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0600);
	cr_assert_eq(qd_spool_read(dir, "qd:7:n1:1700000000.rec", &back, err,
				   sizeof(err)),
		     0, "%s", err);
	cr_expect_eq(memcmp(&r, &back, sizeof(r)), 0);
}

/* The record opened at prolog is replaced by its closed form. */
Test(spool, closed_replaces_open)
{
	struct qd_usage_record r = rec(7, true), back;

	write_ok(&r);
	cr_assert_eq(qd_usage_record_close(&r, r.start + 60), 0);
	write_ok(&r);
	cr_expect_str_eq(dir_names(dir), "qd:7:n1:1700000000.rec");
	cr_assert_eq(qd_spool_read(dir, "qd:7:n1:1700000000.rec", &back, err,
				   sizeof(err)),
		     0);
	cr_expect_eq(back.mgpu_seconds, 60000);
}

/* The epilog stages the closed record over the open one before sending it
 * (its name made durable only if it has to wait): same file, same name. */
Test(spool, stage_replaces_open_and_sync)
{
	struct qd_usage_record r = rec(7, true), back;
	char missing[sizeof(base) + 8];

	write_ok(&r);
	cr_assert_eq(qd_usage_record_close(&r, r.start + 60), 0);
	cr_assert_eq(qd_spool_stage(dir, &r, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(dir_names(dir), "qd:7:n1:1700000000.rec");
	cr_assert_eq(qd_spool_read(dir, "qd:7:n1:1700000000.rec", &back, err,
				   sizeof(err)),
		     0, "%s", err);
	cr_expect_eq(back.mgpu_seconds, 60000);
	cr_expect_eq(qd_spool_sync(dir, err, sizeof(err)), 0, "%s", err);
	snprintf(missing, sizeof(missing), "%s/none", base);
	cr_expect_eq(qd_spool_sync(missing, err, sizeof(err)), -1);
	cr_expect(strstr(err, missing), "%s", err);
}

Test(spool, list_and_remove)
{
	struct qd_usage_record a = rec(2, false), b = rec(10, false);
	struct qd_spool_list l;

	cr_assert_eq(qd_spool_list(dir, &l, err, sizeof(err)), 0);
	cr_expect_eq(l.n, 0, "no spool yet is an empty one");
	write_ok(&b);
	write_ok(&a);
	cr_assert_eq(qd_spool_list(dir, &l, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(l.n, 2);
	cr_expect_str_eq(l.names[0], "qd:10:n1:1700000000.rec");
	cr_expect_str_eq(l.names[1], "qd:2:n1:1700000000.rec");
	qd_spool_list_free(&l);
	cr_assert_eq(qd_spool_remove(dir, &a, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(qd_spool_remove(dir, &a, err, sizeof(err)), 0,
		     "already gone is fine");
	cr_expect_str_eq(dir_names(dir), "qd:10:n1:1700000000.rec");
}

/* Records are found by job and by age from their file names alone. */
Test(spool, names_tell_job_and_start)
{
	struct qd_usage_record j = rec(4, true), other = rec(42, true);

	cr_expect(qd_spool_name_is_jobs("qd:4:n1:1700000000.rec", &j));
	cr_expect_not(qd_spool_name_is_jobs("qd:42:n1:1700000000.rec", &j),
		      "job 4 is not job 42");
	cr_expect_not(qd_spool_name_is_jobs("qd:4:n10:1700000000.rec", &j));
	cr_expect_not(qd_spool_name_is_jobs("qd:4:n1:1700000000.rec", &other));
	cr_expect_eq(qd_spool_name_start("qd:4:n1:1700000000.rec"), 1700000000);
	cr_expect_eq(qd_spool_name_start("garbage"), 0);
}

Test(spool, refuses_invalid_record)
{
	struct qd_usage_record r = rec(7, false);
	char want[512];

	strcpy(r.node, "../etc");
	cr_expect_eq(qd_spool_write(dir, &r, err, sizeof(err)), -1);
	snprintf(want, sizeof(want),
		 "spool %s: usage record: invalid node '../etc'", dir);
	cr_expect_str_eq(err, want);
	cr_expect_str_eq(dir_names(dir), "");
}

/* A spool others could write to would let them charge GPU time to anyone. */
Test(spool, unsafe_directory)
{
	struct qd_usage_record r = rec(7, false);
	struct qd_spool_list l;
	char want[512];

	write_ok(&r);
	chmod(dir, 0770);
	cr_expect_eq(qd_spool_write(dir, &r, err, sizeof(err)), -1);
	snprintf(want, sizeof(want),
		 "spool %s: writable by group or others (mode 0770): refused",
		 dir);
	cr_expect_str_eq(err, want);
	cr_expect_eq(qd_spool_list(dir, &l, err, sizeof(err)), -1);
	chmod(dir, 0700);
	if (geteuid() == 0) {
		cr_assert_eq(chown(dir, 65534, 65534), 0);
		cr_expect_eq(qd_spool_write(dir, &r, err, sizeof(err)), -1);
		snprintf(want, sizeof(want),
			 "spool %s: owned by uid 65534, not by uid 0: refused",
			 dir);
		cr_expect_str_eq(err, want);
	}
}

Test(spool, unwritable_directory)
{
	struct qd_usage_record r = rec(7, false);
	char want[512], file[256];
	int fd;

	snprintf(file, sizeof(file), "%s/missing/spool", base);
	cr_expect_eq(qd_spool_write(file, &r, err, sizeof(err)), -1);
	snprintf(want, sizeof(want),
		 "spool %s: mkdir: No such file or directory", file);
	cr_expect_str_eq(err, want);

	fd = open(dir, O_WRONLY | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	cr_expect_eq(qd_spool_write(dir, &r, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "spool %s: open: Not a directory", dir);
	cr_expect_str_eq(err, want);
}

/* A write that fails half-way (here: the file size limit) is reported with
 * its cause and leaves nothing behind, not even the temp file. */
Test(spool, failed_write_leaves_nothing)
{
	struct qd_usage_record r = rec(7, false);
	struct rlimit old, small = {10, 10};

	write_ok(&r);
	cr_assert_eq(qd_spool_remove(dir, &r, err, sizeof(err)), 0);
	signal(SIGXFSZ, SIG_IGN);
	cr_assert_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	small.rlim_max = old.rlim_max;
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
	cr_expect_eq(qd_spool_write(dir, &r, err, sizeof(err)), -1);
	setrlimit(RLIMIT_FSIZE, &old);
	cr_expect(strstr(err, ": write .tmp.qd:7:n1:1700000000.rec."), "%s",
		  err);
	cr_expect(strstr(err, ": File too large"), "%s", err);
	cr_expect_str_eq(dir_names(dir), "");
}

/* A full filesystem: a 4 KiB tmpfs filled up, in a mount namespace of the
 * test's own, so nothing outlives the test. */
Test(spool, full_spool)
{
	struct qd_usage_record r = rec(7, false);
	char fill[256];
	int fd;

	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", base, "tmpfs", 0, "size=4k,mode=0700"))
		cr_skip_test("cannot mount a tmpfs here: %s", strerror(errno));
	snprintf(fill, sizeof(fill), "%s/fill", base);
	fd = open(fill, O_WRONLY | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	while (write(fd, fill, sizeof(fill)) > 0)
		;
	close(fd);
	cr_expect_eq(qd_spool_write(dir, &r, err, sizeof(err)), -1);
	cr_expect(strstr(err, ": No space left on device"), "%s", err);
	cr_expect_str_eq(dir_names(dir), "");
	umount2(base, MNT_DETACH);
}

struct sender {
	int calls;
	int results[8]; /* what each call returns */
	char ids[8][QD_RECORD_ID_MAX];
};

static int send_stub(const struct qd_usage_record *r, void *arg, char *e,
		     size_t elen)
{
	struct sender *s = arg;
	int k = s->results[s->calls];

	qd_usage_record_id(r, s->ids[s->calls], sizeof(s->ids[0]));
	s->calls++;
	if (k < 0)
		snprintf(e, elen,
			 "redis 127.0.0.1:1: connect: Connection "
			 "refused");
	return k;
}

static char reports[2048];

static void report(const char *msg, void *arg)
{
	(void)arg;
	strcat(reports, msg);
	strcat(reports, "\n");
}

Test(spool, replay_sends_closed_keeps_open)
{
	struct qd_usage_record a = rec(1, false), b = rec(2, false),
			       c = rec(3, true);
	struct sender s = {.results = {1, 0}};
	struct qd_spool_stats st;

	write_ok(&a);
	write_ok(&b);
	write_ok(&c);
	cr_expect_eq(
	    qd_spool_replay(dir, NOW, send_stub, &s, report, NULL, &st), 0,
	    "%s", reports);
	cr_expect_eq(s.calls, 2);
	cr_expect_str_eq(s.ids[0], "qd/1/n1/1700000000");
	cr_expect_str_eq(s.ids[1], "qd/2/n1/1700000000");
	cr_expect_eq(st.sent, 1);
	cr_expect_eq(st.already, 1);
	cr_expect_eq(st.open, 1);
	cr_expect_eq(st.left, 0);
	cr_expect_eq(st.bad, 0);
	cr_expect_str_eq(dir_names(dir), "qd:3:n1:1700000000.rec");
	cr_expect_str_eq(reports, "");
}

/* The sender of a second replay running at once: before answering for
 * the first record, the other replay sent and removed the next one. */
static int send_then_lose_next(const struct qd_usage_record *r, void *arg,
			       char *e, size_t elen)
{
	char path[PATH_MAX];

	(void)r;
	(void)e;
	(void)elen;
	snprintf(path, sizeof(path), "%s/%s", dir, (char *)arg);
	cr_assert_eq(unlink(path), 0, "%s", path);
	return 1;
}

/* A record another replay removed between the listing and its reading is
 * neither an error nor left (slurmd would log "not sent" for nothing). */
Test(spool, replay_skips_what_another_replay_removed)
{
	struct qd_usage_record a = rec(1, false), b = rec(2, false);
	struct qd_spool_stats st;

	write_ok(&a);
	write_ok(&b);
	cr_expect_eq(qd_spool_replay(dir, NOW, send_then_lose_next,
				     "qd:2:n1:1700000000.rec", report, NULL,
				     &st),
		     0, "%s", reports);
	cr_expect_eq(st.sent, 1);
	cr_expect_eq(st.left, 0);
	cr_expect_eq(st.bad, 0);
	cr_expect_str_eq(dir_names(dir), "");
	cr_expect_str_eq(reports, "");
}

/* Redis down: one attempt, then everything is kept for later. */
Test(spool, replay_stops_at_first_failure)
{
	struct qd_usage_record a = rec(1, false), b = rec(2, false);
	struct sender s = {.results = {-1, 1}};
	struct qd_spool_stats st;
	char want[512];

	write_ok(&a);
	write_ok(&b);
	cr_expect_eq(
	    qd_spool_replay(dir, NOW, send_stub, &s, report, NULL, &st), -1);
	cr_expect_eq(s.calls, 1);
	cr_expect_eq(st.left, 2);
	cr_expect_eq(st.sent, 0);
	cr_expect_str_eq(dir_names(dir),
			 "qd:1:n1:1700000000.rec qd:2:n1:1700000000.rec");
	snprintf(want, sizeof(want),
		 "spool %s: qd:1:n1:1700000000.rec: not sent: redis "
		 "127.0.0.1:1: connect: Connection refused\n",
		 dir);
	cr_expect_str_eq(reports, want);
}

/* A file that does not decode is moved aside and reported, never sent. */
Test(spool, replay_quarantines_garbage)
{
	struct qd_usage_record a = rec(1, false);
	struct sender s = {.results = {1}};
	struct qd_spool_stats st;
	char path[256], want[512];
	FILE *f;

	write_ok(&a);
	snprintf(path, sizeof(path), "%s/junk.rec", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("qosdeny-usage/1 cluster=qd job=1\n", f);
	fclose(f);
	cr_expect_eq(
	    qd_spool_replay(dir, NOW, send_stub, &s, report, NULL, &st), -1);
	cr_expect_eq(st.bad, 1);
	cr_expect_eq(st.sent, 1);
	cr_expect_str_eq(dir_names(dir), "junk.rec.bad");
	snprintf(want, sizeof(want),
		 "spool %s: junk.rec: usage record: missing fields after "
		 "'job'\n",
		 dir);
	cr_expect_str_eq(reports, want);
}

/* A closed record that ended longer ago than Redis keeps ids (less a day)
 * may have been counted and forgotten: set aside, said once, never sent;
 * one a day younger is sent. Each later replay counts it, quietly. */
Test(spool, replay_sets_aside_what_redis_may_have_forgotten)
{
	struct qd_usage_record old = rec(1, false), young = rec(2, false);
	int64_t now = old.end + QD_SPOOL_REPLAY_MAX_S + 1;
	struct sender s = {.results = {1}};
	struct qd_spool_stats st;
	struct qd_spool_list l;
	char want[512];

	young.end = now - QD_SPOOL_REPLAY_MAX_S + 86400;
	young.mgpu_seconds = young.mgpus * (uint64_t)(young.end - young.start);
	write_ok(&old);
	write_ok(&young);
	cr_expect_eq(
	    qd_spool_replay(dir, now, send_stub, &s, report, NULL, &st), -1);
	cr_expect_eq(s.calls, 1);
	cr_expect_str_eq(s.ids[0], "qd/2/n1/1700000000");
	cr_expect_eq(st.sent, 1);
	cr_expect_eq(st.aside, 1);
	cr_expect_str_eq(dir_names(dir), "qd:1:n1:1700000000.rec.expired");
	snprintf(want, sizeof(want),
		 "spool %s: qd:1:n1:1700000000.rec: ended 89 days ago, longer "
		 "than Redis keeps a record's id (90 days): it may have been "
		 "counted already, so it is not sent but set aside as "
		 "qd:1:n1:1700000000.rec.expired\n",
		 dir);
	cr_expect_str_eq(reports, want);

	reports[0] = '\0';
	cr_expect_eq(
	    qd_spool_replay(dir, now, send_stub, &s, report, NULL, &st), -1);
	cr_expect_eq(s.calls, 1);
	cr_expect_eq(st.aside, 1);
	cr_expect_str_eq(reports, "");
	cr_assert_eq(qd_spool_list_aside(dir, &l, err, sizeof(err)), 0, "%s",
		     err);
	cr_expect_eq(l.n, 1);
	qd_spool_list_free(&l);
	cr_assert_eq(qd_spool_list(dir, &l, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(l.n, 0);
	qd_spool_list_free(&l);
}

/* Temp files of a writer that died are removed once stale, not before. */
Test(spool, replay_removes_stale_temp_files)
{
	struct qd_usage_record a = rec(1, false);
	struct sender s = {.results = {1}};
	struct qd_spool_stats st;
	struct timespec old[2] = {{.tv_sec = 1000}, {.tv_sec = 1000}};
	char path[256];
	int fd;

	write_ok(&a);
	snprintf(path, sizeof(path), "%s/.tmp.old", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	cr_assert_geq(fd, 0);
	futimens(fd, old);
	close(fd);
	snprintf(path, sizeof(path), "%s/.tmp.new", dir);
	close(open(path, O_WRONLY | O_CREAT, 0600));
	cr_expect_eq(
	    qd_spool_replay(dir, NOW, send_stub, &s, report, NULL, &st), 0);
	cr_expect_str_eq(dir_names(dir), ".tmp.new");
}

/* A spool emptied by an earlier replay. */
Test(spool, replay_empty_spool)
{
	struct qd_usage_record a = rec(1, false);
	struct sender s = {.results = {1}};
	struct qd_spool_stats st;
	struct qd_spool_list l;

	write_ok(&a);
	cr_assert_eq(qd_spool_remove(dir, &a, err, sizeof(err)), 0);
	cr_expect_eq(qd_spool_list(dir, &l, err, sizeof(err)), 0);
	cr_expect_eq(l.n, 0);
	qd_spool_list_free(&l);
	cr_expect_eq(
	    qd_spool_replay(dir, NOW, send_stub, &s, report, NULL, &st), 0);
	cr_expect_eq(s.calls, 0);
}

Test(spool, replay_without_spool)
{
	struct sender s = {0};
	struct qd_spool_stats st;

	cr_expect_eq(
	    qd_spool_replay(dir, NOW, send_stub, &s, report, NULL, &st), 0);
	cr_expect_eq(s.calls, 0);
}

/* A GPU job no record could be made of is noted for doctor; the reason
 * (which holds a user's account string) stays on one printable line. */
Test(spool, unrecorded_jobs_are_counted)
{
	struct qd_spool_list l;
	struct qd_unrecorded u;
	struct stat st;
	char path[256];

	cr_assert_eq(qd_spool_unrecorded(dir, &u, err, sizeof(err)), 0);
	cr_expect_eq(u.n, 0, "no spool yet: none");
	cr_assert_eq(qd_spool_note_unrecorded(dir, 7, 1700000000, "first", err,
					      sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(
	    qd_spool_note_unrecorded(dir, 8, 1700000001,
				     "SLURM_JOB_ACCOUNT 'a\nb\x1b' is too long",
				     err, sizeof(err)),
	    0, "%s", err);
	cr_assert_eq(qd_spool_unrecorded(dir, &u, err, sizeof(err)), 0);
	cr_expect_eq(u.n, 2);
	cr_expect_not(u.full);
	cr_expect_str_eq(u.last,
			 "8 1700000001 SLURM_JOB_ACCOUNT 'a?b?' is too long");
	snprintf(path, sizeof(path), "%s/%s", dir, QD_UNRECORDED_FILE);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0600);
	cr_assert_eq(qd_spool_list(dir, &l, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(l.n, 0, "no record among the spool's records");
	qd_spool_list_free(&l);
}

/* Bounded: a node where every job fails keeps counting, "at least". */
Test(spool, unrecorded_file_is_bounded)
{
	struct qd_unrecorded u;
	char why[400];

	memset(why, 'x', sizeof(why) - 1);
	why[sizeof(why) - 1] = '\0';
	for (uint32_t j = 1; j <= 200; j++)
		cr_assert_eq(qd_spool_note_unrecorded(dir, j, 1700000000, why,
						      err, sizeof(err)),
			     0, "%s", err);
	cr_assert_eq(qd_spool_unrecorded(dir, &u, err, sizeof(err)), 0);
	cr_expect(u.full);
	cr_expect_lt(u.n, 200);
	cr_expect_gt(u.n, 100);
}
