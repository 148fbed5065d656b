/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny doctor [--node[=NAME] | --controller] [-P]: checks this host's
 * set-up, one line per check (docs/man/qosdeny.1). Without --node or
 * --controller, the daemons running here with this slurm.conf decide: a
 * slurmctld gets the controller checks, a slurmd the node checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "doctor.h"
#include "doctor_procs.h"

struct args {
	bool node, controller, parsable;
	const char *node_name; /* NULL: found */
};

static int parse(int argc, char **argv, struct args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "-P"))
			a->parsable = true;
		else if (!strcmp(arg, "--controller"))
			a->controller = true;
		else if (!strcmp(arg, "--node")) {
			a->node = true;
			if (i + 1 < argc && argv[i + 1][0] != '-')
				a->node_name = argv[++i];
		} else if (!strncmp(arg, "--node=", 7) && arg[7]) {
			a->node = true;
			a->node_name = arg + 7;
		} else
			return qd_bad_argument("doctor", arg);
	}
	return 0;
}

/* The node to check and its slurmd; a usage error when it is ambiguous. */
static int pick_node(const struct args *a, const struct qd_procs *p,
		     const char **node, pid_t *pid)
{
	const char *env = getenv("SLURMD_NODENAME");
	char names[512] = "";

	*node = a->node_name ? a->node_name : env && *env ? env : NULL;
	*pid = 0;
	if (*node) {
		for (size_t i = 0; i < p->n_slurmd; i++)
			if (!strcmp(p->slurmd[i].node, *node))
				*pid = p->slurmd[i].pid;
		return 0;
	}
	if (p->n_slurmd == 1) {
		*node = p->slurmd[0].node;
		*pid = p->slurmd[0].pid;
		return 0;
	}
	if (!p->n_slurmd) {
		*node = p->hostname; /* slurmd's own default */
		return 0;
	}
	for (size_t i = 0; i < p->n_slurmd; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", i ? ", " : "", p->slurmd[i].node);
	return qd_usage_error("doctor: several slurmd run here (%s): name "
			      "one with --node=NAME",
			      names);
}

static void node_line(struct qd_doctor *d, const char *node, pid_t pid)
{
	if (pid)
		qd_doctor_linef(d, QD_DOC_OK, "node", NULL,
				"%s: slurmd pid %ld", node, (long)pid);
	else
		qd_doctor_linef(
		    d, QD_DOC_WARN, "node",
		    "start slurmd, or name the node with --node=NAME",
		    "%s: no slurmd of this slurm.conf runs here", node);
}

int qd_cmd_doctor(int argc, char **argv)
{
	char err[QD_SITE_ERR_MAX];
	struct qd_doctor d = {0};
	struct qd_doctor_conf c;
	struct args a = {0};
	struct qd_procs p;
	struct qd_site s;
	const char *node = NULL;
	pid_t pid = 0;
	bool site_bad;
	int rv = parse(argc, argv, &a);

	if (rv)
		return rv;
	if (geteuid()) {
		fputs("qosdeny: doctor: run it as root (it reads the spool, "
		      "makes a cgroup and runs slurmd -G)\n",
		      stderr);
		return 1;
	}
	/* qosdeny.conf's path is set once slurm.conf is read: a refusal
	 * after that is plugstack.conf's, a check's FAIL line. */
	site_bad = qd_site_load(&s, err, sizeof(err)) != 0;
	if (site_bad && !s.qosdeny_conf[0]) {
		fprintf(stderr, "qosdeny: doctor: %s\n", err);
		return 1;
	}
	qd_procs_find(&s, &p);
	if (!a.node && !a.controller) {
		a.controller = p.slurmctld;
		a.node = p.n_slurmd > 0;
		if (!a.node && !a.controller)
			return qd_usage_error("doctor: neither slurmd nor "
					      "slurmctld runs here with %s: "
					      "name --node or --controller",
					      s.slurm_conf);
	}
	if (a.node && (rv = pick_node(&a, &p, &node, &pid)))
		return rv;
	d.parsable = a.parsable;
	qd_doctor_conf_load(&s, &c);
	if (a.controller)
		qd_doctor_ctld(&d, &s, &c, site_bad ? err : NULL);
	if (a.node) {
		node_line(&d, node, pid);
		qd_doctor_node(&d, &s, &c, node, site_bad ? err : NULL);
	}
	return qd_doctor_exit(&d);
}
