/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny limits [-P] [--user NAME] [--qos NAME[,NAME...]]: where a user
 * stands against every cap qosdeny enforces, before submitting. The limits
 * and running-usage counters come from slurmctld in one RPC
 * (ctld_limits.c), the records from qosdeny.conf, the arithmetic from the
 * policy core (headroom.c): the numbers the plugin decides with.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "ctld_limits.h"
#include "headroom.h"
#include "in_force.h"
#include "site_opts.h"
#include "site_policy.h"

#define MAX_CAPS 64 /* 3 flags x (4 TRES + 16 types) fit */

struct limits_args {
	bool parsable;
	const char *user;
	const char *qos; /* comma-separated; NULL: every record */
};

static int parse_args(int argc, char **argv, struct limits_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *v;
		bool missing;

		if (!strcmp(argv[i], "-P")) {
			a->parsable = true;
			continue;
		}
		v = qd_option_value(argc, argv, &i, "--user", &missing);
		if (v || missing) {
			if (missing || !*v)
				return qd_usage_error(
				    "limits: --user needs a user name");
			a->user = v;
			continue;
		}
		v = qd_option_value(argc, argv, &i, "--qos", &missing);
		if (v || missing) {
			if (missing || !*v || *v == ',' ||
			    v[strlen(v) - 1] == ',' || strstr(v, ",,"))
				return qd_usage_error(
				    "limits: --qos needs QOS names, "
				    "comma-separated");
			a->qos = v;
			continue;
		}
		return qd_bad_argument("limits", argv[i]);
	}
	return 0;
}

/* Column widths of the aligned layout; negative: left-aligned. */
static const int widths[] = {-15, -16, -15, 10, 10, 10};
static const char *const names[] = {"QOS",   "Flag",  "TRES",
				    "Limit", "InUse", "CanAskNow"};
#define NCOLS (sizeof(widths) / sizeof(widths[0]))

/* s cut to width with its last character replaced by '+', as sshare. */
static void print_field(bool parsable, size_t col, const char *s)
{
	int w = abs(widths[col]);
	size_t len = strlen(s);

	if (parsable)
		printf("%s%s", s, col + 1 < NCOLS ? "|" : "\n");
	else if (len > (size_t)w)
		printf("%.*s+%s", w - 1, s, col + 1 < NCOLS ? " " : "\n");
	else
		printf("%*s%s", widths[col], s, col + 1 < NCOLS ? " " : "\n");
}

static void print_header(bool parsable)
{
	for (size_t i = 0; i < NCOLS; i++)
		print_field(parsable, i, names[i]);
	if (parsable)
		return;
	for (size_t i = 0; i < NCOLS; i++)
		printf("%.*s%s", abs(widths[i]),
		       "--------------------------------",
		       i + 1 < NCOLS ? " " : "\n");
}

static void print_cap(bool parsable, const char *qos, const struct qd_cap *c)
{
	char tres[48], limit[32], in_use[32] = "", ask[32];

	qd_cap_tres(c, tres, sizeof(tres));
	qd_tres_format_value(c->id, c->limit, limit, sizeof(limit));
	if (c->has_in_use)
		qd_tres_format_value(c->id, c->in_use, in_use, sizeof(in_use));
	qd_tres_format_value(c->id, c->can_ask, ask, sizeof(ask));
	print_field(parsable, 0, qos);
	print_field(parsable, 1, qd_flag_name(c->flag));
	print_field(parsable, 2, tres);
	print_field(parsable, 3, limit);
	print_field(parsable, 4, in_use);
	print_field(parsable, 5, ask);
}

/* A QoS the user cannot submit to: Slurm refuses every job in it. */
static void print_not_allowed(bool parsable, const char *qos)
{
	const char *row[NCOLS] = {qos, "NotAllowed", "", "", "", "0"};

	for (size_t i = 0; i < NCOLS; i++)
		print_field(parsable, i, row[i]);
}

