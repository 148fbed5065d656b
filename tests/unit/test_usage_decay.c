/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <criterion/criterion.h>

#include "decay.h"

#define WEEK (7 * 86400)

/* After one half-life the usage reads half, within 0.1%. */
Test(usage_decay, one_half_life)
{
	double v = qd_decay(3600, WEEK, WEEK);

	cr_expect_float_eq(v, 1800, 1800 * 0.001);
}

Test(usage_decay, composes)
{
	double once = qd_decay(1000, 3 * 86400, WEEK);
	double twice = qd_decay(qd_decay(1000, 86400, WEEK), 2 * 86400, WEEK);

	cr_expect_float_eq(qd_decay(1000, 2 * WEEK, WEEK), 250, 1e-9);
	cr_expect_float_eq(once, twice, 1e-9);
}

/* A clock behind the stored time never grows the usage; a half-life of 0
 * is no decay. */
Test(usage_decay, edges)
{
	cr_expect_eq(qd_decay(100, -50, WEEK), 100);
	cr_expect_eq(qd_decay(100, 0, WEEK), 100);
	cr_expect_eq(qd_decay(100, 1e9, 0), 100);
	cr_expect_float_eq(qd_decay(100, 1e12, 1), 0, 1e-300);
}
