/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny doctor's policy checks: qosdeny.conf parses (as `qosdeny check`),
 * each QOS= record names a QoS slurmctld knows from slurmdbd (a record for
 * a QoS that does not exist guards nothing), and each flag of a record has a
 * limit to enforce, in qosdeny.conf or in the database (a DenyOnMaxPerUser
 * on a QoS without MaxTRESPerUser denies nothing), and slurmctld counts
 * the TRES of each typed GPU limit and of each GPU share capped.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ctld_limits.h"
#include "doctor_ctld.h"
#include "site_policy.h"

struct first_error {
	int n;
	char text[QD_ERR_MAX];
};

static void keep_first(const char *err, void *arg)
{
	struct first_error *e = arg;

	if (!e->n++)
		snprintf(e->text, sizeof(e->text), "%s", err);
}

/* The policy, or NULL after a line saying why. */
static struct qd_policy *valid(struct qd_doctor *d, const struct qd_site *s)
{
	struct first_error e = {0};
	struct qd_policy *p = NULL;
	char err[QD_SITE_ERR_MAX];
	char fix[PATH_MAX + 64];
	char *text;

	snprintf(fix, sizeof(fix), "run 'qosdeny check %s' and correct it",
		 s->qosdeny_conf);
	if (qd_site_policy(s, &p, err, sizeof(err)) == 0 && !p) {
		qd_doctor_linef(d, QD_DOC_WARN, "qosdeny.conf",
				"write qosdeny.conf next to slurm.conf "
				"(conf.example)",
				"%s: missing, no QoS is checked",
				s->qosdeny_conf);
		return NULL;
	}
	if (p) {
		qd_doctor_linef(d, QD_DOC_OK, "qosdeny.conf", NULL,
				"%s: %zu QOS record%s", s->qosdeny_conf,
				p->n_rules, p->n_rules == 1 ? "" : "s");
		return p;
	}
	text = qd_policy_read(s->qosdeny_conf, err, sizeof(err));
	if (text && qd_policy_check(s->qosdeny_conf, text, keep_first, &e) > 1)
		qd_doctor_linef(d, QD_DOC_FAIL, "qosdeny.conf", fix,
				"%s (and %d more error%s)", e.text, e.n - 1,
				e.n == 2 ? "" : "s");
	else
		qd_doctor_line(d, QD_DOC_FAIL, "qosdeny.conf",
			       e.n ? e.text : err, fix);
	free(text);
	return NULL;
}

static bool any(const struct qd_tres *t)
{
	for (int i = 0; i < QD_TRES_FIXED; i++)
		if (t->set[i])
			return true;
	return t->ntyped > 0;
}

/* Appends "QOS:Flag" for each flag of the rule with no limit behind it. */
static void unenforced(const struct qd_qos_rule *r, const struct qd_limits *db,
		       char *out, size_t len)
{
	static const struct {
		unsigned flag;
		const char *name, *limit;
		size_t off;
	} flags[] = {
	    {QD_DENY_ON_MAX_PER_JOB, "DenyOnMaxPerJob", "MaxTRESPerJob",
	     offsetof(struct qd_limits, max_per_job)},
	    {QD_DENY_ON_MAX_PER_USER, "DenyOnMaxPerUser", "MaxTRESPerUser",
	     offsetof(struct qd_limits, max_per_user)},
	    {QD_DENY_ON_GRP, "DenyOnGrp", "GrpTRES",
	     offsetof(struct qd_limits, grp)},
	};
	struct qd_limits lim;

	qd_limits_merge(&lim, db, r);
	for (size_t i = 0; i < sizeof(flags) / sizeof(*flags); i++) {
		size_t n = strlen(out);

		if (!(r->flags & flags[i].flag) ||
		    any((const struct qd_tres *)((const char *)&lim +
						 flags[i].off)))
			continue;
		snprintf(out + n, len - n, "%sQOS %s: %s without %s",
			 n ? "; " : "", r->name, flags[i].name, flags[i].limit);
	}
}

/* Appends "gres/gpu:TYPE (QOS q)" for each typed limit of lim whose TRES
 * slurmctld does not count (AccountingStorageTRES): its usage is then 0 to
 * Slurm and to the checks, and a per-user or group cap never denies. */
static void uncounted(const char *qos, const struct qd_limits *lim,
		      const char *counted, char *out, size_t len)
{
	const struct qd_tres *t[] = {&lim->max_per_job, &lim->max_per_user,
				     &lim->grp};

	for (size_t i = 0; i < sizeof(t) / sizeof(*t); i++)
		for (size_t k = 0; k < t[i]->ntyped; k++) {
			char name[QD_TYPE_NAME_MAX + 16];
			size_t n = strlen(out);

			snprintf(name, sizeof(name), "gres/gpu:%s",
				 t[i]->typed[k].type);
			if (qd_doctor_list_has(counted, "", name) ||
			    strstr(out, name))
				continue;
			snprintf(out + n, len - n, "%s%s (QOS %s)",
				 n ? ", " : "", name, qos);
		}
}

