/* SPDX-License-Identifier: GPL-2.0-or-later
 * The site's policy: qosdeny.conf next to slurm.conf (qosdeny.conf(5)),
 * found by the site's reading of slurm.conf (site.h) and parsed by policy.h.
 */
#ifndef QD_SITE_POLICY_H
#define QD_SITE_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "site.h"

/*
 * qosdeny.conf, next to slurm.conf: *p is the parsed policy, or NULL when
 * the file does not exist (then UsageHalfLife is 7 days and there are no
 * share records). Returns 0, or -1 with err when the file is unreadable or
 * invalid: usage is never decayed with a half-life other than the site's.
 */
int qd_site_policy(const struct qd_site *s, struct qd_policy **p, char *err,
		   size_t errlen);

/* UsageHalfLife of a policy from qd_site_policy (NULL: the default). */
uint64_t qd_site_half_life(const struct qd_policy *p);

#endif
