/* SPDX-License-Identifier: GPL-2.0-or-later
 * slurmstepd (remote context): each task of the step is confined to the
 * step's GPUs before it runs the user's program, and its cgroup removed when
 * it ends.
 *
 * Which GPUs: slurmstepd sets SLURM_STEP_GPUS (SLURM_JOB_GPUS in the batch
 * and interactive steps) in the step's environment from the credential,
 * overwriting or unsetting whatever the user exported, to the indices of the
 * node's GPUs in gres.conf order. CUDA_VISIBLE_DEVICES is not used: Slurm
 * renumbers it from 0 under ConstrainDevices, and it is the task's own to
 * change.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adopt.h"
#include "cgroup.h"
#include "extern_process.h"
#include "gpu_devices.h"
#include "gpu_order.h"
#include "gres_plugin.h"
#include "spank_priv.h"
#include "step_cgroup.h"

/* The node's GPU files, read once per step. */
static struct qd_gpus node_gpus;
static const char *gpus_source;
static char gres_conf[PATH_MAX];
static bool gpus_loaded;

/* What each local task's confinement made, by local task id. */
static struct qd_cg_binding **bindings;
static size_t nbindings;

/* The extern step's confinement for adopted processes (adopt.h). */
static struct qd_cg_binding *extern_b;
static bool extern_rec;
static uint32_t extern_job;
static char extern_node[256];
static char extern_dir[PATH_MAX];

/* Whether slurmstepd wrote the step's GPU list: 1, 0, or -1 with err;
 * asked once per step. */
static int gres_gpu_plugin(char *err, size_t errlen)
{
	static int loaded = -1;

	err[0] = '\0';
	if (loaded < 0)
		loaded = qd_gres_gpu_loaded(err, errlen);
	return loaded;
}

static void node_name(spank_t sp, char *buf, size_t len)
{
	/* slurmstepd puts its node's name (slurmd -N) in its environment. */
	const char *env = getenv("SLURMD_NODENAME");

	if (env && *env && (size_t)snprintf(buf, len, "%s", env) < len)
		return;
	if (spank_getenv(sp, "SLURMD_NODENAME", buf, (int)len) ==
		ESPANK_SUCCESS &&
	    *buf)
		return;
	if (gethostname(buf, len))
		snprintf(buf, len, "localhost");
	buf[len - 1] = '\0';
	buf[strcspn(buf, ".")] = '\0';
}

static int load_node_gpus(spank_t sp, const struct qd_spank_opts *o, char *err,
			  size_t errlen)
{
	char node[256];

	if (gpus_loaded)
		return 0;
	node_name(sp, node, sizeof(node));
	qd_gres_conf_path(gres_conf, sizeof(gres_conf));
	if (qd_node_gpus(o->gpu_devices[0] ? o->gpu_devices : NULL, gres_conf,
			 node, &node_gpus, &gpus_source, err, errlen)) {
		qd_gpus_free(&node_gpus);
		return -1;
	}
	gpus_loaded = true;
	slurm_verbose("qosdeny: node %s has %zu GPU%s (from %s)", node,
		      node_gpus.n, node_gpus.n == 1 ? "" : "s", gpus_source);
	return 0;
}

/* A step's GPUs among the node's. Under the fallback (AutoDetect without
 * File=) indices are read in minor order, which holds only where it is
 * Slurm's bus order (gpu_order.h); a step with no GPU needs no order. */
static int select_gpus(const char *indices, struct qd_paths *allowed, char *why,
		       size_t whylen)
{
	if (indices[0] && !strcmp(gpus_source, QD_GPU_FALLBACK) &&
	    qd_gpu_minor_order(QD_NVIDIA_GPUS_PROC, why, whylen))
		return -1;
	return qd_gpu_select(&node_gpus, indices, allowed, why, whylen);
}

static void step_name(uint32_t step, char *buf, size_t len)
{
	if (step == QD_STEP_BATCH)
		snprintf(buf, len, "batch");
	else if (step == QD_STEP_INTERACTIVE)
		snprintf(buf, len, "interactive");
	else if (step == QD_STEP_EXTERN)
		snprintf(buf, len, "extern");
	else
		snprintf(buf, len, "%u", step);
}

