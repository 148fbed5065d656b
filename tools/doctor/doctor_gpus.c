/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny doctor's GPU check: the files the plugin would bind (its
 * gpu_devices= option, else gres.conf's Name=gpu File= for the node, else
 * /dev/nvidia[0-9]*: node/gpu_devices.h) against the ones slurmd itself
 * reads (`slurmd -G`), compared by device number in Slurm's index order:
 * a difference means a job's GPU index names another device for qosdeny
 * than for Slurm. Where slurmd -G refuses gres.conf (fewer shards than
 * slurm.conf's Gres=, say: slurmd would not start), its fatal line is the
 * check's; where gres.conf gives more than slurmd takes, a warning.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cgroup_deny.h"
#include "doctor_node.h"
#include "errmsg.h"
#include "gpu_devices.h"
#include "gpu_order.h"
#include "job_held.h"
#include "job_weigh.h"
#include "slurmd_gres.h"

/* gres.conf beside the slurm.conf doctor reads. */
static void gres_conf(const struct qd_site *s, char *out, size_t len)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", s->slurm_conf);
	snprintf(out, len, "%s/gres.conf", dirname(dir));
}

int qd_doctor_node_gpus(const struct qd_site *s, const struct qd_spank_opts *o,
			const char *node, struct qd_gpus *out, char *source,
			char *err, size_t errlen)
{
	char gres[PATH_MAX + 16];
	const char *from = "";
	int rv;

	gres_conf(s, gres, sizeof(gres));
	rv = qd_node_gpus(o->gpu_devices[0] ? o->gpu_devices : NULL, gres, node,
			  out, &from, err, errlen);
	/* from may point into gres, which ends here. */
	snprintf(source, PATH_MAX + 16, "%s", from);
	return rv;
}

/* What `slurmd -G` takes of the node's GRES. */
struct slurmd_view {
	struct qd_paths gpus;		/* each gpu line's File= */
	unsigned long long shards, mps; /* the shard and mps lines' Count= */
};

/* `slurmd -G`'s view: 0, or -1 with why in err (it could not run or
 * failed, printed no GRES line, or gave a File= list out of shape), -2
 * with its fatal line where it refused the node's configuration. */
static int slurmd_gres(const struct qd_site *s, const char *node,
		       struct slurmd_view *out, char *err, size_t errlen)
{
	char cmd[PATH_MAX + 512], line[4096], why[512], fatal[512] = "";
	bool gres = false;
	int status, rv = 0;
	FILE *p;

	/* Names and paths are passed quoted; a quote in them is refused. */
	if (strchr(node, '\'') || strchr(s->slurm_conf, '\''))
		return qd_errf(err, errlen,
			       "not run: a quote in the node's name or "
			       "slurm.conf's path");
	snprintf(cmd, sizeof(cmd), "slurmd -G -N '%s' -f '%s' 2>&1", node,
		 s->slurm_conf);
	p = popen(cmd, "re");
	if (!p)
		return qd_errf(err, errlen, "not run: %s", strerror(errno));
	/* Read to the end, so that slurmd is not cut off mid-output. */
	while (fgets(line, sizeof(line), p)) {
		const char *file;
		size_t len;
		int rc = qd_slurmd_gres_line(line, &file, &len);
		const char *f = strstr(line, "fatal: ");
		unsigned long long n;

		if (qd_slurmd_gres_count(line, "shard", &n) == 1)
			out->shards += n;
		else if (qd_slurmd_gres_count(line, "mps", &n) == 1)
			out->mps += n;
		if (f)
			snprintf(fatal, sizeof(fatal), "%.*s",
				 (int)strcspn(f, "\n"), f);
		gres |= rc >= 0;
		if (rc < 1 || rv)
			continue;
		/* The value ends the line's text here (file is in line). */
		line[file + len - line] = '\0';
		if (qd_expand_list(file, &out->gpus, why, sizeof(why)))
			rv =
			    qd_errf(err, errlen, "gave File=%s: %s", file, why);
	}
	status = pclose(p);
	if (rv)
		return -1;
	if (status && fatal[0]) {
		qd_errf(err, errlen, "%s", fatal);
		return -2;
	}
	if (status)
		return qd_errf(err, errlen, "failed (exit status %d)",
			       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	if (!gres)
		return qd_errf(err, errlen, "printed no GRES line");
	return 0;
}

/* Whether both lists name the same devices (st_rdev), in order. */
static bool same_devices(const struct qd_paths *a, const struct qd_paths *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		struct stat sa, sb;

		if (stat(a->v[i], &sa) || stat(b->v[i], &sb) ||
		    sa.st_rdev != sb.st_rdev)
			return false;
	}
	return true;
}

