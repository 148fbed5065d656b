/*
 * Records of jobs a reboot ended: open records started before the boot are
 * closed at the boot time; everything else in the spool is left as it is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>

#include "spool.h"
#include "spool_orphan.h"
#include "usage_fixture.h"

#define BOOT 1700000000

static char base[] = "/tmp/qd-orphan-test.XXXXXX";
static char dir[sizeof(base) + 16];
static char err[QD_SPOOL_ERR_MAX];
static char notes[4096];
static int n_failed;

static void setup(void)
{
	cr_assert_not_null(mkdtemp(base));
	snprintf(dir, sizeof(dir), "%s/spool", base);
	notes[0] = '\0';
	n_failed = 0;
}

static void teardown(void)
{
	char cmd[sizeof(base) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(orphan, .init = setup, .fini = teardown);

static void note(bool failed, const char *msg, void *arg)
{
	cr_assert_eq(arg, notes);
	n_failed += failed;
	strncat(notes, msg, sizeof(notes) - strlen(notes) - 2);
	strcat(notes, "\n");
}

/* Job's record on n1 with 2 GPUs from start, closed at end unless 0, in
 * the spool. */
static struct qd_usage_record spooled(uint32_t job, int64_t start, int64_t end)
{
	struct qd_usage_record r = test_record(job, 2, start, end);

	cr_assert_eq(qd_spool_write(dir, &r, err, sizeof(err)), 0, "%s", err);
	return r;
}

static struct qd_usage_record read_back(const struct qd_usage_record *r)
{
	char name[256];
	struct qd_usage_record got;

	snprintf(name, sizeof(name), "%s:%u:%s:%lld.rec", r->cluster, r->job_id,
		 r->node, (long long)r->start);
	cr_assert_eq(qd_spool_read(dir, name, &got, err, sizeof(err)), 0, "%s",
		     err);
	return got;
}

/* qd_spool_close_orphans on dir's listing. */
static size_t close_orphans(int64_t boot, const struct qd_usage_record *keep)
{
	struct qd_spool_list l;
	size_t n;

	cr_assert_eq(qd_spool_list(dir, &l, err, sizeof(err)), 0, "%s", err);
	n = qd_spool_close_orphans(dir, &l, boot, keep, note, notes);
	qd_spool_list_free(&l);
	return n;
}

Test(orphan, open_before_boot_closes_at_boot_time)
{
	struct qd_usage_record cut = spooled(7, BOOT - 100, 0);
	struct qd_usage_record got;

	cr_expect_eq(close_orphans(BOOT, NULL), 1);
	got = read_back(&cut);
	cr_expect_eq(got.end, BOOT);
	cr_expect_eq(got.gpu_seconds, 2 * 100, "GPUs x (boot - start)");
	cr_expect_str_eq(got.qos, "normal", "the rest is kept");
	cr_expect_eq(n_failed, 0);
	cr_expect(strstr(notes, "job 7 was cut off by this node's reboot: its "
				"usage record is closed at the boot time: "
				"qosdeny-usage/1 cluster=qd job=7 node=n1 "),
		  "%s", notes);
	cr_expect_eq(close_orphans(BOOT, NULL), 0, "closed once");
}

Test(orphan, everything_else_is_left_alone)
{
	struct qd_usage_record after = spooled(8, BOOT + 5, 0);
	struct qd_usage_record closed = spooled(9, BOOT - 50, BOOT - 20);
	struct qd_usage_record mine = spooled(10, BOOT - 30, 0);

	cr_expect_eq(close_orphans(BOOT, &mine), 0);
	cr_expect_eq(read_back(&after).end, 0,
		     "an open record after the boot is a running job's");
	cr_expect_eq(read_back(&closed).end, BOOT - 20,
		     "a closed record keeps its end");
	cr_expect_eq(read_back(&mine).end, 0,
		     "the job whose epilog runs keeps its record open");
	cr_expect_str_eq(notes, "");
}

Test(orphan, unknown_boot_time_closes_nothing)
{
	struct qd_usage_record r = spooled(7, BOOT - 100, 0);

	cr_expect_eq(close_orphans(0, NULL), 0);
	cr_expect_eq(read_back(&r).end, 0);
}

Test(orphan, no_spool_is_nothing_to_close)
{
	cr_expect_eq(close_orphans(BOOT, NULL), 0);
	cr_expect_str_eq(notes, "");
}

Test(orphan, boot_time_is_the_kernels)
{
	int64_t b = qd_boot_time();

	cr_expect(b > BOOT - 10 * 365 * 86400LL && b <= time(NULL), "%lld",
		  (long long)b);
}
