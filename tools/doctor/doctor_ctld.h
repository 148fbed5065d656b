/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The controller checks' parts (doctor_ctld.c runs them in order). */
#ifndef QD_DOCTOR_CTLD_H
#define QD_DOCTOR_CTLD_H

#include "doctor.h"

/* qosdeny.conf valid, each QOS= record's QoS in the database, a limit
 * behind each of its flags, and its typed GPU limits counted by Slurm. */
void qd_doctor_policy(struct qd_doctor *d, const struct qd_site *s,
		      const struct qd_doctor_conf *c);

#endif
