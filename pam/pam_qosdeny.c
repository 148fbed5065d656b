/* SPDX-License-Identifier: GPL-2.0-or-later
 * pam_qosdeny.so: ssh sessions that pam_slurm_adopt adopts into a job are
 * confined to that job's GPUs on the node (docs/gpu-and-usage.md, "Adopted ssh
 * sessions"), or refused.
 *
 * slurmstepd runs no SPANK hook when it adopts a process, so
 * spank_qosdeny.so prepares the confinement in the job's extern step
 * (PrologFlags=Contain) and records it (node/adopt.h); this module, stacked
 * after pam_slurm_adopt in the account stack, reads which job
 * pam_slurm_adopt put the process in and joins that job's confinement. On
 * Slurm's cgroup/v2 the extern step confined, in place, the very cgroup
 * pam_slurm_adopt adopts into, so joining is a check (the job's device
 * program among the process's effective ones) and nothing moves: a
 * process moved out of Slurm's step cgroups would be hidden from Slurm.
 *
 *     account  required  pam_slurm_adopt.so
 *     account  required  pam_qosdeny.so
 *
 * and, to check again after session modules that move processes between
 * cgroups (pam_systemd), also:
 *
 *     session  required  pam_qosdeny.so
 *
 * Options: nodename=NAME (the slurmd whose jobs pam_slurm_adopt looks at,
 * as its own nodename= option; needed only with several slurmd on one host
 * when a job spans more than one of them), dir=PATH (spank_qosdeny.so's
 * adopt_dir=, default /run/qosdeny).
 *
 * Fails closed: a session of a user other than root that was not adopted
 * into a job, whose job left no record on this node, or that cannot be
 * confined, is refused with a "qosdeny:" line the user sees.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#define PAM_SM_ACCOUNT
#define PAM_SM_SESSION
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "adopt.h"
#include "cgroup.h"
#include "spank_opts.h"
#include "step_cgroup.h"

struct opts {
	char dir[PATH_MAX];
	char node[256];
};

static int parse_opts(pam_handle_t *pamh, int argc, const char **argv,
		      struct opts *o)
{
	snprintf(o->dir, sizeof(o->dir), "%s", QD_ADOPT_DIR_DEFAULT);
	o->node[0] = '\0';
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "dir=", 4) && argv[i][4] == '/' &&
		    strlen(argv[i] + 4) < sizeof(o->dir)) {
			snprintf(o->dir, sizeof(o->dir), "%s", argv[i] + 4);
		} else if (!strncmp(argv[i], "nodename=", 9) && argv[i][9] &&
			   strlen(argv[i] + 9) < sizeof(o->node)) {
			snprintf(o->node, sizeof(o->node), "%s", argv[i] + 9);
		} else {
			pam_syslog(pamh, LOG_ERR,
				   "qosdeny: unknown or malformed option '%s' "
				   "(known: dir=/PATH, nodename=NAME)",
				   argv[i]);
			return -1;
		}
	}
	return 0;
}

/* To the user (sshd shows it before closing) and to syslog. */
static void tell(pam_handle_t *pamh, int prio, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void tell(pam_handle_t *pamh, int prio, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pam_syslog(pamh, prio, "%s", msg);
	if (prio <= LOG_ERR)
		pam_error(pamh, "%s", msg);
}

/*
 * Where pam_slurm_adopt put this process, by name: a path with
 * ".../job_JOB/step_extern" (and, with several slurmd on one host,
 * ".../slurm_NODE/...", which names the node) in a v1 hierarchy (the freezer
 * proctrack/cgroup uses: cgroup v1 names the job so in every release), or
 * in the cgroup2 one where the extern step's record predates step=
 * (in_step()). ADOPTED_V1 or ADOPTED_V2_NAME for where it was found, else 0.
 */
enum { ADOPTED_V1 = 1, ADOPTED_V2_NAME };

static int adopted_by_name(uint32_t job, char *node, size_t nodelen)
{
	char want[64], *line = NULL, *p, *q;
	size_t cap = 0;
	int found = 0;
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "/job_%" PRIu32 "/step_extern", job);
	while (found != ADOPTED_V1 && getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		p = strstr(line, want);
		if (!p || (p[strlen(want)] && p[strlen(want)] != '/'))
			continue;
		/* "0::PATH" is the cgroup2 hierarchy's line. */
		found = strncmp(line, "0::", 3) ? ADOPTED_V1 : ADOPTED_V2_NAME;
		p = strstr(line, "/slurm_");
		if (p && node[0] == '\0') {
			p += strlen("/slurm_");
			q = strchr(p, '/');
			if (q && (size_t)(q - p) < nodelen)
				snprintf(node, nodelen, "%.*s", (int)(q - p),
					 p);
		}
	}
	free(line);
	fclose(f);
	return found;
}

