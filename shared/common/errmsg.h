/* SPDX-License-Identifier: GPL-2.0-or-later
 * Error messages into a caller's buffer: every parser and loader reports
 * what went wrong as text the caller logs or prints.
 */
#ifndef QD_ERRMSG_H
#define QD_ERRMSG_H

#include <stddef.h>

/* Formats into err (nothing when err is NULL or errlen 0); returns -1, so
 * that `return qd_errf(...)` both reports and fails. */
int qd_errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
