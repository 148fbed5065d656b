/*
 * Confining a process to some of the node's GPUs through its cgroups. No
 * SPANK types here, so the module is tested on real cgroups without
 * slurmstepd.
 *
 * It only ever narrows what the process may open, so it composes with
 * Slurm's own ConstrainDevices and anything else above it:
 *
 * - cgroup v1: a child of the process's devices cgroup (a new v1 devices
 *   cgroup starts with its parent's rules), "c MAJ:MIN rwm" written to its
 *   devices.deny for every GPU not allowed, then the process moved in.
 * - cgroup v2: a BPF_PROG_TYPE_CGROUP_DEVICE program, loaded with the raw
 *   bpf() syscall, that refuses the GPUs not allowed and otherwise allows,
 *   attached with BPF_F_ALLOW_MULTI to a child of the process's cgroup; the
 *   kernel runs it beside every inherited ALLOW_MULTI program and a device is
 *   usable only if all of them allow it. A program inherited without
 *   ALLOW_MULTI (Slurm 22.05 attaches its own with ALLOW_OVERRIDE, or with no
 *   flag at the task level) would be dropped from the child's effective set,
 *   so ours then ends in a tail call to it, and the effective set is checked
 *   after attaching.
 *
 * Device numbers come from stat() of the given files. The NVIDIA control
 * devices (nvidiactl, nvidia-uvm, nvidia-uvm-tools, nvidia-modeset) are
 * never denied, whatever list they appear in.
 */
#ifndef QD_CGROUP_H
#define QD_CGROUP_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "paths.h"

/* Every cgroup this module creates is named with this prefix. */
#define QD_CG_PREFIX "qosdeny_"

enum qd_cg_mode {
	QD_CG_AUTO, /* v1 where the process has a v1 devices cgroup, else v2 */
	QD_CG_V1,
	QD_CG_V2,
	QD_CG_OFF,
};

/* What qd_cg_confine() set up, for qd_cg_release(). */
struct qd_cg_binding {
	enum qd_cg_mode mode; /* QD_CG_V1 or QD_CG_V2 */
	pid_t pid;
	char dir[PATH_MAX]; /* the child cgroup created; "" when none */
	size_t ndenied;	    /* device numbers refused */
	/* v2 only; -1 when unused */
	int prog_fd;  /* our program */
	int map_fd;   /* prog array holding the inherited program, if chained */
	int chain_fd; /* the inherited program we tail-call, if any */
	/*
	 * v2, when the process's own cgroup held an exclusive program (no
	 * attach flag, as Slurm puts on a task cgroup): ours replaced it there,
	 * and release puts chain_fd back.
	 */
	char replaced[PATH_MAX];
	unsigned prog_id; /* v2: our program's id */
	int nomove;	  /* qd_cg_prepare(): pid stays where it is */
};

/* "auto", "v1", "v2", "off". */
const char *qd_cg_mode_name(enum qd_cg_mode mode);

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
 * in allowed (by device number) fails with EPERM. name is the child cgroup's
 * name, unique per task and starting with QD_CG_PREFIX; a stale one of that
 * name is removed first if empty. Mode OFF, or nothing to deny: 0 with *out
 * NULL. Otherwise 0 with *out set (free it with qd_cg_release()), or -1 with
 * the cause in err (missing controller, a path that is no character device,
 * the failing write) and nothing left behind.
 */
int qd_cg_confine(pid_t pid, enum qd_cg_mode mode, const char *name,
		  const struct qd_paths *gpus, const struct qd_paths *allowed,
		  struct qd_cg_binding **out, char *err, size_t errlen);

/*
 * Removes what confine created once the confined processes are gone: the
 * child cgroup (retrying briefly while the kernel drains it) and, v2, puts a
 * replaced program back. Processes still in the child are not moved out, as
 * that would widen what they may open: then -1 (EBUSY) and b stays valid for
 * a later try. On 0, b is freed. NULL: 0.
 */
int qd_cg_release(struct qd_cg_binding *b, char *err, size_t errlen);

/*
 * As qd_cg_confine(), but pid is not moved: the child cgroup is made and
 * confined beside it, for other processes to join (qd_cg_join()). pid only
 * says where (its cgroup is the parent). v2 where pid's own cgroup holds an
 * exclusive program: -1, as nothing can be attached below it.
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
 *   tracks the step's processes by (a path with a "step_" component), else
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
