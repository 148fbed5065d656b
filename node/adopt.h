/* SPDX-License-Identifier: GPL-2.0-or-later
 * What the node records so that processes pam_slurm_adopt adopts into a job
 * (ssh to a node of the job) can be confined to the job's GPUs there by
 * pam_qosdeny.so. slurmstepd runs no SPANK hook for an adopted process, so
 * the work is split:
 *
 * - the job prolog (root, before slurmd starts the extern step) writes the
 *   job's GPUs on this node, SLURM_JOB_GPUS, which the extern step's
 *   environment lacks: DIR/NODE/job_ID.gpus;
 * - the extern step (PrologFlags=Contain) builds the confinement, a cgroup
 *   that denies every other GPU of the node, and writes where it is:
 *   DIR/NODE/job_ID.adopt;
 * - pam_qosdeny.so, stacked after pam_slurm_adopt, moves the adopted
 *   process into that cgroup, or refuses the session.
 *
 * DIR is root's alone (0700); files are written whole (temporary file and
 * rename) and read only when owned by root and writable by no one else.
 * No SPANK or PAM types here: the plugin, the PAM module and the unit tests
 * share it.
 */
#ifndef QD_ADOPT_H
#define QD_ADOPT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup.h"
#include "node_counts.h"

struct qd_adopt_rec {
	/*
	 * OFF: nothing to deny (no GPU on the node, or the job holds them
	 * all). V1 or V2: adopted processes must be in dir (v1 devices
	 * cgroup), or have prog_id among their effective device programs (v2).
	 */
	enum qd_cg_mode mode;
	char dir[PATH_MAX];
	unsigned prog_id; /* V2 */
	/* 1: dir is Slurm's own extern step cgroup (ConstrainDevices), which
	 * pam_slurm_adopt's adoption already put the process in. */
	int slurm;
	/* Non-empty: the step could not confine; sessions are refused. */
	char refuse[512];
	/*
	 * Cgroup v2 under Slurm's cgroup/v2: the extern step's directory,
	 * from its slurmstepd's own cgroup (step_cgroup.h), which an adopted
	 * process's cgroup must be Slurm's tracking cgroup of. Empty
	 * elsewhere, and in records written before it was added.
	 */
	char step[PATH_MAX];
};

/* DIR/NODE/job_JOB.EXT; -1 with err set when it does not fit or node is no
 * plain file name. */
int qd_adopt_path(char *buf, size_t len, const char *dir, const char *node,
		  uint32_t job, const char *ext, char *err, size_t errlen);

/* Writes text as DIR/NODE/job_JOB.EXT, creating DIR and DIR/NODE (0700). */
int qd_adopt_write(const char *dir, const char *node, uint32_t job,
		   const char *ext, const char *text, char *err, size_t errlen);

/*
 * Reads DIR/NODE/job_JOB.EXT into buf (up to len - 1 bytes, one trailing
 * newline dropped). -1 with err set, errno ENOENT when it does not exist,
 * EPERM when it is not root's or others may write it.
 */
int qd_adopt_read(const char *dir, const char *node, uint32_t job,
		  const char *ext, char *buf, size_t len, char *err,
		  size_t errlen);

/* Removes DIR/NODE/job_JOB.EXT; one already gone is fine. */
int qd_adopt_remove(const char *dir, const char *node, uint32_t job,
		    const char *ext, char *err, size_t errlen);

/* The record as text ("mode=v1\ndir=...\n"), and back. */
int qd_adopt_format(const struct qd_adopt_rec *r, char *buf, size_t len);
int qd_adopt_parse(const char *text, struct qd_adopt_rec *r, char *err,
		   size_t errlen);

/*
 * The node under DIR holding a record (.adopt) for job, when exactly one
 * does; -1 with err saying none or several (then the PAM module needs its
 * nodename= option).
 */
int qd_adopt_find_node(const char *dir, uint32_t job, char *node, size_t len,
		       char *err, size_t errlen);

/*
 * The confinement's counts for the node's metrics (node_counts.h), in
 * DIR/NODE/metrics.counts: qd_adopt_counts_dir() makes DIR and DIR/NODE
 * as qd_adopt_write() does and names the directory (slurmd's metrics
 * thread creates the file there); qd_adopt_count() adds one to counter c
 * where the file exists, and is silent otherwise.
 */
int qd_adopt_counts_dir(const char *dir, const char *node, char *buf,
			size_t len, char *err, size_t errlen);
void qd_adopt_count(const char *dir, const char *node, enum qd_node_count c);

/* The node under DIR when it holds exactly one node's directory (one slurmd
 * on this host); -1 otherwise. */
int qd_adopt_sole_node(const char *dir, char *node, size_t len);

#endif
