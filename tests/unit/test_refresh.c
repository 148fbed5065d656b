/* SPDX-License-Identifier: GPL-2.0-or-later
 * site_factor/qosdeny's refresh thread (refresh.h): its start, its stop and
 * how a failure to start is reported, against a real redis-server
 * (test_redis_server.h) and real slurm.conf, plugstack.conf and qosdeny.conf
 * files (docs/fair-share.md, "GPU fair share in job priority"). slurmctld's
 * locks, lists and node table, which the plugin finds in slurmctld, are
 * defined here, empty: no associations, no running jobs, no nodes.
 * Slurm's log goes to a file of the test's.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "slurm_compat.h"
#include "src/common/assoc_mgr.h"

#include "refresh.h"
#include "test_redis_server.h"

/* slurmctld's and assoc_mgr's, as the plugin sees them there. */
__typeof__(job_list) job_list;
__typeof__(node_record_table_ptr) node_record_table_ptr;
__typeof__(node_record_count) node_record_count;
__typeof__(assoc_mgr_assoc_list) assoc_mgr_assoc_list;

void lock_slurmctld(slurmctld_lock_t lock_levels)
{
	(void)lock_levels;
}

void unlock_slurmctld(slurmctld_lock_t lock_levels)
{
	(void)lock_levels;
}

void assoc_mgr_lock(assoc_mgr_lock_t *locks)
{
	(void)locks;
}

void assoc_mgr_unlock(assoc_mgr_lock_t *locks)
{
	(void)locks;
}

/* AccountingStorageTRES has gres/gpu, first. */
int assoc_mgr_find_tres_pos(slurmdb_tres_rec_t *tres_rec, bool locked)
{
	(void)tres_rec, (void)locked;
	return 0;
}

#define WAIT_MS 5000

