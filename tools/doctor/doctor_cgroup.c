/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny doctor's cgroup checks: the node's cgroups (v1, hybrid, pure v2)
 * beside Slurm's CgroupPlugin, ProctrackType, TaskPlugin and
 * JobAcctGatherType, the binding layout the plugin gives a task there
 * (node/cgroup.h; docs/gpu-and-usage.md, Cgroup layouts), and that
 * layout's confinement of the node's GPUs actually made on a scratch cgroup
 * and removed.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "cgroup.h"
#include "doctor_node.h"
#include "errmsg.h"
#include "textfile.h"

static const char *node_cgroups(void)
{
	struct statfs f;

	if (statfs("/sys/fs/cgroup", &f))
		return "none";
	if (f.f_type == CGROUP2_SUPER_MAGIC)
		return "pure v2";
	if (!statfs("/sys/fs/cgroup/unified", &f) &&
	    f.f_type == CGROUP2_SUPER_MAGIC)
		return "hybrid";
	return "v1";
}

/* cgroup.conf's CgroupPlugin beside slurm.conf (Slurm's default:
 * autodetect). */
static void cgroup_plugin(const struct qd_site *s, char *out, size_t len)
{
	char path[PATH_MAX + 16], dir[PATH_MAX], err[256];
	char *text;

	snprintf(dir, sizeof(dir), "%s", s->slurm_conf);
	snprintf(path, sizeof(path), "%s/cgroup.conf", dirname(dir));
	text = qd_read_file(path, NULL, err, sizeof(err));
	qd_doctor_conf_value(text ? text : "", "CgroupPlugin", out, len);
	if (!out[0])
		snprintf(out, len, "autodetect");
	free(text);
}

/*
 * CgroupPlugin as Slurm resolves autodetect (autodetect_cgroup_version(),
 * src/common/cgroup.c in 22.05, src/interfaces/cgroup.c in 24.11): cgroup2
 * at /sys/fs/cgroup, or tmpfs there with cgroup2 at /sys/fs/cgroup/systemd,
 * is cgroup/v2, else cgroup/v1.
 */
static const char *slurm_plugin(const char *configured)
{
	struct statfs f;

	if (strcmp(configured, "autodetect"))
		return configured;
	if (statfs("/sys/fs/cgroup", &f))
		return "none";
	if (f.f_type == CGROUP2_SUPER_MAGIC ||
	    (!statfs("/sys/fs/cgroup/systemd", &f) &&
	     f.f_type == CGROUP2_SUPER_MAGIC))
		return "cgroup/v2";
	return "cgroup/v1";
}

/*
 * The layout the plugin gives a task on this node (qd_cg_layout_of(), as
 * qd_cg_decide_layout() does for the task's real cgroup): the cgroup= mode
 * resolved on this host's mounts, and whether Slurm's settings put the task
 * in a step cgroup of its cgroup/v2 (not slurmd's own cgroup, which is no
 * step's); a warn or FAIL line where it cannot bind.
 */
static int binding_layout(struct qd_doctor *d, const struct qd_site *s,
			  const struct qd_doctor_conf *c,
			  const struct qd_spank_opts *o,
			  enum qd_cg_layout *layout)
{
	char plugin[64], err[512], slurm[512];
	const char *lay = node_cgroups(), *resolved;
	enum qd_cg_mode mode;

	cgroup_plugin(s, plugin, sizeof(plugin));
	resolved = slurm_plugin(plugin);
	snprintf(slurm, sizeof(slurm),
		 "CgroupPlugin=%s%s%s%s ProctrackType=%s TaskPlugin=%s "
		 "JobAcctGatherType=%s",
		 plugin, resolved != plugin ? " (" : "",
		 resolved != plugin ? resolved : "",
		 resolved != plugin ? ")" : "", c->loaded ? c->proctrack : "?",
		 c->loaded ? c->task_plugin : "?",
		 c->loaded ? c->jobacct_gather : "?");
	if (o->cgroup == QD_CG_OFF) {
		qd_doctor_linef(d, QD_DOC_WARN, "cgroup",
				"drop cgroup=off from the plugstack line",
				"%s; %s; binding: off (cgroup=off): jobs may "
				"open every GPU",
				lay, slurm);
		return -1;
	}
	if (qd_cg_resolve(getpid(), o->cgroup, &mode, err, sizeof(err))) {
		qd_doctor_linef(d, QD_DOC_FAIL, "cgroup",
				"mount the cgroup file systems, or set "
				"cgroup= to the layout this node has",
				"%s; %s; binding (cgroup=%s): %s", lay, slurm,
				qd_cg_mode_name(o->cgroup), err);
		return -1;
	}
	*layout = qd_cg_layout_of(
	    mode, c->loaded && qd_doctor_slurm_task_cgroups(
				   resolved, c->proctrack, c->task_plugin,
				   c->jobacct_gather));
	qd_doctor_linef(
	    d, QD_DOC_OK, "cgroup", NULL, "%s; %s; binding: %s%s (cgroup=%s)",
	    lay, slurm, qd_cg_layout_name(*layout),
	    *layout == QD_CG_LAYOUT_V2_IN_PLACE ? ", in Slurm's task cgroups"
						: "",
	    qd_cg_mode_name(o->cgroup));
	return 0;
}

