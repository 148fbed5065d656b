/* SPDX-License-Identifier: GPL-2.0-or-later
 * The settings qosdeny doctor checks, as slurmctld runs with them (its
 * defaults and Include lines applied): libslurm's slurm_load_ctl_conf, what
 * `scontrol show config` prints.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "doctor.h"
#include "libslurm_compat.h"
#include "textfile.h"

/* Slurm's values, slurm.h's PROLOG_FLAG_*. */
#define ALLOC	PROLOG_FLAG_ALLOC
#define CONTAIN PROLOG_FLAG_CONTAIN

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static void weight(struct qd_doctor_conf *c, const char *name, uint32_t w)
{
	size_t n = strlen(c->other_weights);

	if (!w)
		return;
	snprintf(c->other_weights + n, sizeof(c->other_weights) - n, "%s%s=%u",
		 n ? " " : "", name, w);
	if (w > c->max_other_weight)
		c->max_other_weight = w;
}

static void take(struct qd_doctor_conf *c, const slurm_conf_t *k)
{
	copy(c->job_submit_plugins, sizeof(c->job_submit_plugins),
	     k->job_submit_plugins);
	copy(c->accounting_tres, sizeof(c->accounting_tres),
	     k->accounting_storage_tres);
	copy(c->gres_types, sizeof(c->gres_types), k->gres_plugins);
	copy(c->priority_type, sizeof(c->priority_type), k->priority_type);
	copy(c->site_factor_plugin, sizeof(c->site_factor_plugin),
	     k->site_factor_plugin);
	copy(c->site_factor_params, sizeof(c->site_factor_params),
	     k->site_factor_params);
	weight(c, "Age", k->priority_weight_age);
	weight(c, "Assoc", k->priority_weight_assoc);
	weight(c, "FairShare", k->priority_weight_fs);
	weight(c, "JobSize", k->priority_weight_js);
	weight(c, "Partition", k->priority_weight_part);
	weight(c, "QOS", k->priority_weight_qos);
	copy(c->slurmctld_log, sizeof(c->slurmctld_log), k->slurmctld_logfile);
	c->prolog_alloc = k->prolog_flags & (ALLOC | CONTAIN);
	c->prolog_contain = k->prolog_flags & CONTAIN;
	/* 24.11 leaves task/none's TaskPlugin empty. */
	copy(c->proctrack, sizeof(c->proctrack), k->proctrack_type);
	copy(c->plugindir, sizeof(c->plugindir), k->plugindir);
	copy(c->jobacct_gather, sizeof(c->jobacct_gather),
	     k->job_acct_gather_type);
	copy(c->task_plugin, sizeof(c->task_plugin),
	     k->task_plugin && *k->task_plugin ? k->task_plugin : "task/none");
}

/* 22.05's slurmctld leaves PrioritySiteFactorPlugin and its parameters out
 * of its answer (scontrol show config prints "(null)"): taken from
 * slurm.conf's text where the answer has none. */
static void site_factor_text(const struct qd_site *s, struct qd_doctor_conf *c)
{
	char err[256];
	char *text;

	if (c->site_factor_plugin[0])
		return;
	text = qd_read_file(s->slurm_conf, NULL, err, sizeof(err));
	if (!text)
		return;
	qd_doctor_conf_value(text, "PrioritySiteFactorPlugin",
			     c->site_factor_plugin,
			     sizeof(c->site_factor_plugin));
	qd_doctor_conf_value(text, "PrioritySiteFactorParameters",
			     c->site_factor_params,
			     sizeof(c->site_factor_params));
	free(text);
}

void qd_doctor_conf_load(const struct qd_site *s, struct qd_doctor_conf *c)
{
	slurm_conf_t *k = NULL;

	memset(c, 0, sizeof(*c));
	/* Without slurm.conf libslurm would exit the process (fatal). */
	if (!s->have_slurm_conf) {
		snprintf(c->err, sizeof(c->err), "no slurm.conf (%s)",
			 strerror(ENOENT));
		return;
	}
	/* No slurm_fini(): the checks after this ask slurmctld within this
	 * libslurm (qd_ctld_view_ask, the node's Gres=), and 24.11's
	 * slurm_init() after a slurm_fini() crashes reloading its plugins. */
	slurm_init(s->slurm_conf);
	if (slurm_load_ctl_conf((time_t)0, &k) != SLURM_SUCCESS) {
		snprintf(c->err, sizeof(c->err),
			 "slurmctld did not give its configuration: %s",
			 slurm_strerror(errno));
	} else {
		take(c, k);
		site_factor_text(s, c);
		c->loaded = true;
		qd_slurm_free_conf(k);
	}
}
