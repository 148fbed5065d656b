/* SPDX-License-Identifier: GPL-2.0-or-later
 * Where `share` and `flush`, and the SPANK plugin's job prolog and epilog,
 * find their settings, as Slurm's own tools do: slurm.conf from SLURM_CONF
 * (else /etc/slurm/slurm.conf), and next to it plugstack.conf (or
 * slurm.conf's PlugStackConfig) with the spank_qosdeny.so line, and
 * qosdeny.conf.
 */
#ifndef QD_SITE_H
#define QD_SITE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "names.h"

#define QD_DEFAULT_SLURM_CONF "/etc/slurm/slurm.conf"
#define QD_DEFAULT_SPOOL_DIR  "/var/spool/slurmd" /* Slurm's SlurmdSpoolDir */
#define QD_SITE_ERR_MAX	      (PATH_MAX + 256)
#define QD_SPANK_ARGS_LEN     4096 /* the spank_qosdeny.so line's arguments */

struct qd_site {
	char slurm_conf[PATH_MAX];
	bool have_slurm_conf; /* read; false: none at the default path */
	char cluster_name[QD_NAME_MAX]; /* ClusterName, "" when not set */
	char slurmd_spool_dir[PATH_MAX];
	char slurm_user[QD_NAME_MAX]; /* SlurmUser, "" when not set */
	char private_data[256];	      /* PrivateData */
	char enforce[256];	      /* AccountingStorageEnforce */
	char accounting[256];	  /* AccountingStorageType, "" when not set */
	char partition_qos[1024]; /* the partitions' QOS=, comma-separated */
	char gres_types[256];	  /* GresTypes */
	char plugstack[PATH_MAX];
	char qosdeny_conf[PATH_MAX];

	/* The spank_qosdeny.so line, found but not parsed: its options are
	 * the plugin's to parse (qosdeny(1), PLUGSTACK.CONF OPTIONS). */
	bool have_spank_line;
	char spank_where[PATH_MAX + 16]; /* "FILE:LINE" of that line */
	/* Its arguments as written, blank-separated. */
	char spank_args[QD_SPANK_ARGS_LEN];
};

/*
 * Reads slurm.conf and plugstack.conf (following its include lines). A
 * slurm.conf named by SLURM_CONF must be readable; at the default path it
 * may be missing, and everything keeps its default. A plugstack.conf may be
 * missing, or have no spank_qosdeny.so line. Returns 0, or -1 with err.
 */
int qd_site_load(struct qd_site *s, char *err, size_t errlen);

/* The same from a given slurm.conf (slurmctld's own; NULL: the default
 * path, which may then be missing). */
int qd_site_load_from(struct qd_site *s, const char *slurm_conf, char *err,
		      size_t errlen);

/* Whether slurm.conf's PrivateData hides other users' usage or records
 * (users, usage) from those who are not operators. */
bool qd_site_private_users(const struct qd_site *s);

/* Whether GresTypes names gres/shard or gres/mps: without, no job holds
 * part of a GPU. */
bool qd_site_has_shares(const struct qd_site *s);

/* Whether AccountingStorageEnforce limits a user to the QoS of their
 * associations (qos, or all). */
bool qd_site_enforces_qos(const struct qd_site *s);

/* Whether Slurm keeps no accounting: AccountingStorageType unset (Slurm's
 * default) or accounting_storage/none. Jobs then have no account unless
 * they name one. */
bool qd_site_accounting_off(const struct qd_site *s);

/* Whether qos is some partition's QOS= in slurm.conf. */
bool qd_site_is_partition_qos(const struct qd_site *s, const char *qos);

#endif
