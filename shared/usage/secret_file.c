/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>

#include "secret_file.h"

int qd_secret_file_ok(const char *option, const char *path,
		      const struct stat *st, char *err, size_t errlen)
{
	if (!S_ISREG(st->st_mode)) {
		snprintf(err, errlen, "%s %s: not a regular file", option,
			 path);
		return -1;
	}
	if (st->st_uid != 0) {
		snprintf(err, errlen,
			 "%s %s: owned by uid %u, must be owned by root: "
			 "refused",
			 option, path, (unsigned)st->st_uid);
		return -1;
	}
	if (st->st_mode & (S_IRWXO | S_IWGRP)) {
		snprintf(err, errlen,
			 "%s %s: mode %04o lets others read it, or group or "
			 "others change it: refused (chmod 0600 or 0640)",
			 option, path, (unsigned)(st->st_mode & 07777));
		return -1;
	}
	return 0;
}
