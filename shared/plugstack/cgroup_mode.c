/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cgroup_mode.h"

const char *qd_cg_mode_name(enum qd_cg_mode mode)
{
	switch (mode) {
	case QD_CG_AUTO:
		return "auto";
	case QD_CG_V1:
		return "v1";
	case QD_CG_V2:
		return "v2";
	case QD_CG_OFF:
		return "off";
	}
	return "?";
}
