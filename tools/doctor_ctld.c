/*
 * qosdeny doctor --controller: slurmctld's settings qosdeny needs (README,
 * Set-up): JobSubmitPlugins and the policy load in slurmctld's log, the
 * accounting settings Slurm keeps its QoS counters with (README, what is
 * denied), qosdeny.conf against the database (doctor_policy.c) and the
 * site factor's set-up (README, GPU fair share in job priority).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_ctld.h"
#include "factor_params.h"

/* The last line of slurmctld's log where job_submit/qosdeny says it loaded
 * (or reloaded) the policy; "" when none. */
static void last_load(const char *log, char *out, size_t len)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(log, "re");

	out[0] = '\0';
	if (!f)
		return;
	while (getline(&line, &cap, f) >= 0) {
		char *m = strstr(line, "qosdeny: policy ");

		if (m && strstr(m, "loaded from")) {
			m[strcspn(m, "\n")] = '\0';
			snprintf(out, len, "%s", m);
		}
	}
	free(line);
	fclose(f);
}

static void job_submit(struct qd_doctor *d, const struct qd_doctor_conf *c)
{
	char line[512];

	if (!qd_doctor_list_has(c->job_submit_plugins, "job_submit/",
				"qosdeny")) {
		qd_doctor_linef(d, QD_DOC_FAIL, "job-submit",
				"add qosdeny to JobSubmitPlugins in "
				"slurm.conf and restart slurmctld",
				"JobSubmitPlugins=%s: no qosdeny, nothing is "
				"denied",
				c->job_submit_plugins[0] ? c->job_submit_plugins
							 : "(none)");
		return;
	}
	qd_doctor_linef(d, QD_DOC_OK, "job-submit", NULL, "JobSubmitPlugins=%s",
			c->job_submit_plugins);
	last_load(c->slurmctld_log, line, sizeof(line));
	if (line[0])
		qd_doctor_linef(d, QD_DOC_OK, "policy-load", NULL, "%s: %s",
				c->slurmctld_log, line);
	else
		qd_doctor_linef(d, QD_DOC_WARN, "policy-load",
				"look for 'qosdeny:' errors in slurmctld's log "
				"and restart slurmctld",
				"no 'qosdeny: policy loaded' line in %s",
				c->slurmctld_log[0] ? c->slurmctld_log
						    : "(SlurmctldLogFile not "
						      "set)");
}

static void accounting(struct qd_doctor *d, const struct qd_site *s,
		       const struct qd_doctor_conf *c)
{
	bool all = qd_doctor_list_has(s->enforce, "", "all");
	bool limits = all || qd_doctor_list_has(s->enforce, "", "limits") ||
		      qd_doctor_list_has(s->enforce, "", "safe");
	bool qos = all || qd_doctor_list_has(s->enforce, "", "qos");

	if (!limits || !qos)
		qd_doctor_linef(d, QD_DOC_FAIL, "accounting-enforce",
				"AccountingStorageEnforce=associations,"
				"limits,qos in slurm.conf, then restart "
				"slurmctld",
				"AccountingStorageEnforce=%s: no %s; Slurm "
				"keeps no QoS usage counters to check against",
				s->enforce[0] ? s->enforce : "(none)",
				!limits && !qos ? "limits, no qos"
				: !limits	? "limits"
						: "qos");
	else
		qd_doctor_linef(d, QD_DOC_OK, "accounting-enforce", NULL,
				"AccountingStorageEnforce=%s", s->enforce);
	if (!qd_doctor_list_has(c->accounting_tres, "", "gres/gpu"))
		qd_doctor_linef(
		    d, QD_DOC_FAIL, "accounting-tres",
		    "add gres/gpu (and gres/gpu:TYPE for typed "
		    "limits) to AccountingStorageTRES",
		    "AccountingStorageTRES=%s: no gres/gpu, GPUs in "
		    "use are not counted",
		    c->accounting_tres);
	else
		qd_doctor_linef(d, QD_DOC_OK, "accounting-tres", NULL,
				"AccountingStorageTRES=%s", c->accounting_tres);
}

/* A weight more than this many times the others' largest drowns them. */
#define DROWNS 100

static void site_factor(struct qd_doctor *d, const struct qd_site *s,
			const struct qd_doctor_conf *c)
{
	struct qd_factor_params p;
	char err[QD_FACTOR_ERR_MAX];
	unsigned long others = c->max_other_weight;

	if (strcmp(c->site_factor_plugin, "site_factor/qosdeny")) {
		qd_doctor_linef(d, QD_DOC_OK, "site-factor", NULL,
				"not used (PrioritySiteFactorPlugin=%s)",
				c->site_factor_plugin[0] ? c->site_factor_plugin
							 : "none");
		return;
	}
	if (strcmp(c->priority_type, "priority/multifactor")) {
		qd_doctor_linef(d, QD_DOC_FAIL, "site-factor",
				"PriorityType=priority/multifactor in "
				"slurm.conf",
				"PriorityType=%s: the site factor is not used",
				c->priority_type);
		return;
	}
	if (qd_factor_params_parse(c->site_factor_params, &p, err,
				   sizeof(err))) {
		qd_doctor_linef(d, QD_DOC_FAIL, "site-factor",
				"correct PrioritySiteFactorParameters",
				"PrioritySiteFactorParameters=%s: %s",
				c->site_factor_params, err);
		return;
	}
	if (others && p.weight > DROWNS * others)
		qd_doctor_linef(d, QD_DOC_WARN, "site-factor",
				"lower weight= or raise the other weights",
				"weight=%u drowns the other weights (%s)",
				p.weight, c->other_weights);
	else if (others && (unsigned long)p.weight * DROWNS < others)
		qd_doctor_linef(
		    d, QD_DOC_WARN, "site-factor",
		    "raise weight= or lower the other weights",
		    "weight=%u is drowned by the other weights (%s)", p.weight,
		    c->other_weights);
	else
		qd_doctor_linef(d, QD_DOC_OK, "site-factor", NULL,
				"weight=%u interval=%u beside %s", p.weight,
				p.interval_s,
				others ? c->other_weights : "no other weight");
	qd_doctor_redis(d, s->redis[0] ? s->redis : NULL,
			s->password_file[0] ? s->password_file : NULL,
			s->timeout_ms);
}

void qd_doctor_ctld(struct qd_doctor *d, const struct qd_site *s,
		    const struct qd_doctor_conf *c)
{
	if (!c->loaded) {
		qd_doctor_line(d, QD_DOC_FAIL, "slurmctld", c->err,
			       "start slurmctld; check SLURM_CONF");
		return;
	}
	job_submit(d, c);
	accounting(d, s, c);
	qd_doctor_policy(d, s, c);
	site_factor(d, s, c);
}