static int keep(int task, struct qd_cg_binding *b)
{
	struct qd_cg_binding **bigger;
	size_t n;

	if ((size_t)task >= nbindings) {
		n = (size_t)task + 1;
		bigger = realloc(bindings, n * sizeof(*bindings));
		if (!bigger)
			return -1;
		memset(bigger + nbindings, 0,
		       (n - nbindings) * sizeof(*bindings));
		bindings = bigger;
		nbindings = n;
	}
	bindings[task] = b;
	return 0;
}

/*
 * Under Slurm's cgroup/v2 beside task/none, the tasks of a step share one
 * cgroup (.../step_S/user/task_special), which the first task's binding
 * confined in place for all of them (the step's GPUs are theirs all):
 * the binding that did, if pid's cgroup is one. Only asked once a task of
 * this step was bound in place: the first task, and every task on cgroup
 * v1, skip a second look at its cgroups (docs/performance.md "Launch
 * cost").
 */
static bool shares_cgroup(pid_t pid, enum qd_cg_mode mode,
			  struct qd_cg_binding **b)
{
	enum qd_cg_layout layout;
	char dir[PATH_MAX], err[512];
	bool in_place = false;

	for (size_t i = 0; i < nbindings && !in_place; i++)
		in_place = bindings[i] &&
			   bindings[i]->layout == QD_CG_LAYOUT_V2_IN_PLACE;
	if (!in_place ||
	    qd_cg_decide_layout(pid, mode, &layout, dir, sizeof(dir), err,
				sizeof(err)) ||
	    layout != QD_CG_LAYOUT_V2_IN_PLACE)
		return false;
	for (size_t i = 0; i < nbindings; i++)
		if (bindings[i] && !strcmp(bindings[i]->attached, dir)) {
			*b = bindings[i];
			return true;
		}
	return false;
}

/*
 * The task's stderr is already the user's (the job's error file, or srun's
 * stream); a line there is what they see of why their task did not start.
 */
static void tell_user(pid_t pid, const char *msg)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/fd/2", (int)pid);
	fd =
	    open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	if (dprintf(fd, "%s\n", msg) < 0)
		slurm_debug("qosdeny: %s: %s", path, strerror(errno));
	close(fd);
}

/*
 * Slurm's cgroup/v2: the extern step's directory, where pam_slurm_adopt puts
 * the sessions it adopts, from this slurmstepd's own cgroup (STEP/slurm);
 * pam_qosdeny.so admits a session only in Slurm's cgroup of that step
 * (step_cgroup.h). Left empty elsewhere, where the session's v1 cgroups
 * name the job.
 */
static void extern_step(struct qd_adopt_rec *rec)
{
	char own[PATH_MAX], why[512];

	if (qd_cg_dir(getpid(), QD_CG_V2, own, sizeof(own), why, sizeof(why)) ||
	    !qd_step_cgroup_of_stepd(own, rec->step, sizeof(rec->step)))
		rec->step[0] = '\0';
}

/*
 * PrologFlags=Contain: the extern step, which pam_slurm_adopt adopts ssh
 * sessions into, has no task and no GPU variables. Build the confinement
 * for those sessions, denying every GPU of the node but the job's (which
 * the job prolog recorded), and record it for pam_qosdeny.so: on Slurm's
 * cgroup/v2 the extern step's user cgroup, below which pam_slurm_adopt puts
 * the sessions, confined in place; elsewhere a cgroup beside the extern
 * step's process (extern_process.h). Never fails the step: from 24.11 that
 * would fail the job, while all that is at stake is the ssh sessions, which
 * pam_qosdeny refuses when the record says so, or is missing.
 */
