/* SPDX-License-Identifier: GPL-2.0-or-later
 * The values of the plugin's cgroup= option (qosdeny(1), PLUGSTACK.CONF
 * OPTIONS): how the SPANK plugin binds a job to its GPUs (node/cgroup.h). Here,
 * beside the option's parser, so that the tool and the site factor read the
 * option without the cgroup module.
 */
#ifndef QD_CGROUP_MODE_H
#define QD_CGROUP_MODE_H

enum qd_cg_mode {
	QD_CG_AUTO, /* v1 where the process has a v1 devices cgroup, else v2 */
	QD_CG_V1,
	QD_CG_V2,
	QD_CG_OFF,
};

/* "auto", "v1", "v2", "off": the option's words. */
const char *qd_cg_mode_name(enum qd_cg_mode mode);

#endif
