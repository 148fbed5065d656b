/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <time.h>

#include "now_ms.h"

int64_t qd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