static int extern_post_fork(spank_t sp, const struct qd_spank_opts *o)
{
	int rv = -1;
	uint32_t job = 0;
	char node[256], gpus[4096], err[2048], why[1024], name[96];
	char suffix[64], text[2 * PATH_MAX + 1024], users[PATH_MAX + 8];
	struct qd_adopt_rec rec;
	struct qd_paths allowed = {0};
	enum qd_cg_mode mode;
	pid_t step_pid; /* in the extern step's cgroups */
	size_t len, slen;

	memset(&rec, 0, sizeof(rec));
	rec.mode = QD_CG_OFF;
	node_name(sp, node, sizeof(node));
	if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS) {
		slurm_error("qosdeny: extern step: no job id; ssh sessions "
			    "into its job cannot be confined");
		return ESPANK_SUCCESS;
	}
	extern_step(&rec);
	if (o->cgroup == QD_CG_OFF) {
		rv = 0; /* binding off: nothing to confine */
		goto record;
	}
	if (qd_adopt_read(o->adopt_dir, node, job, "gpus", gpus, sizeof(gpus),
			  why, sizeof(why))) {
		snprintf(err, sizeof(err),
			 "the job's GPUs on %s are unknown: its prolog "
			 "recorded none (%s)",
			 node, why);
		goto record;
	}
	if (load_node_gpus(sp, o, err, sizeof(err)))
		goto record;
	if (select_gpus(gpus, &allowed, why, sizeof(why))) {
		snprintf(err, sizeof(err),
			 "SLURM_JOB_GPUS=%.64s: %s (GPUs from %s)", gpus, why,
			 gpus_source);
		goto record;
	}
	/*
	 * Slurm's cgroup/v2 (this slurmstepd in a step cgroup of its own):
	 * our program attached in place to the step's user cgroup, above
	 * every task cgroup Slurm adds adopted sessions to (task_special, or
	 * task_NODEID under jobacct_gather/cgroup). From 25.05 those are made
	 * only at the first adoption, the extern step having no sleep any
	 * more (docs/gpu-and-usage.md, "Cgroup layouts").
	 */
	if (rec.step[0] && o->cgroup != QD_CG_V1) {
		snprintf(users, sizeof(users), "%s/user", rec.step);
		if (qd_cg_attach_above(users, &node_gpus.files, &allowed,
				       &extern_b, err, sizeof(err)))
			goto record;
		goto confined;
	}
	step_pid = qd_extern_process();
	if (!step_pid) {
		snprintf(err, sizeof(err),
			 "the extern step's process is not "
			 "found among slurmstepd's children");
		goto record;
	}
	if (qd_cg_resolve(step_pid, o->cgroup, &mode, err, sizeof(err)))
		goto record;
	/*
	 * task/cgroup with ConstrainDevices=yes (the only case Slurm makes v1
	 * devices cgroups) put the step in .../job_ID/step_extern, confined
	 * to the job's GPUs, and puts adopted processes there too. A cgroup of
	 * ours below it would keep Slurm from removing its own at the step's
	 * end (its task plugin cleans up before our exit hook runs): adopted
	 * processes are to be in Slurm's, as they are.
	 */
	snprintf(suffix, sizeof(suffix), "/job_%u/step_extern", job);
	if (mode == QD_CG_V1 &&
	    !qd_cg_dir(step_pid, mode, rec.dir, sizeof(rec.dir), err,
		       sizeof(err)) &&
	    (len = strlen(rec.dir)) > (slen = strlen(suffix)) &&
	    !strcmp(rec.dir + len - slen, suffix)) {
		rec.mode = QD_CG_V1;
		rec.slurm = 1;
		rv = 0;
		goto record;
	}
	rec.dir[0] = '\0';
	/* slurmstepd's pid: several slurmd on one host share the tree. */
	snprintf(name, sizeof(name), QD_CG_PREFIX "%u_extern_%d", job,
		 (int)getpid());
	if (qd_cg_prepare(step_pid, mode, name, &node_gpus.files, &allowed,
			  &extern_b, err, sizeof(err)))
		goto record;
confined:
	if (extern_b) {
		rec.mode = extern_b->mode;
		rec.prog_id = extern_b->prog_id;
		snprintf(rec.dir, sizeof(rec.dir), "%s",
			 extern_b->dir[0] ? extern_b->dir : extern_b->attached);
	}
	rv = 0;
