#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
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

char *qd_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	size_t n;
	char *text = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

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
