/* SPDX-License-Identifier: GPL-2.0-or-later
 * The qosdeny.conf policy: global settings, one rule per QoS whose limits
 * reject at submit time, and fair-share fallbacks. The syntax is Slurm's
 * (slurm.conf, cgroup.conf): Key=Value pairs, '#' comments, case-insensitive
 * keys, '\' continues a line.
 */
#ifndef QD_POLICY_H
#define QD_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "names.h"
#include "tres.h"

/* UsageHalfLife when qosdeny.conf sets none, or there is no qosdeny.conf
 * (qosdeny.conf(5)). */
#define QD_HALF_LIFE_DEFAULT_S (7 * 24 * 3600)

/* The most clusters FairShareClusters= (or `qosdeny share --cluster`)
 * names. */
#define QD_FS_CLUSTERS_MAX 64

/* metrics_interval= when qosdeny.conf sets none, and the most it may set
 * (a day): docs/metrics.md. */
#define QD_METRICS_INTERVAL_DEFAULT_S 30
#define QD_METRICS_INTERVAL_MAX_S     86400

enum qd_flag {
	QD_DENY_ON_MAX_PER_JOB = 1 << 0,
	QD_DENY_ON_MAX_PER_USER = 1 << 1,
	QD_DENY_ON_GRP = 1 << 2,
};

/* One QOS= record. Limits given here override the database's per TRES. */
struct qd_qos_rule {
	char name[QD_NAME_MAX];
	unsigned flags; /* enum qd_flag bits */
	struct qd_tres max_per_job;
	struct qd_tres max_per_user;
	struct qd_tres grp;
	int line;
};

/* Account=NAME Shares=N (user[0] == '\0') or User=NAME Account=NAME Shares=N */
struct qd_share_rule {
	char account[QD_NAME_MAX];
	char user[QD_NAME_MAX];
	uint32_t shares;
	int line;
};

struct qd_policy {
	bool enforce;			   /* Enforce=yes (default) */
	char (*exempt_users)[QD_NAME_MAX]; /* ExemptUsers= */
	size_t n_exempt;
	uint64_t usage_half_life_s; /* UsageHalfLife=, default 7 days */
	/* FairShareClusters=: whose GPU usage counts in fair share; none: this
	 * cluster alone. At most QD_FS_CLUSTERS_MAX. */
	char (*fs_clusters)[QD_NAME_MAX];
	size_t n_fs_clusters;
	/* metrics_dir=: where slurmctld's plugins write qosdeny_ctld.prom
	 * every metrics_interval= seconds; "": nothing written.
	 * metrics_per_user=yes adds per-user series (docs/metrics.md). */
	char metrics_dir[1024];
	unsigned metrics_interval_s;
	bool metrics_per_user;
	struct qd_qos_rule *rules;
	size_t n_rules;
	struct qd_share_rule *shares;
	size_t n_shares;
};

/* Error text is "<path>:<line>: <what> '<offending text>'". */
#define QD_ERR_MAX 512

/* Parses a whole file's text. path is only used in error messages. Returns
 * a new policy, or NULL with err filled for the first error. Line numbers in
 * errors are those of the physical line where the offending Key=Value
 * starts. */
struct qd_policy *qd_policy_parse(const char *path, const char *text, char *err,
				  size_t errlen);

/* Parses like qd_policy_parse but goes on past a bad record, calling
 * report() with each error in file order: for `qosdeny check`. Returns the
 * number of errors, or -1 when out of memory (also reported). */
int qd_policy_check(const char *path, const char *text,
		    void (*report)(const char *err, void *arg), void *arg);

/* A policy file's text (malloc'd), or NULL with err filled: unreadable, or
 * not text. */
char *qd_policy_read(const char *path, char *err, size_t errlen);

/* Reads and parses a file; NULL with err filled ("<path>: <strerror>") when it
 * cannot be read. */
struct qd_policy *qd_policy_load(const char *path, char *err, size_t errlen);

void qd_policy_free(struct qd_policy *p);

/* The rule for a QoS (names compare case-insensitively, as Slurm's), or NULL
 * when the QoS has no record and qosdeny leaves it alone. */
const struct qd_qos_rule *qd_policy_rule(const struct qd_policy *p,
					 const char *qos);

bool qd_policy_is_exempt(const struct qd_policy *p, const char *user);

/*
 * Slurm's time syntax as used for UsageHalfLife (and sbatch --time):
 * "minutes", "minutes:seconds", "hours:minutes:seconds", "days-hours",
 * "days-hours:minutes", "days-hours:minutes:seconds". Returns seconds, or -1
 * for anything else: signs, blanks, overflow, "UNLIMITED" and "INFINITE".
 */
int64_t qd_parse_slurm_time(const char *text);

/*
 * Keeps the policy in force and re-reads the file when it changed (device,
 * inode, size or mtime), the way job_submit/lua re-reads its script. A file
 * that fails to parse, or is gone, leaves the previous policy in force (none
 * when there was none); its signature is recorded all the same, so the
 * failure is reported once and not again until the file changes. Start from
 * a zeroed struct with path set.
 */
struct qd_policy_file {
	char path[4096];
	struct qd_policy *current;
	char *text; /* the text current was parsed from, NULL for a kept copy */
	bool read;  /* the signature below is that of a past refresh */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

enum qd_refresh {
	QD_REFRESH_SAME,     /* unchanged, nothing read */
	QD_REFRESH_RELOADED, /* changed and parsed: new policy in force */
	QD_REFRESH_FAILED,   /* changed but unreadable or invalid: err says why;
				the previous policy (if any) stays */
};

enum qd_refresh qd_policy_file_refresh(struct qd_policy_file *f, char *err,
				       size_t errlen);

/*
 * The same, but a new policy is left to the caller to put in force
 * (qd_policy_file_set): *p and *text are set on QD_REFRESH_RELOADED alone.
 * For a reader off the lock that guards f->current (job_submit/qosdeny's
 * watcher thread): only the signature fields of f are written here.
 */
enum qd_refresh qd_policy_file_changed(struct qd_policy_file *f,
				       struct qd_policy **p, char **text,
				       char *err, size_t errlen);

/* Puts p, parsed from text (both taken over, text may be NULL), in force. */
void qd_policy_file_set(struct qd_policy_file *f, struct qd_policy *p,
			char *text);

void qd_policy_file_release(struct qd_policy_file *f);

#endif