static void typed_tres(struct qd_doctor *d, const char *counted,
		       const char *missing)
{
	if (missing[0])
		qd_doctor_linef(d, QD_DOC_FAIL, "typed-tres",
				"add them to AccountingStorageTRES in "
				"slurm.conf, then restart slurmctld",
				"typed GPU limits Slurm does not count: %s",
				missing);
	else
		qd_doctor_linef(d, QD_DOC_OK, "typed-tres", NULL,
				"every typed GPU limit is counted "
				"(AccountingStorageTRES=%s)",
				counted);
}

static void against_db(struct qd_doctor *d, const struct qd_site *s,
		       const struct qd_doctor_conf *c,
		       const struct qd_policy *p)
{
	char missing[2048] = "", loose[4096] = "", err[512], types[2048] = "";
	struct qd_ctld_view v;

	if (qd_ctld_view_ask(s, "root", 0, "root", &v, err, sizeof(err))) {
		qd_doctor_line(d, QD_DOC_FAIL, "qos-exist", err,
			       "start slurmctld and slurmdbd");
		return;
	}
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct qd_qos_rule *r = &p->rules[i];
		const struct qd_ctld_qos *q = qd_ctld_qos_find(&v, r->name);
		size_t n = strlen(missing);

		if (q) {
			struct qd_limits lim;

			unenforced(r, &q->db, loose, sizeof(loose));
			qd_limits_merge(&lim, &q->db, r);
			uncounted(r->name, &lim, c->accounting_tres, types,
				  sizeof(types));
			continue;
		}
		snprintf(missing + n, sizeof(missing) - n, "%s%s (line %d)",
			 n ? ", " : "", r->name, r->line);
	}
	qd_ctld_view_free(&v);
	if (missing[0])
		qd_doctor_linef(d, QD_DOC_FAIL, "qos-exist",
				"create the QoS (sacctmgr add qos NAME) or "
				"correct the record's name",
				"no such QoS in slurmdbd: %s", missing);
	else
		qd_doctor_linef(d, QD_DOC_OK, "qos-exist", NULL,
				"the %zu QOS record%s name existing QoS",
				p->n_rules, p->n_rules == 1 ? "" : "s");
	if (loose[0])
		qd_doctor_linef(d, QD_DOC_WARN, "qos-limits",
				"give the limit on the record or with "
				"sacctmgr modify qos, or drop the flag",
				"nothing to enforce: %s", loose);
	else
		qd_doctor_line(d, QD_DOC_OK, "qos-limits",
			       "every flag has a limit to enforce", NULL);
	typed_tres(d, c->accounting_tres, types);
}

/* Appends "gres/NAME (QOS q)" for each share the rule's flags cap in lim,
 * whose GRES the nodes may have and whose TRES slurmctld does not count. */
static void shares_of(const struct qd_qos_rule *r, const struct qd_limits *lim,
		      const struct qd_doctor_conf *c, char *out, size_t len)
{
	static const struct {
		enum qd_tres_id id;
		const char *gres;
	} shares[] = {{QD_TRES_SHARD, "shard"}, {QD_TRES_MPS, "mps"}};
	const struct {
		unsigned flag;
		const struct qd_tres *t;
	} caps[] = {{QD_DENY_ON_MAX_PER_JOB, &lim->max_per_job},
		    {QD_DENY_ON_MAX_PER_USER, &lim->max_per_user},
		    {QD_DENY_ON_GRP, &lim->grp}};

	for (size_t i = 0; i < sizeof(shares) / sizeof(*shares); i++) {
		const char *name = qd_tres_name(shares[i].id);
		bool capped = false;
		size_t n = strlen(out);

		for (size_t k = 0; k < sizeof(caps) / sizeof(*caps); k++)
			capped |= (r->flags & caps[k].flag) &&
				  qd_tres_get(caps[k].t, shares[i].id,
					      QD_UNLIMITED) != QD_UNLIMITED;
		if (capped &&
		    qd_doctor_list_has(c->gres_types, "", shares[i].gres) &&
		    !qd_doctor_list_has(c->accounting_tres, "", name))
			snprintf(out + n, len - n, "%s%s (QOS %s)",
				 n ? ", " : "", name, r->name);
	}
}

void qd_doctor_uncounted_shares(const struct qd_site *s,
				const struct qd_doctor_conf *c, char *out,
				size_t len)
{
	struct qd_policy *p = NULL;
	struct qd_ctld_view v;
	char err[QD_SITE_ERR_MAX];

	out[0] = '\0';
	if (!qd_doctor_list_has(c->gres_types, "", "shard") &&
	    !qd_doctor_list_has(c->gres_types, "", "mps"))
		return;
	if (qd_site_policy(s, &p, err, sizeof(err)) || !p)
		return;
	if (qd_ctld_view_ask(s, "root", 0, "root", &v, err, sizeof(err))) {
		qd_policy_free(p);
		return;
	}
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct qd_ctld_qos *q =
		    qd_ctld_qos_find(&v, p->rules[i].name);
		struct qd_limits lim;

		if (!q)
			continue;
		qd_limits_merge(&lim, &q->db, &p->rules[i]);
		shares_of(&p->rules[i], &lim, c, out, len);
	}
	qd_ctld_view_free(&v);
	qd_policy_free(p);
}

void qd_doctor_policy(struct qd_doctor *d, const struct qd_site *s,
		      const struct qd_doctor_conf *c)
{
	struct qd_policy *p = valid(d, s);

	if (!p)
		return;
	against_db(d, s, c, p);
	qd_policy_free(p);
}
