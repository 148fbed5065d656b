/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "spool_alive.h"

int qd_spool_beat(const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int fd, rv = -1;

	if (snprintf(path, sizeof(path), "%s/%s", dir, QD_ALIVE_FILE) >=
	    (int)sizeof(path))
		return qd_errf(err, errlen, "spool %s: path too long", dir);
	if (mkdir(dir, 0700) && errno != EEXIST)
		return qd_errf(err, errlen, "spool %s: mkdir: %s", dir,
			       strerror(errno));
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return qd_errf(err, errlen, "spool %s: %s: %s", dir,
			       QD_ALIVE_FILE, strerror(errno));
	if (futimens(fd, NULL))
		qd_errf(err, errlen, "spool %s: %s: %s", dir, QD_ALIVE_FILE,
			strerror(errno));
	else
		rv = 0;
	close(fd);
	return rv;
}

int64_t qd_spool_last_beat(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/%s", dir, QD_ALIVE_FILE) >=
		(int)sizeof(path) ||
	    lstat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	return st.st_mtime > 0 ? (int64_t)st.st_mtime : 0;
}
