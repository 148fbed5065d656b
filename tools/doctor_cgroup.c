/*
 * qosdeny doctor's cgroup checks: the node's layout (v1, hybrid, pure v2)
 * beside Slurm's CgroupPlugin, ProctrackType and TaskPlugin, the binding
 * mode the plugin's cgroup= option gives there (spank/cgroup.h), and a
 * confinement of the node's GPUs actually made beside this process and
 * removed.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "doctor_node.h"
#include "textfile.h"

static const char *layout(void)
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

static const char *mode_words(enum qd_cg_mode m)
{
	switch (m) {
	case QD_CG_V1:
		return "v1 devices cgroup";
	case QD_CG_V2:
		return "v2 device program";
	case QD_CG_OFF:
		return "off";
	case QD_CG_AUTO:
		break;
	}
	return "auto";
}

/*
 * Where a task's program goes on v2 (docs/gpu-and-usage.md, Cgroup layouts):
 * Slurm's cgroup/v2 plugin makes job and step cgroups for proctrack/cgroup
 * and task/cgroup, and the program is attached to the task's own cgroup
 * there; otherwise to a child cgroup qosdeny makes. On v1 always a child.
 */
static const char *way(const struct qd_doctor_conf *c, enum qd_cg_mode mode)
{
	if (mode != QD_CG_V2)
		return ", in a child cgroup";
	if (c->loaded && (strstr(c->proctrack, "proctrack/cgroup") ||
			  strstr(c->task_plugin, "task/cgroup")))
		return ", in place in Slurm's task cgroups";
	return ", in a child cgroup";
}

/* The mode, named; a warn or FAIL line where it cannot bind. */
static int binding_mode(struct qd_doctor *d, const struct qd_site *s,
			const struct qd_doctor_conf *c,
			const struct qd_spank_opts *o, pid_t pid,
			enum qd_cg_mode *mode)
{
	char plugin[64], err[512], slurm[512];
	const char *lay = layout();

	cgroup_plugin(s, plugin, sizeof(plugin));
	snprintf(slurm, sizeof(slurm),
		 "CgroupPlugin=%s ProctrackType=%s TaskPlugin=%s", plugin,
		 c->loaded ? c->proctrack : "?",
		 c->loaded ? c->task_plugin : "?");
	if (o->cgroup == QD_CG_OFF) {
		qd_doctor_linef(d, QD_DOC_WARN, "cgroup",
				"drop cgroup=off from the plugstack line",
				"%s; %s; binding: off (cgroup=off): jobs may "
				"open every GPU",
				lay, slurm);
		return -1;
	}
	if (qd_cg_resolve(pid, o->cgroup, mode, err, sizeof(err))) {
		qd_doctor_linef(d, QD_DOC_FAIL, "cgroup",
				"mount the cgroup file systems, or set "
				"cgroup= to the layout this node has",
				"%s; %s; binding (cgroup=%s): %s", lay, slurm,
				qd_cg_mode_name(o->cgroup), err);
		return -1;
	}
	qd_doctor_linef(d, QD_DOC_OK, "cgroup", NULL,
			"%s; %s; binding: %s%s (cgroup=%s)", lay, slurm,
			mode_words(*mode), way(c, *mode),
			qd_cg_mode_name(o->cgroup));
	return 0;
}

/* Every GPU of the node denied in a scratch cgroup beside this process,
 * which is not moved, then removed. */
static void scratch(struct qd_doctor *d, const struct qd_site *s,
		    const struct qd_spank_opts *o, const char *node,
		    enum qd_cg_mode mode)
{
	struct qd_paths gpus = {0}, none = {0};
	struct qd_cg_binding *b = NULL;
	char name[64], err[1024], dir[PATH_MAX], source[PATH_MAX + 16];
	size_t denied;

	snprintf(name, sizeof(name), QD_CG_PREFIX "doctor_%ld", (long)getpid());
	if (qd_doctor_node_gpus(s, o, node, &gpus, source, err, sizeof(err))) {
		qd_doctor_linef(d, QD_DOC_WARN, "cgroup-binding",
				"see the 'gpus' line", "not tried: %s", err);
		goto done;
	}
	if (qd_cg_prepare(getpid(), mode, name, &gpus, &none, &b, err,
			  sizeof(err))) {
		qd_doctor_linef(d, QD_DOC_FAIL, "cgroup-binding",
				"see docs/gpu-and-usage.md for what binding "
				"needs on this layout",
				"%s: %s", mode_words(mode), err);
		goto done;
	}
	if (!b) {
		qd_doctor_linef(d, QD_DOC_WARN, "cgroup-binding",
				"list the node's GPUs in gres.conf",
				"not tried: no GPU to deny (from %s)", source);
		goto done;
	}
	snprintf(dir, sizeof(dir), "%s", b->dir);
	denied = b->ndenied;
	if (qd_cg_release(b, err, sizeof(err)))
		qd_doctor_linef(d, QD_DOC_FAIL, "cgroup-binding",
				"remove the cgroup by hand (rmdir)",
				"%s made in %s, not removed: %s",
				mode_words(mode), dir, err);
	else
		qd_doctor_linef(d, QD_DOC_OK, "cgroup-binding", NULL,
				"%s denying %zu device%s made in %s and "
				"removed",
				mode_words(mode), denied,
				denied == 1 ? "" : "s", dir);
done:
	qd_paths_free(&gpus);
}

void qd_doctor_cgroup(struct qd_doctor *d, const struct qd_site *s,
		      const struct qd_doctor_conf *c,
		      const struct qd_spank_opts *o, const char *node,
		      pid_t slurmd)
{
	enum qd_cg_mode mode;

	/* The mode slurmd's steps get is the one of slurmd's cgroups. */
	if (!binding_mode(d, s, c, o, slurmd ? slurmd : getpid(), &mode))
		scratch(d, s, o, node, mode);
}
