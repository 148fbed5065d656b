/* SPDX-License-Identifier: GPL-2.0-or-later
 * Records of jobs that ended without their epilog: each open record is
 * closed at its run's end as slurmctld or slurmdbd (the lookup) gives it,
 * else at the heartbeat's or the boot's bound, clamped to [start, now];
 * live runs, closed records and runs nobody can tell stay as they are.
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
#define NOW  (BOOT + 86400)

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

/* What the fake slurmctld/slurmdbd say, per job id: 0 unknown. */
static struct qd_run_end said[16];

static void lookup(const struct qd_usage_record *r, struct qd_run_end *e,
		   void *arg)
{
	cr_assert_eq(arg, said);
	cr_assert_lt(r->job_id, 16);
	*e = said[r->job_id];
}

static void ended(uint32_t job, int64_t end)
{
	said[job] = (struct qd_run_end){.state = QD_RUN_ENDED, .end = end};
	snprintf(said[job].source, sizeof(said[job].source),
		 "slurmctld (NODE_FAIL)");
}

/* qd_spool_close_orphans on dir's listing. */
static size_t close_orphans(int64_t boot, int64_t last_alive)
{
	struct qd_orphan_bounds b = {
	    .now = NOW, .boot_time = boot, .last_alive = last_alive};
	struct qd_spool_list l;
	size_t n;

	cr_assert_eq(qd_spool_list(dir, &l, err, sizeof(err)), 0, "%s", err);
	n = qd_spool_close_orphans(dir, &l, &b, lookup, said, note, notes);
	qd_spool_list_free(&l);
	return n;
}

static void clear_said(void)
{
	memset(said, 0, sizeof(said));
	for (size_t i = 0; i < 16; i++)
		said[i].state = QD_RUN_UNKNOWN;
}

/* The node was down from BOOT - 3600 to BOOT; slurmctld ended the job
 * (NODE_FAIL) 60 s after its start: that is all it is charged. */
Test(orphan, closed_at_slurmctlds_end_not_at_the_boot)
{
	struct qd_usage_record r = spooled(7, BOOT - 4000, 0), got;

	clear_said();
	ended(7, BOOT - 3940);
	cr_expect_eq(close_orphans(BOOT, 0), 1);
	got = read_back(&r);
	cr_expect_eq(got.end, BOOT - 3940);
	cr_expect_eq(got.mgpu_seconds, 2 * 60 * 1000);
	cr_expect_str_eq(got.qos, "normal", "the rest is kept");
	cr_expect_eq(n_failed, 0);
	cr_expect(strstr(notes, "job 7 ended on n1 without its epilog: its "
				"usage record is closed at 1699996060, the end "
				"slurmctld (NODE_FAIL) gives, charging 60 s, "
				"120 GPU-seconds: qosdeny-usage/3 cluster=qd "
				"job=7 node=n1 "),
		  "%s", notes);
	notes[0] = '\0';
	cr_expect_eq(close_orphans(BOOT, 0), 0, "closed once");
	cr_expect_str_eq(notes, "", "and said once");
}

/* No reboot at all: slurmd died with the job, which slurmctld ended. */
Test(orphan, closed_without_a_reboot)
{
	struct qd_usage_record r = spooled(7, BOOT + 100, 0);

	clear_said();
	ended(7, BOOT + 106);
	cr_expect_eq(close_orphans(BOOT, 0), 1);
	cr_expect_eq(read_back(&r).mgpu_seconds, 2 * 6 * 1000);
}

/* Clock skew: an end before the start charges 0, one after now stops
 * at now. */
Test(orphan, end_clamped_to_start_and_now)
{
	struct qd_usage_record early = spooled(7, BOOT + 100, 0);
	struct qd_usage_record late = spooled(8, NOW - 10, 0);

	clear_said();
	ended(7, BOOT + 90);
	ended(8, NOW + 500);
	cr_expect_eq(close_orphans(BOOT, 0), 2);
	cr_expect_eq(read_back(&early).end, BOOT + 100);
	cr_expect_eq(read_back(&early).mgpu_seconds, 0);
	cr_expect_eq(read_back(&late).end, NOW);
	cr_expect_eq(read_back(&late).mgpu_seconds, 2 * 10 * 1000);
}

/* Gone with no end known: the heartbeat of the slurmd that died bounds
 * it, not the boot that came days later. */
Test(orphan, gone_closes_at_the_last_heartbeat)
{
	struct qd_usage_record r = spooled(7, BOOT - 90000, 0);

	clear_said();
	said[7].state = QD_RUN_GONE;
	cr_expect_eq(close_orphans(BOOT, BOOT - 89000), 1);
	cr_expect_eq(read_back(&r).end, BOOT - 89000 + 30);
	cr_expect(strstr(notes, "the end slurmd's last heartbeat here gives, "
				"charging 1030 s"),
		  "%s", notes);
}

Test(orphan, gone_without_heartbeat_closes_at_the_boot)
{
	struct qd_usage_record r = spooled(7, BOOT - 100, 0);

	clear_said();
	said[7].state = QD_RUN_GONE;
	cr_expect_eq(close_orphans(BOOT, 0), 1);
	cr_expect_eq(read_back(&r).end, BOOT);
	cr_expect(strstr(notes, "the end this node's boot gives"), "%s", notes);
}

/* A heartbeat from before the record's start says nothing of it. */
Test(orphan, heartbeat_before_the_start_is_no_bound)
{
	struct qd_usage_record r = spooled(7, BOOT + 100, 0);

	clear_said();
	said[7].state = QD_RUN_GONE;
	cr_expect_eq(close_orphans(BOOT, BOOT + 50), 0);
	cr_expect_eq(read_back(&r).end, 0, "no bound: kept open");
}

/* slurmctld cannot be asked: only a reboot since the start surely ended
 * the run; a record of this boot may be a running job's. */
Test(orphan, unknown_closes_only_what_a_reboot_ended)
{
	struct qd_usage_record before = spooled(7, BOOT - 100, 0);
	struct qd_usage_record after = spooled(8, BOOT + 100, 0);

	clear_said();
	cr_expect_eq(close_orphans(BOOT, BOOT - 60), 1);
	cr_expect_eq(read_back(&before).end, BOOT - 30,
		     "the heartbeat's bound, tighter than the boot");
	cr_expect_eq(read_back(&after).end, 0);
}

Test(orphan, live_runs_and_closed_records_are_left_alone)
{
	struct qd_usage_record live = spooled(8, BOOT - 100, 0);
	struct qd_usage_record closed = spooled(9, BOOT - 50, BOOT - 20);

	clear_said();
	said[8].state = QD_RUN_LIVE;
	ended(9, BOOT - 40);
	cr_expect_eq(close_orphans(BOOT, 0), 0);
	cr_expect_eq(read_back(&live).end, 0);
	cr_expect_eq(read_back(&closed).end, BOOT - 20,
		     "a closed record keeps its end");
	cr_expect_str_eq(notes, "");
}

Test(orphan, no_spool_is_nothing_to_close)
{
	clear_said();
	cr_expect_eq(close_orphans(BOOT, 0), 0);
	cr_expect_str_eq(notes, "");
}

Test(orphan, boot_time_is_the_kernels)
{
	int64_t b = qd_boot_time();

	cr_expect(b > BOOT - 10 * 365 * 86400LL && b <= time(NULL), "%lld",
		  (long long)b);
}
