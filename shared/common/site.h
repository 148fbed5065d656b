/*
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

#include "policy.h"

#define QD_DEFAULT_SLURM_CONF "/etc/slurm/slurm.conf"
#define QD_DEFAULT_SPOOL_DIR  "/var/spool/slurmd" /* Slurm's SlurmdSpoolDir */
#define QD_SITE_ERR_MAX	      (PATH_MAX + 256)

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
	char plugstack[PATH_MAX];
	char qosdeny_conf[PATH_MAX];

	/* The options of the spank_qosdeny.so line; "" (0) when not given. */
	bool have_spank_line;
	char spank_where[PATH_MAX + 16]; /* "FILE:LINE" of that line */
	/* Its arguments as written, blank-separated, for the plugin's own
	 * parser (qosdeny doctor). */
	char spank_args[4096];
	char redis[PATH_MAX];
	char password_file[PATH_MAX];
	char redis_user[QD_NAME_MAX];
	int redis_replicas; /* -1 when not given */
	char tls_ca[PATH_MAX];
	char tls_cert[PATH_MAX];
	char tls_key[PATH_MAX];
	char cluster[QD_NAME_MAX];
	char spool[PATH_MAX];
	int timeout_ms;
};

/*
 * Reads slurm.conf and plugstack.conf (following its include lines). A
 * slurm.conf named by SLURM_CONF must be readable; at the default path it
 * may be missing, and everything keeps its default. A missing plugstack.conf
 * or one without a spank_qosdeny.so line leaves the options at their
 * defaults. Returns 0, or -1 with err.
 */
int qd_site_load(struct qd_site *s, char *err, size_t errlen);

/* The same from a given slurm.conf (slurmctld's own; NULL: the default
 * path, which may then be missing). */
int qd_site_load_from(struct qd_site *s, const char *slurm_conf, char *err,
		      size_t errlen);

/* The cluster: the line's cluster=, else ClusterName; NULL when neither. */
const char *qd_site_cluster(const struct qd_site *s);

/*
 * qosdeny.conf, next to slurm.conf: *p is the parsed policy, or NULL when
 * the file does not exist (then UsageHalfLife is 7 days and there are no
 * share records). Returns 0, or -1 with err when the file is unreadable or
 * invalid: usage is never decayed with a half-life other than the site's.
 */
int qd_site_policy(const struct qd_site *s, struct qd_policy **p, char *err,
		   size_t errlen);

/* Whether slurm.conf's PrivateData hides other users' usage or records
 * (users, usage) from those who are not operators. */
bool qd_site_private_users(const struct qd_site *s);

/* Whether AccountingStorageEnforce limits a user to the QoS of their
 * associations (qos, or all). */
bool qd_site_enforces_qos(const struct qd_site *s);

/* Whether Slurm keeps no accounting: AccountingStorageType unset (Slurm's
 * default) or accounting_storage/none. Jobs then have no account unless
 * they name one. */
bool qd_site_accounting_off(const struct qd_site *s);

/* Whether qos is some partition's QOS= in slurm.conf. */
bool qd_site_is_partition_qos(const struct qd_site *s, const char *qos);

/* UsageHalfLife of a policy from qd_site_policy (NULL: the default). */
uint64_t qd_site_half_life(const struct qd_policy *p);

#endif
