/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "textfile.h"

/* The whole of fd, NUL-terminated; *len excludes the NUL. */
static char *read_all(int fd, size_t *len)
{
	size_t cap = 4096;
	char *buf = malloc(cap), *bigger;
	ssize_t n;

	*len = 0;
	while (buf) {
		if (*len + 1 == cap) {
			bigger = realloc(buf, cap *= 2);
			if (!bigger)
				break;
			buf = bigger;
		}
		n = read(fd, buf + *len, cap - *len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (n == 0) {
			buf[*len] = '\0';
			return buf;
		}
		*len += n;
	}
	free(buf);
	return NULL;
}

/*
 * O_NONBLOCK: a FIFO or a device in a configuration file's place would
 * otherwise block its reader, slurmctld's or slurmstepd's thread, for as
 * long as nothing writes to it.
 */
char *qd_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	size_t n;
	char *text = NULL;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		if (S_ISDIR(st.st_mode))
			qd_errf(err, errlen, "%s: %s", path, strerror(EISDIR));
		else
			qd_errf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return NULL;
	}
	if (fd >= 0)
		text = read_all(fd, &n);
	if (!text)
		qd_errf(err, errlen, "%s: %s", path, strerror(errno));
	else if (len)
		*len = n;
	if (fd >= 0)
		close(fd);
	return text;
}
