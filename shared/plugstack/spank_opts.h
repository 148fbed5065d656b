/* SPDX-License-Identifier: GPL-2.0-or-later
 * The plugin's plugstack.conf arguments (qosdeny(1), PLUGSTACK.CONF OPTIONS),
 * parsed strictly: an unknown, repeated or malformed one is an error whose
 * message starts with "qosdeny: " and names it, and the plugin's init then
 * fails.
 */
#ifndef QD_SPANK_OPTS_H
#define QD_SPANK_OPTS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "cgroup_mode.h"
#include "names.h"
#include "redis_usage.h"

#define QD_TIMEOUT_MS_DEFAULT 500
#define QD_TIMEOUT_MS_MAX     600000
/* adopt_dir='s default, and pam_qosdeny's dir= (docs/gpu-and-usage.md,
 * "Adopted ssh sessions"): emptied at every boot, as the confinements it
 * describes are. */
#define QD_ADOPT_DIR_DEFAULT "/run/qosdeny"

struct qd_spank_opts {
	char redis[PATH_MAX];		    /* redis_addr.h's forms */
	char redis_password_file[PATH_MAX]; /* "": no AUTH */
	char redis_user[QD_NAME_MAX];	    /* "": none */
	int redis_replicas;		    /* -1: the default */
	char redis_tls_ca[PATH_MAX];	    /* "": no TLS */
	char redis_tls_cert[PATH_MAX];
	char redis_tls_key[PATH_MAX];
	char cluster[64];     /* "": Slurm's ClusterName */
	char spool[PATH_MAX]; /* "": qosdeny under SlurmdSpoolDir */
	unsigned timeout_ms;
	enum qd_cg_mode cgroup;
	char gpu_devices[PATH_MAX]; /* "": gres.conf, else the fallback */
	/* Where jobs' GPUs and extern-step confinements are recorded for
	 * pam_qosdeny (adopt.h). */
	char adopt_dir[PATH_MAX];
	/* Where slurmd's thread writes qosdeny_node_NODE.prom, every
	 * metrics_interval seconds ("": no metrics; docs/metrics.md). */
	char metrics_dir[PATH_MAX];
	unsigned metrics_interval_s;
};

/* The defaults. */
void qd_spank_opts_init(struct qd_spank_opts *o);

/* argv as SPANK passes it (argc Key=Value words) over the defaults. */
int qd_spank_opts_parse(struct qd_spank_opts *o, int argc, char *const argv[],
			char *err, size_t errlen);

/* The Redis connection the options name, pointing into o (qosdeny doctor
 * reaches Redis as the plugin would). */
void qd_spank_opts_redis_config(const struct qd_spank_opts *o,
				struct qd_redis_config *cfg);

#endif