/*
 * In place, a task's own cgroup is confined (node/cgroup.h): the same done
 * to a scratch cgroup made below this process's cgroup2 cgroup, then taken
 * off and removed. Never one of Slurm's cgroups (docs/gpu-and-usage.md, GPU
 * binding).
 */
static int try_in_place(const struct qd_paths *gpus, char *dir, size_t len,
			size_t *denied, char *err, size_t errlen)
{
	struct qd_cg_binding *b = NULL;
	struct qd_paths none = {0};
	char parent[PATH_MAX];
	int rv = -1;

	if (qd_cg_dir(getpid(), QD_CG_V2, parent, sizeof(parent), err, errlen))
		return -1;
	if (snprintf(dir, len, "%s/" QD_CG_PREFIX "doctor_%ld", parent,
		     (long)getpid()) >= (int)len)
		return qd_errf(err, errlen, "%s: path too long", parent);
	if (mkdir(dir, 0755))
		return qd_errf(err, errlen, "mkdir %s: %s", dir,
			       strerror(errno));
	if (qd_cg_attach_dir(dir, gpus, &none, &b, err, errlen))
		goto done;
	*denied = b ? b->ndenied : 0;
	if (qd_cg_release(b, err, errlen)) {
		qd_cg_forget(b);
		goto done;
	}
	rv = 0;
done:
	if (rmdir(dir) && !rv)
		rv = qd_errf(err, errlen, "rmdir %s: %s", dir, strerror(errno));
	return rv;
}

/* A child layout's cgroup, made beside this process (not moved) as for a
 * task, then removed. */
static int try_child(enum qd_cg_layout layout, const struct qd_paths *gpus,
		     char *dir, size_t len, size_t *denied, char *err,
		     size_t errlen)
{
	struct qd_cg_binding *b = NULL;
	struct qd_paths none = {0};
	char name[64];

	snprintf(name, sizeof(name), QD_CG_PREFIX "doctor_%ld", (long)getpid());
	if (qd_cg_prepare(getpid(),
			  layout == QD_CG_LAYOUT_V1_CHILD ? QD_CG_V1 : QD_CG_V2,
			  name, gpus, &none, &b, err, errlen))
		return -1;
	*denied = b ? b->ndenied : 0;
	snprintf(dir, len, "%s", b ? b->dir : "");
	return qd_cg_release(b, err, errlen);
}

/* Every GPU of the node denied in a scratch cgroup of the layout's kind. */
static void scratch(struct qd_doctor *d, const struct qd_site *s,
		    const struct qd_spank_opts *o, const char *node,
		    enum qd_cg_layout layout)
{
	struct qd_gpus gpus = {0};
	char err[1024], dir[PATH_MAX], source[PATH_MAX + 16], mine[PATH_MAX];
	enum qd_cg_layout own;
	size_t denied = 0;
	int rv;

	if (qd_doctor_node_gpus(s, o, node, &gpus, source, err, sizeof(err))) {
		qd_doctor_linef(d, QD_DOC_WARN, "cgroup-binding",
				"see the 'gpus' line", "not tried: %s", err);
		goto done;
	}
	/* Run inside a job's step, this process's cgroup2 cgroup is Slurm's:
	 * nothing is made nor attached there. */
	if (layout != QD_CG_LAYOUT_V1_CHILD &&
	    !qd_cg_decide_layout(getpid(), QD_CG_V2, &own, mine, sizeof(mine),
				 err, sizeof(err)) &&
	    own == QD_CG_LAYOUT_V2_IN_PLACE) {
		qd_doctor_linef(d, QD_DOC_WARN, "cgroup-binding",
				"run qosdeny doctor outside jobs",
				"not tried: this process is in a cgroup of "
				"Slurm's (%s)",
				mine);
		goto done;
	}
	rv = layout == QD_CG_LAYOUT_V2_IN_PLACE
		 ? try_in_place(&gpus.files, dir, sizeof(dir), &denied, err,
				sizeof(err))
		 : try_child(layout, &gpus.files, dir, sizeof(dir), &denied,
			     err, sizeof(err));
	if (rv)
		qd_doctor_linef(d, QD_DOC_FAIL, "cgroup-binding",
				"see docs/gpu-and-usage.md for what binding "
				"needs on this layout",
				"%s: %s", qd_cg_layout_name(layout), err);
	else if (!denied)
		qd_doctor_linef(d, QD_DOC_WARN, "cgroup-binding",
				"list the node's GPUs in gres.conf",
				"not tried: no GPU to deny (from %s)", source);
	else
		qd_doctor_linef(d, QD_DOC_OK, "cgroup-binding", NULL,
				"%s denying %zu device%s: %s %s and removed",
				qd_cg_layout_name(layout), denied,
				denied == 1 ? "" : "s",
				layout == QD_CG_LAYOUT_V2_IN_PLACE
				    ? "program attached to the scratch cgroup"
				    : "made in",
				dir);
done:
	qd_gpus_free(&gpus);
}

void qd_doctor_cgroup(struct qd_doctor *d, const struct qd_site *s,
		      const struct qd_doctor_conf *c,
		      const struct qd_spank_opts *o, const char *node)
{
	enum qd_cg_layout layout;

	if (!binding_layout(d, s, c, o, &layout))
		scratch(d, s, o, node, layout);
}
