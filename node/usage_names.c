/* SPDX-License-Identifier: GPL-2.0-or-later
 * A job's user and account whose stored form is hashed (names.h: escaped,
 * they would be over 63 characters), kept in Redis with the names they
 * stand for (redis_names.h), so that `qosdeny share` prints them whole
 * where no association of Slurm's names them. At the job's prolog and at
 * its epilog: a Redis down at one may be up at the other. Usage is never
 * held back by it: the record carries the hashed form either way.
 */
#include <inttypes.h>
#include <stdio.h>

#include "names.h"
#include "redis_names.h"
#include "usage_report.h"

void qd_report_names(const struct qd_reporter *rp, const char *cluster,
		     uint32_t job, const char *const *names, size_t n)
{
	char stored[QD_NAME_MAX], err[QD_REPORT_ERR_MAX],
	    msg[2 * QD_REPORT_ERR_MAX];
	struct qd_redis_config cfg = {0};
	struct qd_redis *r = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!names[i] || qd_name_store(names[i], stored) ||
		    stored[0] != '~')
			continue;
		if (!r) {
			qd_spank_opts_redis_config(&rp->opts, &cfg);
			r = qd_redis_new(&cfg, err, sizeof(err));
			if (!r)
				goto fail;
			qd_redis_budget(r);
		}
		if (qd_redis_keep_name(r, cluster, names[i], err, sizeof(err)))
			goto fail;
	}
	qd_redis_free(r);
	return;
fail:
	snprintf(msg, sizeof(msg),
		 "qosdeny: job %" PRIu32 ": the name that %s stands for is not "
		 "kept in Redis (`qosdeny share` shows %s until a job keeps "
		 "it): %s",
		 job, stored, stored, err);
	rp->log(QD_LOG_ERROR, msg, rp->log_arg);
	qd_redis_free(r);
}
