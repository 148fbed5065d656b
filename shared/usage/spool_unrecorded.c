/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "spool_unrecorded.h"
#include "write_all.h"

static int path_of(const char *dir, char *path, size_t len, char *err,
		   size_t errlen)
{
	if ((size_t)snprintf(path, len, "%s/%s", dir, QD_UNRECORDED_FILE) >=
	    len)
		return qd_errf(err, errlen, "spool %s: path too long", dir);
	return 0;
}

int qd_spool_note_unrecorded(const char *dir, uint32_t job, int64_t now,
			     const char *why, char *err, size_t errlen)
{
	char path[PATH_MAX], line[512];
	struct stat st;
	int fd, n, rv = 0;

	if (path_of(dir, path, sizeof(path), err, errlen))
		return -1;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return qd_errf(err, errlen, "spool %s: mkdir: %s", dir,
			       strerror(errno));
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return qd_errf(err, errlen, "spool %s: %s: %s", dir,
			       QD_UNRECORDED_FILE, strerror(errno));
	if (fstat(fd, &st) || st.st_size >= QD_UNRECORDED_MAX_BYTES) {
		close(fd);
		return 0;
	}
	n = snprintf(line, sizeof(line), "%" PRIu32 " %" PRId64 " ", job, now);
	for (const char *p = why; *p && n + 2 < (int)sizeof(line); p++)
		line[n++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
	line[n++] = '\n';
	if (qd_write_all(fd, line, (size_t)n))
		rv = qd_errf(err, errlen, "spool %s: %s: %s", dir,
			     QD_UNRECORDED_FILE, strerror(errno));
	close(fd);
	return rv;
}

int qd_spool_unrecorded(const char *dir, struct qd_unrecorded *u, char *err,
			size_t errlen)
{
	char path[PATH_MAX], line[512];
	FILE *f;

	memset(u, 0, sizeof(*u));
	if (path_of(dir, path, sizeof(path), err, errlen))
		return -1;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0
				       : qd_errf(err, errlen, "%s: %s", path,
						 strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		snprintf(u->last, sizeof(u->last), "%.*s",
			 (int)sizeof(u->last) - 1, line);
		u->n++;
	}
	u->full = ftell(f) >= QD_UNRECORDED_MAX_BYTES;
	fclose(f);
	return 0;
}
