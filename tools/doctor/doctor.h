/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny doctor: checks of a node's or the controller's set-up, one line
 * each (docs/man/qosdeny.1, section doctor). doctor_node.c and
 * doctor_ctld.c run them in order, their parts declared in doctor_node.h
 * and doctor_ctld.h; doctor_output.c prints the lines. The command itself,
 * its options and which checks run, is tools/cmd_doctor.c, beside the other
 * commands: nothing in this folder reads the command line.
 */
#ifndef QD_DOCTOR_H
#define QD_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "redis_usage.h"
#include "site.h"

enum qd_doctor_status { QD_DOC_OK, QD_DOC_WARN, QD_DOC_FAIL };

/* Where the lines go and what has been seen. */
struct qd_doctor {
	bool parsable; /* -P */
	size_t n_warn, n_fail;
	bool header_done;
};

/*
 * One check's line: status, the check's name, what was found, and for warn
 * and FAIL the fix (NULL for ok). Human form: "STATUS  CHECK  DETAIL" and an
 * indented "fix: FIX" line; -P: "Status|Check|Detail|Fix", header first,
 * '|' and newlines in the texts replaced by blanks.
 */
void qd_doctor_line(struct qd_doctor *d, enum qd_doctor_status st,
		    const char *check, const char *detail, const char *fix);

/* The same with a printf-formatted detail. */
void qd_doctor_linef(struct qd_doctor *d, enum qd_doctor_status st,
		     const char *check, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* "ok", "warn", "FAIL". */
const char *qd_doctor_status_name(enum qd_doctor_status st);

/* The exit status: 1 on any FAIL, else 0. */
int qd_doctor_exit(const struct qd_doctor *d);

/* What the node and controller checks share: slurm.conf as slurmctld has it
 * (libslurm's slurm_load_ctl_conf), copied; the site factor's two settings
 * from slurm.conf's text where 22.05's answer lacks them. */
struct qd_doctor_conf {
	bool loaded; /* false: slurmctld did not answer (err says why) */
	char err[256];
	char job_submit_plugins[256];
	char accounting_tres[1024];
	char gres_types[256]; /* GresTypes */
	char priority_type[64];
	char site_factor_plugin[64];
	char site_factor_params[256];
	/* PriorityWeight*, except the site factor's own */
	char other_weights[512]; /* "Age=1000 FairShare=10000 ..." */
	unsigned long max_other_weight;
	char slurmctld_log[PATH_MAX];
	bool prolog_alloc, prolog_contain;
	char proctrack[64];
	char task_plugin[128];
	char jobacct_gather[64];
	char plugindir[PATH_MAX]; /* PluginDir, ':'-separated */
};

/* Fills c from slurmctld (slurm.conf must exist: s->have_slurm_conf). */
void qd_doctor_conf_load(const struct qd_site *s, struct qd_doctor_conf *c);

/* The node checks for node. site_err: what qd_site_load() refused in
 * plugstack.conf (NULL when nothing), s read up to there. */
void qd_doctor_node(struct qd_doctor *d, const struct qd_site *s,
		    const struct qd_doctor_conf *c, const char *node,
		    const char *site_err);

/* The controller checks; site_err as for qd_doctor_node(). */
void qd_doctor_ctld(struct qd_doctor *d, const struct qd_site *s,
		    const struct qd_doctor_conf *c, const char *site_err);

/*
 * Redis as the plugins reach it, with their configuration (Sentinel, ACL
 * user, TLS included): connects, AUTH, TIME's round trip, SCRIPT LOAD of the
 * usage script and the right to run it. One line, check name "redis".
 */
void qd_doctor_redis(struct qd_doctor *d, const struct qd_redis_config *cfg);

/*
 * The value of key (case-insensitive) in a Slurm-style Key=Value text
 * (cgroup.conf), the last one given; "" when absent. Pure, for tests.
 */
void qd_doctor_conf_value(const char *text, const char *key, char *out,
			  size_t len);

/*
 * Whether Slurm puts a node's tasks in cgroup2 cgroups of its own
 * (job_N/step_S/user/task_T), where qosdeny binds in place (node/cgroup.h):
 * its cgroup plugin (CgroupPlugin, autodetect resolved) is cgroup/v2 and a
 * plugin makes step cgroups: proctrack/cgroup, task/cgroup or
 * jobacct_gather/cgroup (each calls cgroup_g_step_create, 22.05 to 26.05).
 * Pure, for tests.
 */
bool qd_doctor_slurm_task_cgroups(const char *cgroup_plugin,
				  const char *proctrack,
				  const char *task_plugin,
				  const char *jobacct_gather);

/*
 * The owner of a socket listening on port where a connection to the
 * loopback reaches it (a loopback or wildcard address), from the text of
 * /proc/net/tcp or /proc/net/tcp6: the highest such uid, -1 for none.
 * Pure, for tests.
 */
long qd_doctor_loopback_listener_uid(const char *text, int port);

/* UID_MIN of a login.defs text (NULL: none), the first uid of a login
 * user; 1000 where it sets none, as Debian and RHEL do. Pure, for tests. */
long qd_doctor_uid_min(const char *login_defs);

/* Whether the comma-separated list holds item, with or without prefix
 * ("qosdeny" matches "job_submit/qosdeny" with prefix "job_submit/"). */
bool qd_doctor_list_has(const char *list, const char *prefix, const char *item);

#endif
