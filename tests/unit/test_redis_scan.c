/* SPDX-License-Identifier: GPL-2.0-or-later
 * The bound on a SCAN of the usage store (redis_usage.c, SCAN_BATCHES_MAX):
 * a server whose cursor never returns to 0, broken or hostile, cannot hold
 * `qosdeny share` or the site factor's refresh for ever. The Makefile
 * builds redis_usage.c into this test with a bound of 1,000 batches, so
 * that the test costs 1,000 round trips, not the real bound's 100,000.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "redis_usage.h"
#include "usage_skipped.h"

/*
 * A server on a unix socket in dir whose every SCAN reply has cursor 1 and
 * no keys; TIME is answered. When the client leaves, it writes the number
 * of SCANs it answered to dir/scans.
 */
static pid_t endless_scan(const char *dir, char *addr, size_t addrlen)
{
	static const char time_reply[] =
	    "*2\r\n$10\r\n1700000000\r\n$1\r\n0\r\n";
	static const char scan_reply[] = "*2\r\n$1\r\n1\r\n*0\r\n";
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	pid_t pid;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s/endless.sock", dir);
	snprintf(addr, addrlen, "unix:%s", a.sun_path);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(listen(fd, 1), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		char buf[4096], path[160];
		long scans = 0;
		int c = accept(fd, NULL, NULL);
		ssize_t n;
		FILE *f;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* The client sends one command and waits for its reply. */
		while ((n = read(c, buf, sizeof(buf) - 1)) > 0) {
			const char *reply = scan_reply;

			buf[n] = '\0';
			if (strstr(buf, "TIME"))
				reply = time_reply;
			else
				scans++;
			if (write(c, reply, strlen(reply)) < 0)
				break;
		}
		snprintf(path, sizeof(path), "%s/scans", dir);
		f = fopen(path, "w");
		if (f) {
			fprintf(f, "%ld\n", scans);
			fclose(f);
		}
		_exit(0);
	}
	close(fd);
	return pid;
}

static int never_called(enum qd_usage_kind kind, const char *account,
			const char *user, double usage, void *arg)
{
	(void)kind, (void)account, (void)user, (void)usage, (void)arg;
	return -1;
}

Test(redis_scan, a_scan_without_end_stops_at_the_bound, .timeout = 30)
{
	char dir[] = "/tmp/qd-scan.XXXXXX", addr[160], path[160], err[512];
	struct qd_redis_config cfg = {.timeout_ms = 2000};
	struct qd_usage_skipped skipped = {0};
	struct qd_redis *r;
	long scans = 0;
	pid_t pid;
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	pid = endless_scan(dir, addr, sizeof(addr));
	cfg.addr = addr;
	r = qd_redis_new(&cfg, err, sizeof(err));
	cr_assert_not_null(r, "%s", err);
	cr_expect_eq(qd_redis_read_usage(r, "qd", 604800, never_called, NULL,
					 &skipped, err, sizeof(err)),
		     -1);
	cr_expect(strstr(err, ": SCAN: no end after 1000 batches"), "%s", err);
	qd_redis_free(r);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	snprintf(path, sizeof(path), "%s/scans", dir);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_expect_eq(fscanf(f, "%ld", &scans), 1);
	fclose(f);
	cr_expect_eq(scans, 1000);
	unlink(path);
	snprintf(path, sizeof(path), "%s/endless.sock", dir);
	unlink(path);
	rmdir(dir);
}