struct limits_ctx {
	const struct limits_args *a;
	const struct qd_site *site;
	const struct qd_policy *policy;
	const struct qd_ctld_view *view;
};

/*
 * Of q's limits (lim), those in force for a job under q in the default
 * partition, whose QoS may set the same TRES first (docs/how-it-decides.md,
 * "Which limit"): the rows a job there meets.
 */
static void in_force_there(const struct limits_ctx *c,
			   const struct qd_qos_rule *rule,
			   const struct qd_ctld_qos *q, struct qd_limits *lim)
{
	const struct qd_ctld_qos *pq;
	struct qd_qos_side job = {.name = q->name,
				  .rule = rule,
				  .lim = *lim,
				  .used = q->used,
				  .over_part_qos = q->over_part_qos},
			   part;
	const struct qd_qos_side *order[2];
	struct qd_in_force in;
	size_t n;

	if (!c->view->default_part_qos[0] ||
	    !(pq = qd_ctld_qos_find(c->view, c->view->default_part_qos)))
		return;
	part = (struct qd_qos_side){
	    .name = pq->name,
	    .rule = qd_policy_rule(c->policy, pq->name),
	    .used = pq->used,
	};
	qd_limits_merge(&part.lim, &pq->db, part.rule);
	n = qd_qos_order(&job, &part, order);
	if (n < 2)
		return; /* the partition's QoS is this one */
	qd_limits_in_force(order, n, &in);
	qd_limits_in_force_of(&in, order[0] == &job ? 0 : 1, lim);
}

/* Prints one QoS's rows; -1 when it cannot be shown. */
static int show_qos(const struct limits_ctx *c, const char *name, bool named)
{
	const struct qd_qos_rule *rule = qd_policy_rule(c->policy, name);
	const struct qd_ctld_qos *q = qd_ctld_qos_find(c->view, name);
	struct qd_cap caps[MAX_CAPS];
	struct qd_limits lim;
	size_t n;

	if (!rule) {
		fprintf(stderr,
			"qosdeny: limits: QOS %s has no record in %s: "
			"qosdeny does not check it\n",
			name, c->site->qosdeny_conf);
		return -1;
	}
	if (!q) {
		fprintf(stderr,
			"qosdeny: limits: QOS %s is not known to "
			"slurmctld\n",
			name);
		return named ? -1 : 0;
	}
	if (qd_site_enforces_qos(c->site) && !q->allowed &&
	    !qd_site_is_partition_qos(c->site, q->name)) {
		print_not_allowed(c->a->parsable, q->name);
		return 0;
	}
	qd_limits_merge(&lim, &q->db, rule);
	in_force_there(c, rule, q, &lim);
	n = qd_caps(rule, &lim, &q->used, caps, MAX_CAPS);
	for (size_t i = 0; i < n && i < MAX_CAPS; i++)
		print_cap(c->a->parsable, q->name, &caps[i]);
	return 0;
}

static int by_name(const void *x, const void *y)
{
	return strcasecmp(((const struct qd_qos_rule *)x)->name,
			  ((const struct qd_qos_rule *)y)->name);
}

static int show(const struct limits_ctx *c)
{
	struct qd_qos_rule *rules;
	int rv = 0;

	print_header(c->a->parsable);
	if (c->a->qos) {
		char *names = strdup(c->a->qos), *save = NULL;

		if (!names)
			return -1;
		for (char *q = strtok_r(names, ",", &save); q;
		     q = strtok_r(NULL, ",", &save))
			rv |= show_qos(c, q, true);
		free(names);
		return rv;
	}
	rules = malloc((c->policy->n_rules + 1) * sizeof(*rules));
	if (!rules)
		return -1;
	memcpy(rules, c->policy->rules, c->policy->n_rules * sizeof(*rules));
	qsort(rules, c->policy->n_rules, sizeof(*rules), by_name);
	for (size_t i = 0; i < c->policy->n_rules; i++)
		rv |= show_qos(c, rules[i].name, false);
	free(rules);
	return rv;
}

