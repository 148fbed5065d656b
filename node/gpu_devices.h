/* SPDX-License-Identifier: GPL-2.0-or-later
 * This node's GPU device files, in Slurm's index order, and the ones a step
 * owns. Slurm numbers a node's GPUs 0, 1, ... in the order of the files its
 * gres.conf lists for that node (Name=gpu), a MultipleFiles= record (a MIG
 * slice) taking one number for all its files, and exports a step's as
 * SLURM_STEP_GPUS (SLURM_JOB_GPUS in the batch step) in those numbers.
 */
#ifndef QD_GPU_DEVICES_H
#define QD_GPU_DEVICES_H

#include <stdbool.h>
#include <stddef.h>

#include "paths.h"

/* Where GPUs are looked for when neither gpu_devices= nor gres.conf says. */
#define QD_GPU_FALLBACK "/dev/nvidia[0-9]*"

/*
 * The node's GPUs in Slurm's index order: GPU i's files are files.v[j] for
 * first[i] <= j < first[i + 1]. One device file for a whole GPU; for a MIG
 * slice (gres.conf MultipleFiles=) its parent GPU's device file and the
 * slice's nvidia-caps files, so the slices of one GPU share its device
 * file. Slurm gives every file of a MultipleFiles= record the record's
 * index, and lets a step open a file that any of its GPUs has
 * (src/interfaces/gres.c, _foreach_alloc_gres_device): so does
 * qd_gpu_select.
 */
struct qd_gpus {
	struct qd_paths files; /* each GPU's files in turn */
	struct qd_paths types; /* each GPU's gres.conf Type=, "" if none */
	size_t *first;	       /* n + 1 offsets into files, NULL when n is 0 */
	size_t n;
	size_t cap; /* first's room */
};

/* Appends one GPU with the n files. Returns 0, or -1 with err. */
int qd_gpus_add(struct qd_gpus *g, char *const *files, size_t n, char *err,
		size_t errlen);

void qd_gpus_free(struct qd_gpus *g);

/*
 * Appends the names a Slurm host/file list stands for: comma-separated
 * entries, each with any number of [a-b,c] numeric ranges ("nvidia[0-3]",
 * "n[01-04]" keeps the zero padding). -1 with err on a malformed list.
 */
int qd_expand_list(const char *spec, struct qd_paths *out, char *err,
		   size_t errlen);

/* Whether node is in a NodeName= list: 1, 0, or -1 (malformed, err set). */
int qd_nodelist_has(const char *spec, const char *node, char *err,
		    size_t errlen);

/*
 * This node's GPUs from gres.conf text (path only for messages): the
 * File=/Files= of every Name=gpu record without NodeName= or whose NodeName=
 * lists node, one GPU a file, and each MultipleFiles= record as one GPU of
 * all its files; records starting with Name= first and then those starting
 * with NodeName=, each in file order, as Slurm 22.05 reads them with
 * AutoDetect off. What slurmd refuses to start with (File= beside
 * MultipleFiles=, a MultipleFiles= of one file) is refused too. Errors
 * name path and line.
 */
int qd_gres_conf_parse(const char *path, const char *text, const char *node,
		       struct qd_gpus *out, char *err, size_t errlen);

/* The same from a file; a missing file gives no GPUs, as in Slurm. */
int qd_gres_conf_load(const char *path, const char *node, struct qd_gpus *out,
		      char *err, size_t errlen);

/* gres.conf beside slurm.conf: the one SLURM_CONF names (slurmd exports
 * the one it read), else the default. */
void qd_gres_conf_path(char *buf, size_t len);

/* What gres.conf says of shards and MPS shares for a node. */
enum qd_gres_shares {
	QD_SHARES_NONE,	     /* no Name=shard or Name=mps record at all */
	QD_SHARES_ELSEWHERE, /* records, none for this node */
	QD_SHARES_HERE,	     /* one without NodeName= or whose NodeName=
				lists the node; or the file unreadable */
};

/* From gres.conf at path; a missing file is QD_SHARES_NONE. */
enum qd_gres_shares qd_gres_conf_shares(const char *path, const char *node);

/*
 * The node's shards and MPS shares as gres.conf at path writes them: the
 * sum of the Count= of each Name=shard (Name=mps) record for the node
 * (Slurm may take fewer: slurm.conf's Gres= is the most it takes). A
 * missing file gives 0. Returns 0, or -1 with err naming the line.
 */
int qd_gres_conf_share_counts(const char *path, const char *node,
			      unsigned long long *shards,
			      unsigned long long *mps, char *err,
			      size_t errlen);

/*
 * A shard or MPS share gres.conf at path gives the node on a file that is
 * none of the node's GPU files (Name=gpu File=, expanded): Slurm matches a
 * share's File= to its GPU's by name and discards one without a match
 * (gres_c_s.c), so that slurmd reports fewer shares than slurm.conf's
 * Gres= and the node is refused. Returns 1 with the record's line, the
 * file and the node in msg; 0 where there is none (a missing file, no
 * share with File=, or a GPU of several files, which Slurm matches
 * whole); -1 with err in msg where gres.conf does not parse.
 */
int qd_gres_conf_stray_share(const char *path, const char *node, char *msg,
			     size_t len);

/*
 * The files a gpu_devices= pattern names: %n is the node name, entries are
 * comma-separated; an entry with '*' or '?' is a shell glob whose matching
 * character devices are taken in order of device number, any other entry a
 * Slurm list as in gres.conf, taken in its order.
 */
int qd_gpu_pattern(const char *pattern, const char *node, struct qd_paths *out,
		   char *err, size_t errlen);

/*
 * The node's GPUs: the gpu_devices option if given (not NULL; one GPU a
 * file), else gres.conf's for node, else QD_GPU_FALLBACK. *source says
 * which, for messages.
 */
int qd_node_gpus(const char *option, const char *gres_conf, const char *node,
		 struct qd_gpus *out, const char **source, char *err,
		 size_t errlen);

/*
 * The files of the GPUs a comma-separated index list ("0,2", as in
 * SLURM_STEP_GPUS) names among the node's, each once. An empty list names
 * none.
 */
int qd_gpu_select(const struct qd_gpus *node_gpus, const char *indices,
		  struct qd_paths *out, char *err, size_t errlen);

#endif
