/* SPDX-License-Identifier: GPL-2.0-or-later
 * The one clock that deadlines and timeouts count on: the monotonic clock,
 * which a change of the system time does not move.
 */
#ifndef QD_NOW_MS_H
#define QD_NOW_MS_H

#include <stdint.h>
#include <time.h>

/* Milliseconds on CLOCK_MONOTONIC. */
int64_t qd_now_ms(void);

/* When CLOCK_MONOTONIC reaches until_ms, on the wall clock that a
 * condition variable's default timed wait counts on (now, when it has
 * passed): a monotonic deadline put there at the moment of the wait. */
struct timespec qd_wall_at(int64_t until_ms);

#endif
