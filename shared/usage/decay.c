/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <math.h>

#include "decay.h"

double qd_decay(double value, double elapsed_s, uint64_t half_life_s)
{
	if (elapsed_s <= 0 || !half_life_s)
		return value;
	return value * exp2(-elapsed_s / (double)half_life_s);
}
