/* SPDX-License-Identifier: GPL-2.0-or-later
 * Reading a configuration file whole: the parsers work on text in memory,
 * so they can report line numbers and be fed by tests and fuzzers directly.
 */
#ifndef QD_TEXTFILE_H
#define QD_TEXTFILE_H

#include <stddef.h>

/* The file's contents, NUL-terminated (malloc'd); *len, when len is not
 * NULL, excludes the NUL. NULL with err "<path>: <strerror>" when it cannot
 * be read (a directory: "Is a directory"), or "<path>: not a regular file"
 * for a FIFO or a device, never read, so that it cannot block its reader. */
char *qd_read_file(const char *path, size_t *len, char *err, size_t errlen);

#endif
