/* SPDX-License-Identifier: GPL-2.0-or-later
 * Confining a process to some of the node's GPUs through its cgroups. No
 * SPANK types here, so the module is tested on real cgroups without
 * slurmstepd.
 *
 * It only ever narrows what the process may open, so it composes with
 * Slurm's own ConstrainDevices and anything else above it. One of three
 * ways, by the node's cgroup layout (qd_cg_decide_layout(); the "GPU
 * binding" part of docs/gpu-and-usage.md says why):
 *
 * - cgroup v1 (or hybrid): a child of the process's devices cgroup (a new v1
 *   devices cgroup starts with its parent's rules), "c MAJ:MIN rwm" written
 *   to its devices.deny for every GPU not allowed, then the process moved in.
 * - cgroup v2 where qosdeny owns the cgroup (Slurm does not track the
 *   process by a cgroup2 cgroup): a child cgroup with our device program,
 *   attached with BPF_F_ALLOW_MULTI, and the process moved in.
 * - cgroup v2 in a cgroup Slurm's cgroup/v2 plugin made for a step
 *   (STEP/user/task_T, known by the slurmstepd in STEP/slurm: step_cgroup.h):
 *   our program attached to that cgroup itself; nothing moves
 *   and nothing is created, as Slurm finds a step's processes by reading
 *   each task cgroup's cgroup.procs, and removes the cgroups (our program
 *   with them) at the step's end.
 *
 * On v2 the program (BPF_PROG_TYPE_CGROUP_DEVICE, raw bpf(), one builder for
 * both ways) refuses the GPUs not allowed and otherwise allows, or ends in a
 * tail call to the program whose place it takes in the effective set (one
 * attached with ALLOW_OVERRIDE or no flag, as Slurm's are), so it is never
 * looser than that one. The effective set is checked after attaching.
 *
 * Device numbers come from stat() of the given files. The NVIDIA control
 * devices (nvidiactl, nvidia-uvm, nvidia-uvm-tools, nvidia-modeset) are
 * never denied, whatever list they appear in.
 */
#ifndef QD_CGROUP_H
#define QD_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cgroup_mode.h"
#include "paths.h"

/* Every cgroup this module creates is named with this prefix. */
#define QD_CG_PREFIX "qosdeny_"

/* The three ways of binding (see above); OFF: none (cgroup=off). */
enum qd_cg_layout {
	QD_CG_LAYOUT_OFF,
	QD_CG_LAYOUT_V1_CHILD,
	QD_CG_LAYOUT_V2_CHILD,
	QD_CG_LAYOUT_V2_IN_PLACE,
};

/* What qd_cg_confine() set up, for qd_cg_release(). */
struct qd_cg_binding {
	enum qd_cg_mode mode; /* QD_CG_V1 or QD_CG_V2 */
	enum qd_cg_layout layout;
	pid_t pid;
	char dir[PATH_MAX]; /* the child cgroup created; "" when none */
	size_t ndenied;	    /* device numbers refused */
	/* v2 only; -1 when unused */
	int prog_fd;  /* our program */
	int map_fd;   /* prog array holding the inherited program, if chained */
	int chain_fd; /* the inherited program we tail-call, if any */
	/*
	 * v2, our program attached to the process's own cgroup (in place, or
	 * where that cgroup held an exclusive program): which cgroup, with
	 * which flags; replaced is set when ours took the place of chain_fd's
	 * program there, which release puts back.
	 */
	char attached[PATH_MAX];
	unsigned attach_flags;
	int replaced;
	unsigned prog_id; /* v2: our program's id */
	int nomove;	  /* qd_cg_prepare(): pid stays where it is */
	int above;	  /* qd_cg_attach_above(): in place, ALLOW_MULTI */
};

/* "off", "v1 child cgroup", "v2 child cgroup", "v2 in place". */
const char *qd_cg_layout_name(enum qd_cg_layout layout);

/*
 * The layout from what decides it, pure: the mode resolved (V1, V2; OFF or
 * AUTO give OFF) and, on v2, whether the task's cgroup2 cgroup is one Slurm's
 * cgroup/v2 made for its step. qd_cg_decide_layout() gives it a task's real
 * cgroup; `qosdeny doctor` what the node's Slurm settings say Slurm makes.
 */
enum qd_cg_layout qd_cg_layout_of(enum qd_cg_mode resolved, bool slurm_step);

/*
 * THE place that decides how pid is bound on this node (cgroup= option in
 * mode): v1 where the mode resolves to v1 (qd_cg_resolve()); on v2, in place
 * where pid's cgroup2 cgroup is one Slurm's cgroup/v2 plugin tracks a step's
 * processes by (qd_step_cgroup()), else a child cgroup; OFF for
 * mode OFF. dir gets pid's cgroup in that hierarchy (empty for OFF). -1 with
 * err set when pid has no usable cgroup. Also called by `qosdeny doctor`.
 */
int qd_cg_decide_layout(pid_t pid, enum qd_cg_mode mode,
			enum qd_cg_layout *layout, char *dir, size_t dirlen,
			char *err, size_t errlen);