/*
 * On cgroup v2 under Slurm's cgroup/v2: the step whose Slurm cgroup holds
 * this process, found by structure whatever the job's directory is called
 * (job_N, or the job's SLUID from 26.05: step_cgroup.h). 1 with it in step,
 * else 0.
 */
static int own_step(char *step, size_t len)
{
	char mine[PATH_MAX], why[512];

	return !qd_cg_dir(getpid(), QD_CG_V2, mine, sizeof(mine), why,
			  sizeof(why)) &&
	       qd_step_cgroup(mine, step, len) == 1;
}

/*
 * Whether that step (own_step(): step, or "" for none) is the extern step
 * the record names (step=, the directory its slurmstepd recorded). A record
 * written before step= existed (a job started before an upgrade) is matched
 * by name instead.
 */
static int in_step(const struct qd_adopt_rec *rec, int by_name,
		   const char *step)
{
	if (!rec->step[0])
		return by_name == ADOPTED_V2_NAME;
	return !strcmp(step, rec->step);
}

static void not_adopted(pam_handle_t *pamh, const char *user, unsigned long job)
{
	tell(pamh, LOG_ERR,
	     "qosdeny: %s: access denied: this process is not in job %lu's "
	     "extern step cgroup (ProctrackType=proctrack/cgroup and "
	     "PrologFlags=Contain are needed)",
	     user, job);
}

/*
 * Joins the session to its job's confinement: PAM_SUCCESS with *confined
 * set when it joined one (0: nothing to confine), PAM_PERM_DENIED when it
 * is refused; node (nodelen bytes) names the job's node once known.
 */