static struct server srv;
static char dir[64], conf_path[128], log_path[128];
static const struct qd_factor_params params = {.weight = 1000,
					       .interval_s = 3600};

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void write_file(const char *name, const char *text)
{
	char path[192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* plugstack.conf's spank_qosdeny.so line with these arguments. */
static void plugstack(const char *args)
{
	char line[512];

	snprintf(line, sizeof(line), "optional spank_qosdeny.so %s\n", args);
	write_file("plugstack.conf", line);
}

static void setup(void)
{
	log_options_t opts = LOG_OPTS_STDERR_ONLY;

	snprintf(dir, sizeof(dir), "/tmp/qd-refresh-test.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(conf_path, sizeof(conf_path), "%s/slurm.conf", dir);
	snprintf(log_path, sizeof(log_path), "%s/slurmctld.log", dir);
	write_file("slurm.conf", "ClusterName=test\n");
	opts.stderr_level = LOG_LEVEL_QUIET;
	opts.logfile_level = LOG_LEVEL_INFO;
	cr_assert_eq(
	    log_init("test_refresh", opts, SYSLOG_FACILITY_USER, log_path), 0);
}

static void teardown(void)
{
	char cmd[128];

	qd_sf_stop();
	server_cleanup(&srv);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(refresh, .init = setup, .fini = teardown);

/* Whether slurmctld's log has a line containing text. */
static bool logged(const char *text)
{
	char line[2048];
	bool found = false;
	FILE *f = fopen(log_path, "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, text);
	if (f)
		fclose(f);
	return found;
}

static bool wait_logged(const char *text)
{
	for (int64_t end = now_ms() + WAIT_MS; now_ms() < end; usleep(10000))
		if (logged(text))
			return true;
	return logged(text);
}

static bool have_table(void)
{
	bool have;

	qd_sf_table_lock();
	have = qd_sf_have_table();
	qd_sf_table_unlock();
	return have;
}

static bool wait_table(void)
{
	for (int64_t end = now_ms() + WAIT_MS; now_ms() < end; usleep(10000))
		if (have_table())
			return true;
	return have_table();
}

/* Milliseconds qd_sf_stop took. */
static int64_t timed_stop(void)
{
	int64_t t0 = now_ms();

	qd_sf_stop();
	return now_ms() - t0;
}

static int sf_start(bool again, char *err, size_t len)
{
	return qd_sf_start(conf_path, "test", dir, &params, again, err, len);
}

Test(refresh, start_refreshes_then_stop_joins_promptly)
{
	char args[128], err[1024] = "";

	start_fresh(&srv, NULL);
	snprintf(args, sizeof(args), "redis=%s", srv.addr);
	plugstack(args);
	cr_assert_eq(sf_start(false, err, sizeof(err)), 0, "%s", err);
	cr_expect(logged("qosdeny: site factor: weight=1000 interval=3600 "
			 "clusters=test"));
	cr_assert(wait_table(), "no table from the first refresh");
	cr_expect(timed_stop() < 1000, "the thread waits out its interval");
	cr_expect_not(have_table(), "the table is freed at stop");
	qd_sf_table_lock();
	cr_expect_eq(qd_sf_factor(10), 1000, "weight again, as before a table");
	qd_sf_table_unlock();
	cr_expect_not(logged("keep their last values"));
}

/* Usage entries a job wrote into a Redis without a password, that cannot
 * be read: said with the first one's key, and the factors made from the
 * rest, not kept from before. */
Test(refresh, unreadable_usage_is_logged_and_skipped)
{
	char args[128], err[1024] = "";

	start_fresh(&srv, NULL);
	freeReplyObject(
	    admin_cmd(&srv, "HSET qosdeny:{test}:account:research v x t 1"));
	snprintf(args, sizeof(args), "redis=%s", srv.addr);
	plugstack(args);
	cr_assert_eq(sf_start(false, err, sizeof(err)), 0, "%s", err);
	cr_assert(wait_table(), "no table from the first refresh");
	cr_expect(wait_logged("qosdeny: site factor: 1 usage entry in Redis "
			      "cannot be read and is left out: "
			      "qosdeny:{test}:account:research: not a usage "
			      "hash (v, t)"));
	qd_sf_stop();
	cr_expect_not(logged("keep their last values"));
}

/* Bookkeeping keys of another type, as a job could write them where Redis
 * has no password: replaced by the first publication, said, and the
 * refresh goes on. Before, every refresh failed on them. */
Test(refresh, wrong_typed_bookkeeping_is_replaced)
{
	char args[128], err[1024] = "", want[256];

	start_fresh(&srv, NULL);
	freeReplyObject(admin_cmd(&srv, "SET qosdeny:{test}:running oops"));
	freeReplyObject(admin_cmd(&srv, "SET qosdeny:{test}:ended oops"));
	snprintf(args, sizeof(args), "redis=%s", srv.addr);
	plugstack(args);
	cr_assert_eq(sf_start(false, err, sizeof(err)), 0, "%s", err);
	cr_assert(wait_table(), "no table from the first refresh");
	snprintf(want, sizeof(want),
		 "qosdeny: site factor: redis %s: qosdeny:{test}:running held "
		 "a string, not a hash: replaced",
		 srv.addr);
	cr_expect(logged(want), "%s", want);
	snprintf(want, sizeof(want),
		 "qosdeny: site factor: redis %s: qosdeny:{test}:ended held a "
		 "string, not a zset: replaced",
		 srv.addr);
	cr_expect(logged(want), "%s", want);
	qd_sf_stop();
	cr_expect_not(logged("keep their last values"));
}

/* Nothing listens: each refresh fails at once and is said once; the
 * thread then waits out its interval, which a stop cuts short. */
Test(refresh, redis_unreachable_is_logged_and_stop_is_prompt)
{
	char args[128], addr[64], err[1024] = "";

	snprintf(addr, sizeof(addr), "127.0.0.1:%d", free_port());
	snprintf(args, sizeof(args), "redis=%s", addr);
	plugstack(args);
	cr_assert_eq(sf_start(false, err, sizeof(err)), 0,
		     "an unreachable Redis does not fail the start: %s", err);
	cr_assert(wait_logged("; the factors keep their last values"));
	cr_expect(logged(addr), "the line names the server");
	cr_expect(timed_stop() < 1000);
	cr_expect_not(have_table());
}

/* Whether a command waits, unanswered, in the stopped server's socket:
 * /proc/net/tcp's rx_queue of a connection to its port. */
static bool command_waiting(int port)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/net/tcp", "r");

	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned local_port, state, tx, rx;

		found = sscanf(line, " %*d: %*x:%x %*x:%*x %x %x:%x",
			       &local_port, &state, &tx, &rx) == 4 &&
			(int)local_port == port && state == 1 && rx > 0;
	}
	if (f)
		fclose(f);
	return found;
}

/* A Redis that takes the command and never answers (stopped): the stop
 * waits for that call alone, within timeout_ms (refresh.h), and the
 * refresh it cut short is not logged as an outage. */
Test(refresh, stop_during_a_hung_redis_call_ends_within_timeout)
{
	const int64_t timeout_ms = 2000;
	char args[128], err[1024] = "";
	int64_t end, took;

	start_fresh(&srv, NULL);
	cr_assert_eq(kill(srv.pid, SIGSTOP), 0);
	snprintf(args, sizeof(args), "redis=%s timeout_ms=%" PRId64, srv.addr,
		 timeout_ms);
	plugstack(args);
	cr_assert_eq(sf_start(false, err, sizeof(err)), 0, "%s", err);
	for (end = now_ms() + WAIT_MS;
	     !command_waiting(srv.port) && now_ms() < end;)
		usleep(10000);
	cr_assert(command_waiting(srv.port), "the thread sent no command");
	took = timed_stop();
	kill(srv.pid, SIGCONT);
	cr_expect(took < timeout_ms + 1000, "stop took %" PRId64 " ms", took);
	cr_expect_not(logged("keep their last values"));
	cr_expect_not(have_table());
}

Test(refresh, missing_slurm_conf_fails_the_start)
{
	char err[1024] = "";

	snprintf(conf_path, sizeof(conf_path), "%s/none/slurm.conf", dir);
	cr_assert_eq(sf_start(false, err, sizeof(err)), -1);
	cr_expect(strstr(err, conf_path) && strstr(err, "No such file"), "%s",
		  err);
	cr_expect(timed_stop() < 100, "nothing to stop");
}

/* A failed 24.05+ reconfigure: slurmctld goes on, and so does the
 * thread, until the file is mended. */
Test(refresh, missing_slurm_conf_on_reconfigure_starts_anyway)
{
	char err[1024] = "";

	snprintf(conf_path, sizeof(conf_path), "%s/none/slurm.conf", dir);
	cr_assert_eq(sf_start(true, err, sizeof(err)), 0, "%s", err);
	cr_expect(logged("slurmctld goes on after its failed reconfigure, "
			 "and the factors are refreshed once the file is "
			 "mended"));
	cr_expect(timed_stop() < 1000);
}

/* A broken qosdeny.conf with no policy kept in StateSaveLocation is
 * fatal at slurmctld start (refresh.h). */
Test(refresh, broken_qosdeny_conf_with_nothing_kept_fails_the_start)
{
	char err[1024] = "", where[128];

	plugstack("redis=127.0.0.1:1");
	write_file("qosdeny.conf", "QOS=interactive Flags=NoSuchFlag\n");
	snprintf(where, sizeof(where), "%s/qosdeny.conf:1:", dir);
	cr_assert_eq(sf_start(false, err, sizeof(err)), -1);
	cr_expect(strstr(err, where), "%s", err);
}

Test(refresh, bad_plugstack_option_fails_the_start)
{
	char err[1024] = "";

	plugstack("no_such_option=1");
	cr_assert_eq(sf_start(false, err, sizeof(err)), -1);
	cr_expect(strstr(err, "no_such_option"), "%s", err);
}
