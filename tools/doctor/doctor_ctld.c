/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny doctor --controller: slurmctld's settings qosdeny needs
 * (docs/install.md, slurm.conf): JobSubmitPlugins and the policy load in
 * slurmctld's log, the accounting settings Slurm keeps its QoS counters with
 * (qosdeny.conf(5), SLURM.CONF), qosdeny.conf against the database
 * (doctor_policy.c) and the site factor's set-up (docs/fair-share.md, GPU
 * fair share in job priority).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm_version.h>

#include "doctor_ctld.h"
#include "factor_params.h"
#include "site_opts.h"

#define KEPT "; running on the policy slurmctld accepted at "

/* job_submit/qosdeny's watcher re-reads a corrected file by itself, on
 * every version (docs/how-it-decides.md, Reload). */
#define RELOAD "; slurmctld reads it again within a second"

/*
 * The last line of slurmctld's log where job_submit/qosdeny says which
 * policy it runs on, from "qosdeny: " on; "" when none: loaded at its start,
 * reloaded after an edit, or, qosdeny.conf broken at its start, the copy it
 * kept ("qosdeny: FILE:LINE: ...; running on the policy slurmctld accepted
 * at TIME from FILE, kept in COPY (...)", job_submit_qosdeny.c's init()).
 * The site factor's own lines ("qosdeny: site factor: ") are not its.
 */
static void last_load(const char *log, char *out, size_t len)
{
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(log, "re");

	out[0] = '\0';
	if (!f)
		return;
	while (getline(&line, &cap, f) >= 0) {
		char *m = strstr(line, "qosdeny: ");

		if (!m || !strncmp(m, "qosdeny: site factor: ", 22) ||
		    !(strstr(m, "qosdeny: policy loaded from") ||
		      strstr(m, "qosdeny: policy reloaded from") ||
		      strstr(m, KEPT)))
			continue;
		m[strcspn(m, "\n")] = '\0';
		snprintf(out, len, "%s", m);
	}
	free(line);
	fclose(f);
}

/* The line is the kept copy's: a FAIL naming the file's error and fix. */
static bool on_kept(struct qd_doctor *d, const char *line)
{
	const char *k = strstr(line, KEPT), *when, *from, *end;
	char fix[2 * PATH_MAX + 64];

	if (!k || !(from = strstr(k, " from ")) ||
	    !(end = strstr(from, ", kept in ")))
		return false;
	when = k + strlen(KEPT);
	from += 6;
	snprintf(fix, sizeof(fix), "fix %.*s (qosdeny check %.*s)%s",
		 (int)(end - from), from, (int)(end - from), from, RELOAD);
	qd_doctor_linef(d, QD_DOC_FAIL, "policy-load", fix,
			"slurmctld runs on the policy kept from %.*s: %.*s",
			(int)(from - 6 - when), when, (int)(k - line - 9),
			line + 9);
	return true;
}

static void job_submit(struct qd_doctor *d, const struct qd_doctor_conf *c)
{
	char line[4096];

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
	if (on_kept(d, line))
		return;
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
	/* limits and qos imply associations (slurm.conf(5)). */
	bool assoc =
	    limits || qos || qd_doctor_list_has(s->enforce, "", "associations");
	char shares[512];

	if (!limits || !qos)
		qd_doctor_linef(d, QD_DOC_FAIL, "accounting-enforce",
				"AccountingStorageEnforce=associations,"
				"limits,qos in slurm.conf, then restart "
				"slurmctld",
				"AccountingStorageEnforce=%s: no %s; Slurm "
				"keeps no QoS usage counters to check "
				"against%s",
				s->enforce[0] ? s->enforce : "(none)",
				!limits && !qos ? "limits, no qos"
				: !limits	? "limits"
						: "qos",
				assoc ? ""
				      : "; nor associations: a user can name "
					"any account (-A), and the job's GPU "
					"time is charged to it");
	else
		qd_doctor_linef(d, QD_DOC_OK, "accounting-enforce", NULL,
				"AccountingStorageEnforce=%s", s->enforce);
	qd_doctor_uncounted_shares(s, c, shares, sizeof(shares));
	if (!qd_doctor_list_has(c->accounting_tres, "", "gres/gpu"))
		qd_doctor_linef(
		    d, QD_DOC_FAIL, "accounting-tres",
		    "add gres/gpu (and gres/gpu:TYPE for typed "
		    "limits) to AccountingStorageTRES",
		    "AccountingStorageTRES=%s: no gres/gpu, GPUs in "
		    "use are not counted%s%s",
		    c->accounting_tres,
		    shares[0] ? "; nor GPU shares capped: " : "", shares);
	else if (shares[0])
		qd_doctor_linef(d, QD_DOC_FAIL, "accounting-tres",
				"add them to AccountingStorageTRES, then "
				"restart slurmctld",
				"AccountingStorageTRES=%s: GPU shares capped "
				"but not counted, so their caps see none in "
				"use: %s",
				c->accounting_tres, shares);
	else
		qd_doctor_linef(d, QD_DOC_OK, "accounting-tres", NULL,
				"AccountingStorageTRES=%s", c->accounting_tres);
}

/* A weight more than this many times the others' largest drowns them. */
#define DROWNS 100

static void site_factor(struct qd_doctor *d, const struct qd_site *s,
			const struct qd_doctor_conf *c, const char *site_err)
{
	struct qd_factor_params p;
	struct qd_spank_opts o;
	struct qd_redis_config cfg;
	char err[QD_FACTOR_ERR_MAX > QD_SITE_ERR_MAX ? QD_FACTOR_ERR_MAX
						     : QD_SITE_ERR_MAX];
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
	/* It reads Redis's address from the spank_qosdeny.so line at each
	 * refresh, and a refresh that cannot keeps the factors' last values
	 * (docs/fair-share.md, "GPU fair share in job priority"). */
	if (!site_err && qd_site_spank_opts(s, &o, err, sizeof(err)))
		site_err = err;
	if (site_err) {
		qd_doctor_linef(d, QD_DOC_FAIL, "site-factor",
				"correct plugstack.conf (its options: "
				"qosdeny(1), README); the site factor reads "
				"it again at its next refresh",
				"its refreshes stop on plugstack.conf, the "
				"factors keep their last values: %s",
				site_err);
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
	qd_spank_opts_redis_config(&o, &cfg);
	qd_doctor_redis(d, &cfg);
}

void qd_doctor_ctld(struct qd_doctor *d, const struct qd_site *s,
		    const struct qd_doctor_conf *c, const char *site_err)
{
	if (!c->loaded) {
		qd_doctor_line(d, QD_DOC_FAIL, "slurmctld", c->err,
			       "start slurmctld; check SLURM_CONF");
		return;
	}
	job_submit(d, c);
	accounting(d, s, c);
	qd_doctor_policy(d, s, c);
	site_factor(d, s, c, site_err);
}
