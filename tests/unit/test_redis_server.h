/* SPDX-License-Identifier: GPL-2.0-or-later
 * A real redis-server for the tests (Debian's): started on a free loopback
 * port and a unix socket in a directory of its own, persistence off, and
 * stopped by pid. The server is killed with the test process if that dies
 * (PR_SET_PDEATHSIG), so none is left behind. Included by test_redis_*.c.
 */
#ifndef QD_TEST_REDIS_SERVER_H
#define QD_TEST_REDIS_SERVER_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <hiredis/hiredis.h>

struct server {
	pid_t pid;
	int port;
	char dir[64];
	char sock[128];
	char addr[64];	  /* 127.0.0.1:PORT */
	const char *user; /* with password: AUTH user password */
	const char *password;
	const char *sentinel_conf; /* set: run as a sentinel with these lines */
};

/* The directory for the server's files, made on first use. */
static void server_dir(struct server *s)
{
	if (s->dir[0])
		return;
	snprintf(s->dir, sizeof(s->dir), "/tmp/qd-redis-test.XXXXXX");
	cr_assert_not_null(mkdtemp(s->dir));
	snprintf(s->sock, sizeof(s->sock), "%s/redis.sock", s->dir);
}

static int free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* A context of the test's own, to look at and tamper with the data. */
static redisContext *admin(const struct server *s)
{
	struct timeval tv = {2, 0};
	redisContext *c = redisConnectUnixWithTimeout(s->sock, tv);

	if (c && !c->err && s->password) {
		redisReply *r =
		    s->user
			? redisCommand(c, "AUTH %s %s", s->user, s->password)
			: redisCommand(c, "AUTH %s", s->password);

		freeReplyObject(r);
	}
	return c;
}

/* One command on the server as its admin, outside the code under test. */
__attribute__((unused)) static redisReply *admin_cmd(const struct server *s,
						     const char *fmt, ...)
{
	redisContext *c = admin(s);
	redisReply *r;
	va_list ap;

	cr_assert(c && !c->err);
	va_start(ap, fmt);
	r = redisvCommand(c, fmt, ap);
	va_end(ap);
	redisFree(c);
	cr_assert_not_null(r);
	return r;
}

/* The server's clock, in seconds, as the code under test reads it. */
__attribute__((unused)) static double admin_time(const struct server *s)
{
	redisReply *r = admin_cmd(s, "TIME");
	double now = strtod(r->element[0]->str, NULL) +
		     strtod(r->element[1]->str, NULL) / 1e6;

	freeReplyObject(r);
	return now;
}

static bool ready(const struct server *s)
{
	redisContext *c = admin(s);
	redisReply *r = c && !c->err ? redisCommand(c, "PING") : NULL;
	bool ok = r && r->type == REDIS_REPLY_STATUS;

	freeReplyObject(r);
	if (c)
		redisFree(c);
	return ok;
}

/* A sentinel's file of its own: Sentinel rewrites it as it learns. */
static void write_sentinel_conf(const struct server *s)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sentinel.conf", s->dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(s->sentinel_conf, f);
	cr_assert_eq(fclose(f), 0);
}

static void exec_server(const struct server *s, const char *const *extra)
{
	const char *argv[66] = {"redis-server", "--port", NULL, "--bind",
				"127.0.0.1", "--dir", s->dir, "--unixsocket",
				s->sock, "--unixsocketperm", "700", "--save",
				"", "--appendonly", "no",
				/* A replica's full sync through a file, at
				 * once: a diskless one waits 5 s for more
				 * replicas (Redis 7), and without that wait
				 * the sentinel tests failed under load. */
				"--repl-diskless-sync", "no"};
	char port[16], log[128], conf[128];
	int n = 17, fd;

	snprintf(port, sizeof(port), "%d", s->port);
	argv[2] = port;
	for (; extra && *extra && n < 62; extra++)
		argv[n++] = *extra;
	argv[n] = NULL;
	if (s->sentinel_conf) {
		/* redis-server FILE --sentinel, then the same options */
		memmove(argv + 3, argv + 1, (size_t)n * sizeof(*argv));
		snprintf(conf, sizeof(conf), "%s/sentinel.conf", s->dir);
		argv[1] = conf;
		argv[2] = "--sentinel";
	}
	snprintf(log, sizeof(log), "%s/redis.log", s->dir);
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
	}
	execvp(argv[0], (char **)argv);
	_exit(127);
}

static void stop(struct server *s)
{
	if (s->pid <= 0)
		return;
	kill(s->pid, SIGTERM);
	for (int i = 0; i < 300; i++) {
		if (waitpid(s->pid, NULL, WNOHANG) == s->pid) {
			s->pid = 0;
			return;
		}
		usleep(10000);
	}
	kill(s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
	s->pid = 0;
}

/* Starts redis-server on s->port (a free one when 0). */
static int start(struct server *s, const char *const *extra)
{
	pid_t parent = getpid();
	size_t n = 0;

	while (extra && extra[n])
		n++;
	cr_assert_lt(n, 62 - 17, "too many redis-server arguments");
	server_dir(s);
	if (!s->port)
		s->port = free_port();
	snprintf(s->addr, sizeof(s->addr), "127.0.0.1:%d", s->port);
	if (s->sentinel_conf)
		write_sentinel_conf(s);
	s->pid = fork();
	cr_assert_geq(s->pid, 0);
	if (!s->pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		exec_server(s, extra);
	}
	for (int i = 0; i < 500; i++) {
		if (waitpid(s->pid, NULL, WNOHANG) == s->pid) {
			s->pid = 0;
			return -1;
		}
		if (ready(s))
			return 0;
		usleep(10000);
	}
	stop(s);
	return -1;
}

/* A server on a free port; a port taken meanwhile is tried again. */
static void start_fresh(struct server *s, const char *const *extra)
{
	for (int tries = 0; tries < 5; tries++) {
		if (!start(s, extra))
			return;
		s->port = 0;
	}
	cr_assert_fail("redis-server did not start (see %s/redis.log)", s->dir);
}

/* Stops the server and removes its directory. */
static void server_cleanup(struct server *s)
{
	char cmd[128];

	stop(s);
	if (s->dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", s->dir);
		cr_expect_eq(system(cmd), 0);
	}
}

#endif
