/* SPDX-License-Identifier: GPL-2.0-or-later
 * The node checks' parts (doctor_node.c runs them in order), with the
 * plugstack line's options as the plugin parses them.
 */
#ifndef QD_DOCTOR_NODE_H
#define QD_DOCTOR_NODE_H

#include "doctor.h"
#include "gpu_devices.h"
#include "spank_opts.h"

/* The spank_qosdeny.so line: its plugin file found as slurmd finds it
 * (into plugin, len bytes; "" where not found), the line required, its
 * options parsed into *o (the defaults where it is missing; where it is
 * wrong, or site_err, qd_site_load()'s refusal of plugstack.conf, is
 * given, the options that parse one by one). */
void qd_doctor_plugstack(struct qd_doctor *d, const struct qd_site *s,
			 const struct qd_doctor_conf *c, const char *site_err,
			 struct qd_spank_opts *o, char *plugin, size_t len);

/* gres.conf's (or gpu_devices='s) GPUs against `slurmd -G`'s; where
 * gres.conf gives the node shards or MPS shares, the tool the job prolog
 * runs to learn a job's share (node/job_held.h), beside plugin (the
 * plugin's file, or ""). */
void qd_doctor_gpus(struct qd_doctor *d, const struct qd_site *s,
		    const struct qd_spank_opts *o, const char *node,
		    const char *plugin);

/* The node's cgroups, Slurm's cgroup settings, the binding layout a task
 * gets, and that layout's confinement made and removed (node/cgroup.h). */
void qd_doctor_cgroup(struct qd_doctor *d, const struct qd_site *s,
		      const struct qd_doctor_conf *c,
		      const struct qd_spank_opts *o, const char *node);

/* The node's GPUs as the plugin finds them, and where from (source: at
 * least PATH_MAX + 16 bytes); 0, or -1 with err. */
int qd_doctor_node_gpus(const struct qd_site *s, const struct qd_spank_opts *o,
			const char *node, struct qd_gpus *out, char *source,
			char *err, size_t errlen);

#endif