record:
	if (rv)
		snprintf(rec.refuse, sizeof(rec.refuse), "%.*s",
			 (int)sizeof(rec.refuse) - 1, err);
	if (qd_adopt_format(&rec, text, sizeof(text)) ||
	    qd_adopt_write(o->adopt_dir, node, job, "adopt", text, why,
			   sizeof(why))) {
		slurm_error(
		    "qosdeny: job %u extern step: no record for "
		    "pam_qosdeny, whose ssh sessions into the job on %s "
		    "are refused: %s",
		    job, node, why);
	} else {
		extern_rec = true;
		extern_job = job;
		snprintf(extern_node, sizeof(extern_node), "%s", node);
		snprintf(extern_dir, sizeof(extern_dir), "%s", o->adopt_dir);
	}
	/* Not confined, or confined with no record pam_qosdeny can read:
	 * either way its sessions are refused. */
	if (rv || !extern_rec)
		qd_adopt_count(o->adopt_dir, node, QD_NC_BIND_EXTERN);
	if (rv)
		slurm_error("qosdeny: job %u extern step: ssh sessions into "
			    "the job on %s cannot be confined and are refused: "
			    "%s",
			    job, node, err);
	else
		slurm_verbose("qosdeny: job %u extern step: sessions adopted "
			      "on %s go to %s (GPUs %s)",
			      job, node,
			      rec.mode == QD_CG_OFF ? "no cgroup" : rec.dir,
			      o->cgroup == QD_CG_OFF ? "all" : gpus);
	qd_paths_free(&allowed);
	return ESPANK_SUCCESS;
}

int qd_remote_task_post_fork(spank_t sp, const struct qd_spank_opts *o)
{
	int rv = ESPANK_ERROR, task = -1, gtask = -1;
	uint32_t job = 0, step = 0;
	pid_t pid = 0;
	char stepbuf[16] = "?", val[4096], name[96], err[2048], why[1024];
	char msg[2400], node[256];
	struct qd_paths allowed = {0};
	struct qd_cg_binding *b = NULL;
	const char *var;
	spank_err_t e;

	if (spank_get_item(sp, S_JOB_STEPID, &step) == ESPANK_SUCCESS &&
	    step == QD_STEP_EXTERN)
		return extern_post_fork(sp, o);
	if (o->cgroup == QD_CG_OFF)
		return ESPANK_SUCCESS;
	if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_TASK_ID, &task) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_TASK_GLOBAL_ID, &gtask) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS ||
	    task < 0 || gtask < 0 || pid <= 0) {
		snprintf(err, sizeof(err),
			 "slurmstepd did not give the task's ids");
		goto fail;
	}
	step_name(step, stepbuf, sizeof(stepbuf));
	if (load_node_gpus(sp, o, err, sizeof(err)))
		goto fail;
	var = step == QD_STEP_BATCH || step == QD_STEP_INTERACTIVE
		  ? "SLURM_JOB_GPUS"
		  : "SLURM_STEP_GPUS";
	e = spank_getenv(sp, var, val, sizeof(val));
	if (e == ESPANK_ENV_NOEXIST) {
		val[0] = '\0'; /* no GPUs allocated */
	} else if (e != ESPANK_SUCCESS) {
		snprintf(err, sizeof(err), "%s: %s", var, spank_strerror(e));
		goto fail;
	}
	if (val[0] && gres_gpu_plugin(err, sizeof(err)) <= 0) {
		if (err[0])
			goto fail;
		/* Not Slurm's word: the user's export (gres_plugin.h). */
		slurm_info("qosdeny: job %u step %s task %d: %s=%.64s is not "
			   "Slurm's (slurmstepd has no gres/gpu plugin: "
			   "GresTypes without gpu): no GPU allowed",
			   job, stepbuf, task, var, val);
		val[0] = '\0';
	}
	if (select_gpus(val, &allowed, why, sizeof(why))) {
		snprintf(err, sizeof(err), "%s=%s: %s (GPUs from %s)", var, val,
			 why, gpus_source);
		goto fail;
	}
	/* The global task id: several slurmd on one host (multiple-slurmd)
	 * share the cgroup tree, and their local task ids repeat; and
	 * slurmstepd's pid, as clusters on one host (tests) repeat job ids. */
	snprintf(name, sizeof(name), QD_CG_PREFIX "%u_%s_%d_%d", job, stepbuf,
		 gtask, (int)getpid());
	if (shares_cgroup(pid, o->cgroup, &b)) {
		/* An earlier task's program already confines this cgroup. */
		slurm_verbose("qosdeny: job %u step %s task %d (pid %d): "
			      "confined with the step's other tasks in %s",
			      job, stepbuf, task, (int)pid, b->attached);
		rv = ESPANK_SUCCESS;
		goto fail;
	}
	if (qd_cg_confine(pid, o->cgroup, name, &node_gpus.files, &allowed, &b,
			  err, sizeof(err)))
		goto fail;
	if (keep(task, b)) {
		snprintf(err, sizeof(err), "out of memory");
		if (qd_cg_release(b, why, sizeof(why)))
			qd_cg_forget(b);
		goto fail;
	}
	slurm_verbose("qosdeny: job %u step %s task %d (pid %d): %zu GPU "
		      "file%s allowed of the node's %zu GPU%s (%s=%s), %zu "
		      "denied through %s",
		      job, stepbuf, task, (int)pid, allowed.n,
		      allowed.n == 1 ? "" : "s", node_gpus.n,
		      node_gpus.n == 1 ? "" : "s", var, val, b ? b->ndenied : 0,
		      b ? (b->dir[0] ? b->dir : b->attached) : "nothing");
	rv = ESPANK_SUCCESS;