/* Whether a GPU's file is not a character device (a MIG slice's
 * nvidia-caps file where the slice was not made, say): binding refuses
 * every step then. -1 with which and why in err, else 0. */
static int missing_file(const struct qd_gpus *g, char *err, size_t errlen)
{
	char why[1024];

	for (size_t i = 0; i < g->n; i++)
		for (size_t j = g->first[i]; j < g->first[i + 1]; j++)
			if (qd_char_device(g->files.v[j], NULL, why,
					   sizeof(why)))
				return qd_errf(err, errlen, "GPU %zu: %s", i,
					       why);
	return 0;
}

/* "a,b,c" of the first few paths, for a line. */
static void list(const struct qd_paths *p, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < p->n && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%s%s", i ? "," : "",
				      p->v[i]);
	if (!p->n)
		snprintf(out, len, "none");
}

/* The same of GPUs, a MIG slice's files joined by '+' (its parent GPU's
 * device file, then its nvidia-caps files): "a,b+c+d,b+e+f". */
static void list_gpus(const struct qd_gpus *g, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < g->n && n < len; i++)
		for (size_t j = g->first[i]; j < g->first[i + 1] && n < len;
		     j++)
			n += (size_t)snprintf(out + n, len - n, "%s%s",
					      j == g->first[i] ? (i ? "," : "")
							       : "+",
					      g->files.v[j]);
	if (!g->n)
		snprintf(out, len, "none");
}

/*
 * Where a job on the node may hold part of a GPU, the tool the job prolog
 * runs to learn what it holds (node/job_held.h): 0, or -1 with why it
 * finds none in err. Without the plugin (no spank_qosdeny.so line, or its
 * file not found: the plugstack check says so) no prolog of ours runs.
 */
static int held_tool(const struct qd_site *s, const char *node,
		     const char *plugin, char *err, size_t errlen)
{
	char gres[PATH_MAX + 16], tool[PATH_MAX];

	if (!plugin[0])
		return 0;
	gres_conf(s, gres, sizeof(gres));
	if (!qd_job_held_needed(qd_site_has_shares(s), gres, node))
		return 0;
	return qd_job_held_tool(plugin, tool, sizeof(tool), err, errlen);
}

/*
 * Shares gres.conf gives the node beyond what slurmd takes (slurm.conf's
 * Gres= is the most it takes, and it drops the rest without a word):
 * true with what they are in msg.
 */
static bool shares_dropped(const struct qd_site *s, const char *node,
			   const struct slurmd_view *v, char *msg, size_t len)
{
	char gres[PATH_MAX + 16], err[512];
	unsigned long long shards, mps;

	gres_conf(s, gres, sizeof(gres));
	/* One it cannot read: slurmd -G said what it had to say. */
	if (qd_gres_conf_share_counts(gres, node, &shards, &mps, err,
				      sizeof(err)))
		return false;
	if (shards > v->shards)
		snprintf(msg, len,
			 "gres.conf gives %s %llu shards, slurmd "
			 "takes %llu",
			 node, shards, v->shards);
	else if (mps > v->mps)
		snprintf(msg, len,
			 "gres.conf gives %s %llu MPS shares, "
			 "slurmd takes %llu",
			 node, mps, v->mps);
	else
		return false;
	return true;
}

