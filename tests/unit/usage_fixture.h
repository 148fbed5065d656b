/* SPDX-License-Identifier: GPL-2.0-or-later
 * The usage record the spool, orphan and Redis tests start from: alice's
 * (account research, QoS normal, partition gpu) on node n1 of cluster qd.
 */
#ifndef QD_TEST_USAGE_FIXTURE_H
#define QD_TEST_USAGE_FIXTURE_H

#include <criterion/criterion.h>

#include "usage_record.h"

/* Job's record with gpus from start; closed at end unless end is 0. */
static inline struct qd_usage_record test_record(uint32_t job, uint32_t gpus,
						 int64_t start, int64_t end)
{
	struct qd_usage_record r = {
	    .cluster = "qd",
	    .job_id = job,
	    .node = "n1",
	    .user = "alice",
	    .account = "research",
	    .qos = "normal",
	    .partition = "gpu",
	    .start = start,
	    .mgpus = gpus * 1000,
	};

	if (end)
		cr_assert_eq(qd_usage_record_close(&r, end), 0);
	return r;
}

#endif