fail:
	if (rv != ESPANK_SUCCESS) {
		/* Fail closed: slurmstepd kills the tasks before they exec. */
		node_name(sp, node, sizeof(node));
		qd_adopt_count(o->adopt_dir, node, QD_NC_BIND_TASK);
		snprintf(msg, sizeof(msg),
			 "qosdeny: job %u step %s task %d: GPU binding "
			 "failed, task not started: %s",
			 job, stepbuf, task, err);
		slurm_error("%s", msg);
		if (pid > 0)
			tell_user(pid, msg);
	}
	qd_paths_free(&allowed);
	return rv;
}

int qd_remote_task_exit(spank_t sp)
{
	char err[1024];
	int task = -1;

	if (spank_get_item(sp, S_TASK_ID, &task) != ESPANK_SUCCESS ||
	    task < 0 || (size_t)task >= nbindings || !bindings[task])
		return ESPANK_SUCCESS;
	/*
	 * Before Slurm's task plugin removes the task's cgroup, which our
	 * child would keep busy. Processes the task left behind keep ours
	 * busy until slurmstepd kills them; then qd_remote_exit() retries.
	 */
	if (qd_cg_release(bindings[task], err, sizeof(err))) {
		slurm_debug("qosdeny: task %d: cleanup left to the step's end: "
			    "%s",
			    task, err);
		return ESPANK_SUCCESS;
	}
	bindings[task] = NULL;
	return ESPANK_SUCCESS;
}

void qd_remote_exit(void)
{
	char err[1024];

	for (size_t i = 0; i < nbindings; i++) {
		if (!bindings[i])
			continue;
		if (qd_cg_release(bindings[i], err, sizeof(err))) {
			/* slurmd's next start sweeps it (spank_slurmd.c). */
			slurm_error("qosdeny: task %zu: left in place: %s", i,
				    err);
			qd_cg_forget(bindings[i]);
		}
		bindings[i] = NULL;
	}
	free(bindings);
	bindings = NULL;
	nbindings = 0;
	/*
	 * The extern step: slurmstepd killed and waited for every process of
	 * the step, adopted ones included (proctrack), before this hook.
	 */
	if (extern_b) {
		if (qd_cg_release(extern_b, err, sizeof(err))) {
			slurm_error("qosdeny: job %u extern step: left in "
				    "place: %s",
				    extern_job, err);
			qd_cg_forget(extern_b);
		}
		extern_b = NULL;
	}
	if (extern_rec && qd_adopt_remove(extern_dir, extern_node, extern_job,
					  "adopt", err, sizeof(err)))
		slurm_error("qosdeny: job %u extern step: %s", extern_job, err);
	extern_rec = false;
	qd_gpus_free(&node_gpus);
	gpus_loaded = false;
}
