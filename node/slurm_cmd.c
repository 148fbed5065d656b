/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errmsg.h"
#include "now_ms.h"
#include "slurm_cmd.h"

extern char **environ;

/* What the child writes, until it closes its end or the time is up. */
static int read_all(int fd, char *buf, size_t len, int64_t deadline)
{
	size_t got = 0;

	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int64_t left = deadline - qd_now_ms();
		char sink[512];
		ssize_t r;
		int ready;

		if (left <= 0)
			return -1;
		ready = poll(&p, 1, (int)left);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			return -1;
		/* Past len, read on and drop, so that the child ends. */
		r = got < len - 1 ? read(fd, buf + got, len - 1 - got)
				  : read(fd, sink, sizeof(sink));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (got < len - 1)
			got += (size_t)r;
	}
	buf[got] = '\0';
	return 0;
}

/* The environment with SLURM_TIME_FORMAT=%s in place of any other, and
 * without squeue's defaults (SQUEUE_USERS, SQUEUE_FORMAT2...), which
 * would change the rows it prints; built before fork(), as the child may
 * only exec. */
static char **time_env(void)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "SLURM_TIME_FORMAT=", 18) &&
		    strncmp(environ[i], "SQUEUE_", 7))
			env[k++] = environ[i];
	env[k++] = "SLURM_TIME_FORMAT=%s";
	env[k] = NULL;
	return env;
}

int qd_slurm_cmd(const char *const argv[], int timeout_ms, char *out,
		 size_t len, int *status, char *err, size_t errlen)
{
	char **env = time_env();
	int fds[2];
	bool in_time;
	pid_t pid;

	if (!env)
		return qd_errf(err, errlen, "out of memory");
	if (pipe2(fds, O_CLOEXEC)) {
		free(env);
		return qd_errf(err, errlen, "pipe: %s", strerror(errno));
	}
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		free(env);
		return qd_errf(err, errlen, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(fds[1], STDOUT_FILENO);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execvpe(argv[0], (char *const *)argv, env);
		_exit(127);
	}
	free(env);
	close(fds[1]);
	in_time = read_all(fds[0], out, len, qd_now_ms() + timeout_ms) == 0;
	close(fds[0]);
	if (!in_time)
		kill(pid, SIGKILL);
	*status = -1;
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	if (!in_time)
		return qd_errf(err, errlen, "no answer within %d ms",
			       timeout_ms);
	*status = WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
	return 0;
}
