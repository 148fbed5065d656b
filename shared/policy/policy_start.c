/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>

#include "policy_keep.h"

enum qd_start qd_policy_file_start(struct qd_policy_file *f, const char *dir,
				   struct qd_kept *kept, char *err,
				   size_t errlen, char *kept_err,
				   size_t kept_errlen)
{
	struct qd_policy *p;

	if (qd_policy_file_refresh(f, err, errlen) == QD_REFRESH_RELOADED)
		return QD_START_FILE;
	p = qd_policy_kept(dir, kept, kept_err, kept_errlen);
	if (!p)
		return QD_START_NONE;
	qd_policy_file_set(f, p, NULL);
	return QD_START_KEPT;
}

void qd_policy_start_explain(enum qd_start how, const struct qd_policy_file *f,
			     const struct qd_kept *kept, const char *kept_err,
			     char *buf, size_t len)
{
	if (how == QD_START_KEPT)
		snprintf(buf, len,
			 "running on the policy slurmctld accepted at %s from "
			 "%s, kept in %s (%zu QOS records, Enforce=%s)",
			 kept->when, kept->source, kept->path,
			 f->current->n_rules,
			 f->current->enforce ? "yes" : "no");
	else if (kept->exists)
		snprintf(buf, len,
			 "the policy kept in %s cannot be used either (%s): "
			 "fix the file (qosdeny check %s) and start slurmctld "
			 "again",
			 kept->path, kept_err, f->path);
	else
		snprintf(buf, len,
			 "slurmctld never accepted a policy before (none kept "
			 "in %s): fix the file (qosdeny check %s) and start "
			 "slurmctld again",
			 kept->path, f->path);
}