void qd_doctor_gpus(struct qd_doctor *d, const struct qd_site *s,
		    const struct qd_spank_opts *o, const char *node,
		    const char *plugin)
{
	struct qd_gpus mine = {0};
	struct slurmd_view slurm = {0};
	char err[1024], a[1024], b[1024], source[PATH_MAX + 16];
	char gres[PATH_MAX + 16];
	int rv;

	if (qd_doctor_node_gpus(s, o, node, &mine, source, err, sizeof(err))) {
		qd_doctor_line(d, QD_DOC_FAIL, "gpus", err,
			       "correct gres.conf or the gpu_devices= option");
		goto done;
	}
	list_gpus(&mine, a, sizeof(a));
	/* Where binding refuses every step with a GPU (gpu_order.h). */
	if (!strcmp(source, QD_GPU_FALLBACK) &&
	    qd_gpu_minor_order(QD_NVIDIA_GPUS_PROC, err, sizeof(err))) {
		qd_doctor_line(d, QD_DOC_FAIL, "gpus", err,
			       "list the GPUs with File= in gres.conf, in PCI "
			       "bus order, or set gpu_devices=");
		goto done;
	}
	if (missing_file(&mine, err, sizeof(err))) {
		qd_doctor_linef(d, QD_DOC_FAIL, "gpus",
				"correct gres.conf or the gpu_devices= option, "
				"or make the MIG slices it lists",
				"%s (from %s): %s", a, source, err);
		goto done;
	}
	/* Before slurmd -G, which may only count fewer shares: the cause. */
	gres_conf(s, gres, sizeof(gres));
	if (qd_gres_conf_stray_share(gres, node, err, sizeof(err)) > 0) {
		qd_doctor_linef(d, QD_DOC_FAIL, "gpus",
				"give each shard and MPS line of gres.conf a "
				"File= that the node's Name=gpu lines list, "
				"as written there, or none",
				"%s: slurmd discards those shares, reports "
				"fewer than slurm.conf's Gres= and the node is "
				"refused",
				err);
		goto done;
	}
	rv = slurmd_gres(s, node, &slurm, err, sizeof(err));
	if (rv == -2) {
		qd_doctor_linef(
		    d, QD_DOC_FAIL, "gpus",
		    "correct gres.conf (a shard or MPS Count= must "
		    "add up to the node's Gres= in slurm.conf): "
		    "slurmd refuses to start on it",
		    "slurmd -G refuses the node's configuration: %s", err);
		goto done;
	}
	if (rv) {
		qd_doctor_linef(d, QD_DOC_WARN, "gpus",
				"run doctor as root where slurmd is installed, "
				"and see what 'slurmd -G' prints",
				"%zu GPU%s from %s (%s); 'slurmd -G' %s",
				mine.n, mine.n == 1 ? "" : "s", source, a, err);
		goto done;
	}
	list(&slurm.gpus, b, sizeof(b));
	if (!same_devices(&mine.files, &slurm.gpus))
		qd_doctor_linef(d, QD_DOC_FAIL, "gpus",
				"make gpu_devices= name the files gres.conf "
				"lists for this node, in order, or drop it",
				"qosdeny binds %s (from %s), slurmd -G has %s",
				a, source, b);
	else if (shares_dropped(s, node, &slurm, b, sizeof(b)))
		qd_doctor_linef(d, QD_DOC_WARN, "gpus",
				"make gres.conf's Count= add up to the node's "
				"Gres= in slurm.conf",
				"%zu GPU%s from %s (%s), as slurmd -G; %s "
				"(slurm.conf's Gres=) and drops the rest",
				mine.n, mine.n == 1 ? "" : "s", source, a, b);
	else if (held_tool(s, node, plugin, err, sizeof(err)))
		qd_doctor_linef(
		    d, QD_DOC_WARN, "gpus",
		    "install qosdeny on this node (make install, "
		    "or the package)",
		    "%zu GPU%s from %s (%s), as slurmd -G; jobs on %s "
		    "may hold shards or MPS shares, and the job "
		    "prolog cannot learn a job's share (%s): such "
		    "jobs are charged their whole GPUs",
		    mine.n, mine.n == 1 ? "" : "s", source, a, node, err);
	else if (s->have_slurm_conf &&
		 qd_node_weights_check(s->slurm_conf, node, &mine, err,
				       sizeof(err)))
		qd_doctor_linef(d, QD_DOC_WARN, "gpus",
				"correct the partition's TRESBillingWeights, "
				"or give the GPUs their Type= in gres.conf",
				"%zu GPU%s from %s (%s), as slurmd -G; %s",
				mine.n, mine.n == 1 ? "" : "s", source, a, err);
	else
		qd_doctor_linef(d, QD_DOC_OK, "gpus", NULL,
				"%zu GPU%s from %s (%s), as slurmd -G", mine.n,
				mine.n == 1 ? "" : "s", source, a);
done:
	qd_gpus_free(&mine);
	qd_paths_free(&slurm.gpus);
}
