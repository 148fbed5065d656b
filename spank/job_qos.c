#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"
#include "job_qos.h"

int qd_job_qos_parse(const char *out, uint32_t job_id, char *qos, size_t len)
{
	char head[32];
	const char *line = out, *q;
	size_t n;

	/* A het job or an array prints several lines: the job's own. */
	snprintf(head, sizeof(head), "JobId=%" PRIu32 " ", job_id);
	while (line && strncmp(line, head, strlen(head))) {
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	if (!line || !(q = strstr(line, " QOS=")))
		return -1;
	q += strlen(" QOS=");
	n = strcspn(q, " \n");
	if (!n || n >= len || memchr(line, '\n', (size_t)(q - line)))
		return -1;
	memcpy(qos, q, n);
	qos[n] = '\0';
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What the child writes, until it closes its end or the time is up. */
static int read_all(int fd, char *buf, size_t len, long long deadline)
{
	size_t got = 0;

	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		long long left = deadline - now_ms();
		ssize_t r;
		int ready;

		if (left <= 0)
			return -1;
		ready = poll(&p, 1, (int)left);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			return -1;
		r = read(fd, buf + got, len - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
		if (got == len - 1)
			break;
	}
	buf[got] = '\0';
	return 0;
}

int qd_job_qos_ask(uint32_t job_id, int timeout_ms, char *qos, size_t len,
		   char *err, size_t errlen)
{
	char id[16], out[16384];
	int fds[2], status = 0, rv = -1, in_time;
	pid_t pid;

	snprintf(id, sizeof(id), "%" PRIu32, job_id);
	if (pipe2(fds, O_CLOEXEC))
		return qd_errf(err, errlen, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return qd_errf(err, errlen, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(fds[1], STDOUT_FILENO);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execlp("scontrol", "scontrol", "-o", "show", "job", id,
		       (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	in_time =
	    read_all(fds[0], out, sizeof(out), now_ms() + timeout_ms) == 0;
	close(fds[0]);
	if (!in_time)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!in_time)
		qd_errf(err, errlen,
			"scontrol show job %s: no answer within %d ms", id,
			timeout_ms);
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		qd_errf(err, errlen, "scontrol show job %s failed (status %d)",
			id, status);
	else if (qd_job_qos_parse(out, job_id, qos, len))
		qd_errf(err, errlen, "scontrol show job %s: no QOS", id);
	else
		rv = 0;
	return rv;
}
