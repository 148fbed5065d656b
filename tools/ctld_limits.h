/* SPDX-License-Identifier: GPL-2.0-or-later
 * What slurmctld's association manager holds for one user, asked in one RPC
 * (libslurm's slurm_load_assoc_mgr_info, what `scontrol show assoc_mgr`
 * prints): every QoS's limits and running-usage counters, the very numbers
 * job_submit/qosdeny decides with, and which QoS the user's associations
 * allow; and the default partition's QoS (slurm_load_partitions).
 */
#ifndef QD_CTLD_LIMITS_H
#define QD_CTLD_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "site.h"

struct qd_ctld_qos {
	char name[QD_NAME_MAX];
	struct qd_limits db;  /* MaxTRESPerJob, MaxTRESPerUser, GrpTRES */
	struct qd_usage used; /* the user's running jobs', everyone's */
	bool allowed;	      /* in one of the user's associations' QoS */
	bool over_part_qos;   /* Flags=OverPartQOS */
};

struct qd_ctld_view {
	bool has_assoc;	      /* the user has an association */
	bool caller_operator; /* the caller's AdminLevel: Operator or Admin */
	/* The default partition's QOS= as slurmctld has it, "" for none. */
	char default_part_qos[QD_NAME_MAX];
	size_t n_qos;
	struct qd_ctld_qos *qos;
};

/*
 * Fills *v for user (uid), the caller being caller (for its AdminLevel).
 * Returns 0, or -1 with err naming what failed (no slurm.conf, slurmctld
 * unreachable within MessageTimeout, out of memory).
 */
int qd_ctld_view_load(const struct qd_site *s, const char *user, uint32_t uid,
		      const char *caller, struct qd_ctld_view *v, char *err,
		      size_t errlen);

/* The same within a libslurm the caller initialised (slurm_init) and ends:
 * 24.11's slurm_init() after a slurm_fini() crashes reloading its plugins,
 * so a process that asks slurmctld several times (doctor) keeps one. */
int qd_ctld_view_ask(const struct qd_site *s, const char *user, uint32_t uid,
		     const char *caller, struct qd_ctld_view *v, char *err,
		     size_t errlen);

void qd_ctld_view_free(struct qd_ctld_view *v);

/* The QoS named name, or NULL. */
const struct qd_ctld_qos *qd_ctld_qos_find(const struct qd_ctld_view *v,
					   const char *name);

#endif