/*
 * Confines every process of the cgroup2 cgroup at dir, in place: our device
 * program attached to dir itself (the in-place way above), refusing the GPUs
 * of gpus not in allowed. Nothing to deny: 0 with *out NULL. Release with
 * qd_cg_release(). What the in-place layout does for a task; `qosdeny
 * doctor` uses it on a scratch cgroup.
 */
int qd_cg_attach_dir(const char *dir, const struct qd_paths *gpus,
		     const struct qd_paths *allowed, struct qd_cg_binding **out,
		     char *err, size_t errlen);

/*
 * As qd_cg_attach_dir(), for a cgroup below which others make cgroups and
 * attach programs of their own (Slurm's extern step's user cgroup, where
 * pam_slurm_adopt's sessions get task cgroups): ours attached with
 * BPF_F_ALLOW_MULTI, so that theirs below still attach and ours stays
 * effective beside them.
 */
int qd_cg_attach_above(const char *dir, const struct qd_paths *gpus,
		       const struct qd_paths *allowed,
		       struct qd_cg_binding **out, char *err, size_t errlen);

/*
 * The mode AUTO stands for with pid's cgroups on this machine: V1 where pid
 * has a v1 devices cgroup that is mounted, else V2 where it has a cgroup2 one
 * that is mounted; other modes are returned as given. -1 with the cause in
 * err when neither is there.
 */
int qd_cg_resolve(pid_t pid, enum qd_cg_mode mode, enum qd_cg_mode *out,
		  char *err, size_t errlen);

/*
 * Confines pid so that opening any of gpus (the node's GPU device files) not
 * in allowed (by device number) fails with EPERM, the way
 * qd_cg_decide_layout() says. name is the child cgroup's name (child
 * layouts), unique per task and starting with QD_CG_PREFIX; a stale one of
 * that name is removed first if empty. Mode OFF, or nothing to deny: 0 with
 * *out NULL. Otherwise 0 with *out set (free it with qd_cg_release()), or -1
 * with the cause in err (missing controller, a path that is no character
 * device, the failing write) and nothing left behind.
 */
int qd_cg_confine(pid_t pid, enum qd_cg_mode mode, const char *name,
		  const struct qd_paths *gpus, const struct qd_paths *allowed,
		  struct qd_cg_binding **out, char *err, size_t errlen);

/*
 * Removes what confine created once the confined processes are gone: the
 * child cgroup (retrying briefly while the kernel drains it) or, attached in
 * place, our program (a replaced one put back). Processes still in the
 * cgroup are not moved out nor unconfined, as that would widen what they may
 * open: then -1 (EBUSY) and b stays valid for a later try. A cgroup already
 * removed (Slurm's clean-up, which takes our program with it) is done. On 0,
 * b is freed. NULL: 0.
 */
int qd_cg_release(struct qd_cg_binding *b, char *err, size_t errlen);

/*
 * As qd_cg_confine(), but pid is not moved: the child cgroup is made and
 * confined beside it, for other processes to join (qd_cg_join()), or, in
 * place, pid's own cgroup is confined (where pam_slurm_adopt puts adopted
 * processes). pid only says where. Child layout where pid's own cgroup holds
 * an exclusive program: -1, as nothing can be attached below it.
 */
int qd_cg_prepare(pid_t pid, enum qd_cg_mode mode, const char *name,
		  const struct qd_paths *gpus, const struct qd_paths *allowed,
		  struct qd_cg_binding **out, char *err, size_t errlen);

/* pid's cgroup directory: its v1 devices cgroup (V1) or cgroup2 one (V2). */
int qd_cg_dir(pid_t pid, enum qd_cg_mode mode, char *dir, size_t len, char *err,
	      size_t errlen);

/*
 * Puts pid under a confinement qd_cg_prepare() made (dir; v2 also the
 * program's id), never widening what pid may open:
 *
 * - v1: done if pid's devices cgroup is dir or below it; else pid is moved
 *   into dir only when its devices cgroup is an ancestor of dir (dir
 *   inherits every rule of its ancestors), else -1.
 * - v2: done if prog_id is among pid's effective device programs; else pid
 *   is moved into dir only when every program effective for it now is
 *   effective in dir too, and not out of a cgroup Slurm's cgroup/v2 plugin
 *   tracks the step's processes by (qd_step_cgroup()), else
 *   -1. Checked again after the move.
 *
 * *moved says whether pid was moved. -1 with err saying why.
 */
int qd_cg_join(pid_t pid, enum qd_cg_mode mode, const char *dir,
	       unsigned prog_id, int *moved, char *err, size_t errlen);

/* Frees b without removing anything (the cgroup outlives us). */
void qd_cg_forget(struct qd_cg_binding *b);

/*
 * Removes the empty cgroups named QD_CG_PREFIX* directly under pid's v1
 * devices and v2 cgroups (whichever exist), as a crashed slurmstepd leaves
 * them; run from slurmd, whose cgroup the steps start in. One still holding
 * processes is left alone. Returns how many were removed, or -1 with err set
 * when pid has neither kind of cgroup.
 */
int qd_cg_sweep(pid_t pid, char *err, size_t errlen);

#endif
