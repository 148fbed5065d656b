/* SPDX-License-Identifier: GPL-2.0-or-later
 * redis_drop_proxy PORT_FILE HOST PORT: a Redis proxy that loses replies,
 * for the "reply lost" fault test. It listens on 127.0.0.1 (a free port,
 * written to PORT_FILE once it listens) and passes each client's commands
 * to the Redis at HOST:PORT and the replies back, except a script's
 * (EVALSHA, EVAL) that Redis ran: that reply is read, so the script has
 * run, then dropped, and the client's connection closed, as when a network
 * fails between the two. Error replies (NOSCRIPT, ...) pass. Each drop is
 * told on stderr, the reply on one line, each "\r\n" a blank:
 * "redis_drop_proxy: dropped the reply to EVALSHA: *1 :1".
 * Runs until killed; one process per connection.
 *
 * redis_drop_proxy -d MS PORT_FILE HOST PORT: a slow Redis instead, for the
 * site factor's stop test: every reply passes, MS ms late, and each
 * command's name is told on stderr as it arrives
 * ("redis_drop_proxy: EVALSHA").
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long delay_ms = -1; /* -d: >= 0, every reply that late */

struct reader {
	int fd;
	char buf[65536];
	size_t len, pos;
};

/* One RESP message, as read. */
struct msg {
	char *p;
	size_t len, cap;
};

static void die(const char *what)
{
	fprintf(stderr, "redis_drop_proxy: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int take(struct reader *r, struct msg *m, size_t n)
{
	while (n) {
		size_t k;

		if (r->pos == r->len) {
			ssize_t got = read(r->fd, r->buf, sizeof(r->buf));

			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				return -1;
			r->len = (size_t)got;
			r->pos = 0;
		}
		k = r->len - r->pos < n ? r->len - r->pos : n;
		if (m->len + k + 1 > m->cap) {
			m->cap = (m->len + k + 1) * 2;
			m->p = realloc(m->p, m->cap);
			if (!m->p)
				die("realloc");
		}
		memcpy(m->p + m->len, r->buf + r->pos, k);
		m->len += k;
		m->p[m->len] = '\0';
		r->pos += k;
		n -= k;
	}
	return 0;
}

/* Appends one line, "\r\n" included; returns its offset, or -1. */
static long take_line(struct reader *r, struct msg *m)
{
	size_t start = m->len;

	do {
		if (take(r, m, 1))
			return -1;
	} while (m->len - start < 2 || m->p[m->len - 1] != '\n');
	return (long)start;
}

/* Appends one whole RESP value: simple, bulk or (nested) array. */
static int take_value(struct reader *r, struct msg *m)
{
	long off = take_line(r, m);
	long n;

	if (off < 0)
		return -1;
	n = atol(m->p + off + 1);
	if (m->p[off] == '$' && n >= 0)
		return take(r, m, (size_t)n + 2);
	if (m->p[off] == '*')
		for (long i = 0; i < n; i++)
			if (take_value(r, m))
				return -1;
	return 0;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* A command's (an array of bulk strings) name, "" if none. */
static void command_name(const struct msg *m, char *name, size_t len)
{
	const char *first = strstr(m->p, "\r\n$");
	const char *word = first ? strstr(first + 3, "\r\n") : NULL;

	name[0] = '\0';
	if (word)
		snprintf(name, len, "%.*s", (int)strcspn(word + 2, "\r"),
			 word + 2);
}

/* Whether a command runs a script. */
static bool is_script(const char *name)
{
	return !strcasecmp(name, "EVALSHA") || !strcasecmp(name, "EVAL");
}

static void session(int client, const struct sockaddr_in *up)
{
	static struct reader from_client, from_redis;
	struct msg cmd = {0}, reply = {0};
	int redis = socket(AF_INET, SOCK_STREAM, 0);
	char name[16];

	if (redis < 0 ||
	    connect(redis, (const struct sockaddr *)up, sizeof(*up)))
		die("connect to Redis");
	from_client.fd = client;
	from_redis.fd = redis;
	for (;;) {
		cmd.len = reply.len = 0;
		if (take_value(&from_client, &cmd))
			exit(0);
		command_name(&cmd, name, sizeof(name));
		if (delay_ms >= 0)
			fprintf(stderr, "redis_drop_proxy: %s\n", name);
		if (send_all(redis, cmd.p, cmd.len) ||
		    take_value(&from_redis, &reply))
			die("Redis");
		if (delay_ms >= 0)
			nanosleep(&(struct timespec){delay_ms / 1000,
						     delay_ms % 1000 * 1000000},
				  NULL);
		else if (is_script(name) && reply.p[0] != '-') {
			fprintf(
			    stderr,
			    "redis_drop_proxy: dropped the reply to %s:", name);
			for (size_t i = 0; i < reply.len && i < 200;
			     i += strcspn(reply.p + i, "\r") + 2)
				fprintf(stderr, " %.*s",
					(int)strcspn(reply.p + i, "\r"),
					reply.p + i);
			fputc('\n', stderr);
			exit(0);
		}
		if (send_all(client, reply.p, reply.len))
			exit(0);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in me = {.sin_family = AF_INET}, up = me;
	socklen_t len = sizeof(me);
	char tmp[4096];
	int lfd, one = 1;
	FILE *f;

	if (argc == 6 && !strcmp(argv[1], "-d")) {
		delay_ms = atol(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc != 4 || delay_ms < -1) {
		fprintf(stderr, "usage: redis_drop_proxy [-d MS] PORT_FILE "
				"HOST PORT\n");
		return 2;
	}
	me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (inet_pton(AF_INET, argv[2], &up.sin_addr) != 1) {
		fprintf(stderr, "redis_drop_proxy: %s: not an IPv4 address\n",
			argv[2]);
		return 2;
	}
	up.sin_port = htons((uint16_t)atoi(argv[3]));
	signal(SIGCHLD, SIG_IGN); /* no zombies */
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&me, sizeof(me)) || listen(lfd, 64) ||
	    getsockname(lfd, (struct sockaddr *)&me, &len))
		die("listen");
	/* Whole or not at all: the test polls for the file. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%u\n", ntohs(me.sin_port)) < 0 || fclose(f) ||
	    rename(tmp, argv[1]))
		die(argv[1]);
	for (;;) {
		int c = accept(lfd, NULL, NULL);

		if (c < 0) {
			if (errno == EINTR)
				continue;
			die("accept");
		}
		if (fork() == 0) {
			close(lfd);
			session(c, &up);
		}
		close(c);
	}
}
