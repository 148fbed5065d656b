/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A file that holds a secret for Redis (redis_password_file=,
 * redis_tls_key=): it must be a regular file owned by root that others
 * cannot read and only its owner (and root) can change, or any job on the
 * node could read the secret, or make it name its own server
 * (docs/high-availability.md).
 */
#ifndef QD_SECRET_FILE_H
#define QD_SECRET_FILE_H

#include <stddef.h>
#include <sys/stat.h>

/*
 * st is the file's (fstat of the file to be read, where it can be). Returns
 * 0, or -1 with err "OPTION PATH: why: refused (...)", option the
 * plugstack.conf option that names the file.
 */
int qd_secret_file_ok(const char *option, const char *path,
		      const struct stat *st, char *err, size_t errlen);

#endif
