/* SPDX-License-Identifier: GPL-2.0-or-later
 * The one clock that deadlines and timeouts count on: the monotonic clock,
 * which a change of the system time does not move.
 */
#ifndef QD_NOW_MS_H
#define QD_NOW_MS_H

#include <stdint.h>

/* Milliseconds on CLOCK_MONOTONIC. */
int64_t qd_now_ms(void);

#endif
