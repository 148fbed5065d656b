/* SPDX-License-Identifier: GPL-2.0-or-later
 * A heterogeneous job's components are validated one after the other in the
 * same RPC, each as its own job description. The per-user and group checks
 * must count the components already accepted, so their requests are summed
 * here per QoS until the next job starts a new sum.
 */
#ifndef QD_HET_SUM_H
#define QD_HET_SUM_H

#include "check.h"

#define QD_HET_QOS_MAX 8 /* distinct QoS among one het job's components */

struct qd_het_sum {
	size_t n;
	struct {
		char qos[QD_NAME_MAX];
		struct qd_tres sum;
	} e[QD_HET_QOS_MAX];
};

void qd_het_sum_reset(struct qd_het_sum *h);

/* Counts an accepted component's request under its QoS. Returns -1 when the
 * job spans more QoS than are tracked (its later components are then checked
 * without the earlier ones, as Slurm itself would at scheduling). */
int qd_het_sum_add(struct qd_het_sum *h, const char *qos,
		   const struct qd_tres *req);

/* Adds the earlier components in this QoS to what is in use. */
void qd_het_sum_apply(const struct qd_het_sum *h, const char *qos,
		      struct qd_usage *u);

#endif
