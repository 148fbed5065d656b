/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <unistd.h>

#include "write_all.h"

int qd_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* Nothing written and no error: retrying could loop
			 * forever, so it is one. */
			if (!n)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