/* Root, SlurmUser and operators see anyone; others themselves only, where
 * PrivateData hides users or usage (slurmctld itself would still hand out
 * every user's counters with the QoS). */
static bool may_see(const struct qd_site *s, const struct qd_ctld_view *v,
		    const char *caller, const char *user)
{
	const char *slurm_user = s->slurm_user[0] ? s->slurm_user : "root";

	return !strcmp(caller, user) || getuid() == 0 ||
	       !strcmp(caller, slurm_user) || v->caller_operator ||
	       !qd_site_private_users(s);
}

/* Why a job of this user may not be denied by what the rows say. */
static void notes(const struct limits_ctx *c, const char *user)
{
	if (!c->policy->enforce)
		fprintf(stderr,
			"qosdeny: limits: Enforce=no in %s: jobs over these "
			"caps are accepted (and wait in the queue)\n",
			c->site->qosdeny_conf);
	else if (qd_policy_is_exempt(c->policy, user))
		fprintf(stderr,
			"qosdeny: limits: %s is in ExemptUsers: qosdeny denies "
			"none of their jobs (over these caps they wait in the "
			"queue)\n",
			user);
}

int qd_cmd_limits(int argc, char **argv)
{
	char err[QD_SITE_ERR_MAX > QD_ERR_MAX ? QD_SITE_ERR_MAX : QD_ERR_MAX];
	struct limits_args a = {0};
	struct qd_site site;
	struct qd_spank_opts
	    opts; /* read for its refusal: qosdeny(1), PLUGSTACK.CONF OPTIONS */
	struct qd_policy *policy = NULL;
	struct qd_ctld_view view = {0};
	struct limits_ctx ctx = {&a, &site, NULL, &view};
	const struct passwd *pw;
	char caller[QD_NAME_MAX];
	uint32_t uid;
	int rv = 1, usage = parse_args(argc, argv, &a);

	if (usage)
		return usage;
	if (!(pw = getpwuid(getuid()))) {
		fprintf(stderr, "qosdeny: limits: no user name for uid %u\n",
			(unsigned)getuid());
		return 1;
	}
	snprintf(caller, sizeof(caller), "%s", pw->pw_name);
	if (!a.user)
		a.user = caller;
	if (!(pw = getpwnam(a.user))) {
		fprintf(stderr, "qosdeny: limits: no such user '%s'\n", a.user);
		return 1;
	}
	uid = pw->pw_uid;
	if (qd_site_load(&site, err, sizeof(err)) ||
	    qd_site_spank_opts(&site, &opts, err, sizeof(err)) ||
	    qd_site_policy(&site, &policy, err, sizeof(err))) {
		fprintf(stderr, "qosdeny: limits: %s\n", err);
		goto out;
	}
	if (!policy) {
		fprintf(stderr,
			"qosdeny: limits: %s does not exist: qosdeny checks "
			"no QOS\n",
			site.qosdeny_conf);
		goto out;
	}
	ctx.policy = policy;
	if (qd_ctld_view_load(&site, a.user, uid, caller, &view, err,
			      sizeof(err))) {
		fprintf(stderr, "qosdeny: limits: %s\n", err);
		goto out;
	}
	if (!may_see(&site, &view, caller, a.user)) {
		fprintf(stderr,
			"qosdeny: limits: PrivateData=%s in %s: only root, "
			"SlurmUser and operators may see another user's "
			"limits\n",
			site.private_data, site.slurm_conf);
		goto out;
	}
	if (!view.has_assoc) {
		fprintf(stderr,
			"qosdeny: limits: user %s has no association in "
			"slurmctld: Slurm accepts no job of theirs\n",
			a.user);
		goto out;
	}
	notes(&ctx, a.user);
	rv = show(&ctx) ? 1 : 0;
	if (fflush(stdout) || ferror(stdout))
		rv = 1;
out:
	qd_ctld_view_free(&view);
	qd_policy_free(policy);
	return rv;
}
