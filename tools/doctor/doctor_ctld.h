/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The controller checks' parts (doctor_ctld.c runs them in order). */
#ifndef QD_DOCTOR_CTLD_H
#define QD_DOCTOR_CTLD_H

#include "doctor.h"

/*
 * The GPU shares (gres/shard, gres/mps) in GresTypes that a flag of a QOS=
 * record caps, on its line or in the database, and that
 * AccountingStorageTRES does not count: "gres/shard (QOS shared)", into out;
 * "" when none, or when qosdeny.conf or slurmctld cannot be read (the
 * policy checks say so).
 */
void qd_doctor_uncounted_shares(const struct qd_site *s,
				const struct qd_doctor_conf *c, char *out,
				size_t len);

/* qosdeny.conf valid, each QOS= record's QoS in the database, a limit
 * behind each of its flags, and its typed GPU limits counted by Slurm. */
void qd_doctor_policy(struct qd_doctor *d, const struct qd_site *s,
		      const struct qd_doctor_conf *c);

#endif
