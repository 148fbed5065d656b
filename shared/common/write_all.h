/* SPDX-License-Identifier: GPL-2.0-or-later
 * Writing a buffer whole to a file descriptor: write(2) may write less than
 * it was given (a signal, a full disk), and every file qosdeny writes must
 * be written entire or reported.
 */
#ifndef QD_WRITE_ALL_H
#define QD_WRITE_ALL_H

#include <stddef.h>

/* Writes len bytes of buf to fd, again after EINTR and short writes.
 * Returns 0, or -1 with errno set (EIO for a write that wrote nothing). */
int qd_write_all(int fd, const void *buf, size_t len);

#endif
