/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <time.h>

#include "now_ms.h"

int64_t qd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct timespec qd_wall_at(int64_t until_ms)
{
	int64_t left = until_ms - qd_now_ms();
	struct timespec at;

	clock_gettime(CLOCK_REALTIME, &at);
	if (left <= 0)
		return at;
	at.tv_sec += left / 1000;
	at.tv_nsec += (left % 1000) * 1000000L;
	at.tv_sec += at.tv_nsec / 1000000000L;
	at.tv_nsec %= 1000000000L;
	return at;
}