static int join(pam_handle_t *pamh, const struct opts *o, const char *stage,
		char *node, size_t nodelen, int *confined)
{
	int moved = 0, by_name;
	const char *user = NULL, *id;
	char text[2 * PATH_MAX + 1024], err[PATH_MAX + 512];
	char from_cg[256] = "", step[PATH_MAX];
	struct qd_adopt_rec rec;
	struct passwd *pw;
	unsigned long job;
	char *end;

	if (pam_get_item(pamh, PAM_USER, (const void **)&user) != PAM_SUCCESS ||
	    !user)
		return PAM_USER_UNKNOWN;
	pw = getpwnam(user);
	if (!pw)
		return PAM_USER_UNKNOWN;
	/* pam_slurm_adopt leaves root alone (ignore_root); so do we. */
	if (pw->pw_uid == 0)
		return PAM_IGNORE;
	/* pam_slurm_adopt sets it once slurmstepd adopted the process. */
	id = pam_getenv(pamh, "SLURM_JOB_ID");
	if (!id) {
		tell(pamh, LOG_ERR,
		     "qosdeny: %s: access denied: this session is in no job "
		     "(pam_slurm_adopt must come first and adopt it)",
		     user);
		return PAM_PERM_DENIED;
	}
	job = strtoul(id, &end, 10);
	if (*end || !job || job > UINT32_MAX) {
		tell(pamh, LOG_ERR,
		     "qosdeny: %s: access denied: bad job id '%s'", user, id);
		return PAM_PERM_DENIED;
	}
	snprintf(node, nodelen, "%s", o->node);
	by_name = adopted_by_name((uint32_t)job, from_cg, sizeof(from_cg));
	if (!own_step(step, sizeof(step)))
		step[0] = '\0';
	/* In no step of Slurm's: no record to look for. */
	if (!by_name && !step[0]) {
		not_adopted(pamh, user, job);
		return PAM_PERM_DENIED;
	}
	if (!node[0] && from_cg[0]) {
		/* The slurmd whose cgroup tree holds us, if it left a record.
		 */
		if (!qd_adopt_read(o->dir, from_cg, (uint32_t)job, "adopt",
				   text, sizeof(text), err, sizeof(err)))
			snprintf(node, nodelen, "%s", from_cg);
	}
	if (!node[0] && qd_adopt_find_node(o->dir, (uint32_t)job, node, nodelen,
					   err, sizeof(err))) {
		node[0] = '\0'; /* several, or none */
		tell(pamh, LOG_ERR, "qosdeny: %s: access denied to job %lu: %s",
		     user, job, err);
		return PAM_PERM_DENIED;
	}
	if (qd_adopt_read(o->dir, node, (uint32_t)job, "adopt", text,
			  sizeof(text), err, sizeof(err)) ||
	    qd_adopt_parse(text, &rec, err, sizeof(err))) {
		tell(pamh, LOG_ERR,
		     "qosdeny: %s: access denied to job %lu on %s: its extern "
		     "step's record: %s",
		     user, job, node, err);
		return PAM_PERM_DENIED;
	}
	if (by_name != ADOPTED_V1 && !in_step(&rec, by_name, step)) {
		not_adopted(pamh, user, job);
		return PAM_PERM_DENIED;
	}
	if (rec.refuse[0]) {
		tell(pamh, LOG_ERR,
		     "qosdeny: %s: access denied to job %lu on %s: its GPUs "
		     "cannot be confined: %s",
		     user, job, node, rec.refuse);
		return PAM_PERM_DENIED;
	}
	if (rec.mode == QD_CG_OFF) {
		pam_syslog(pamh, LOG_INFO,
			   "qosdeny: %s: job %lu on %s: nothing to confine",
			   user, job, node);
		return PAM_SUCCESS;
	}
	if (qd_cg_join(getpid(), rec.mode, rec.dir, rec.prog_id, &moved, err,
		       sizeof(err))) {
		tell(pamh, LOG_ERR,
		     "qosdeny: %s: access denied to job %lu on %s: %s", user,
		     job, node, err);
		return PAM_PERM_DENIED;
	}
	pam_syslog(pamh, LOG_INFO,
		   "qosdeny: %s (%s): pid %d %s job %lu's GPU confinement on "
		   "%s (%s)",
		   user, stage, (int)getpid(),
		   moved ? "moved into" : "already in", job, node, rec.dir);
	*confined = 1;
	return PAM_SUCCESS;
}

/*
 * Counted for the node's metrics (adopt.h, node_counts.h): each session
 * once, at the account stage, and a refusal at the session stage too.
 * A session refused before its node is known counts on the nodename=
 * option's node, else on the only node this host's directory has.
 */
static void count(const struct opts *o, const char *node, enum qd_node_count c)
{
	char sole[256];

	if (!node[0])
		node = o->node;
	if (!node[0]) {
		if (qd_adopt_sole_node(o->dir, sole, sizeof(sole)))
			return;
		node = sole;
	}
	qd_adopt_count(o->dir, node, c);
}

static int confine(pam_handle_t *pamh, int argc, const char **argv,
		   const char *stage)
{
	char node[256] = "";
	int rv, confined = 0;
	struct opts o;

	if (parse_opts(pamh, argc, argv, &o))
		return PAM_SERVICE_ERR;
	rv = join(pamh, &o, stage, node, sizeof(node), &confined);
	if (rv == PAM_PERM_DENIED)
		count(&o, node, QD_NC_SSH_REFUSED);
	else if (rv == PAM_SUCCESS && !strcmp(stage, "account"))
		count(&o, node,
		      confined ? QD_NC_SSH_CONFINED : QD_NC_SSH_UNCONFINED);
	return rv;
}

PAM_EXTERN int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc,
				const char **argv)
{
	(void)flags;
	return confine(pamh, argc, argv, "account");
}

/* Again at the session: a module before this one may have moved it. */
PAM_EXTERN int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc,
				   const char **argv)
{
	int rv;

	(void)flags;
	rv = confine(pamh, argc, argv, "session");
	return rv == PAM_PERM_DENIED ? PAM_SESSION_ERR : rv;
}

PAM_EXTERN int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc,
				    const char **argv)
{
	(void)pamh;
	(void)flags;
	(void)argc;
	(void)argv;
	return PAM_SUCCESS;
}
