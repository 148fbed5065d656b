/* SPDX-License-Identifier: GPL-2.0-or-later
 * The last policy slurmctld accepted, kept in a directory of slurmctld's own
 * (StateSaveLocation), so that a start which finds qosdeny.conf broken or
 * unreadable runs on it instead of stopping (docs/how-it-decides.md,
 * "Reload"). The copy is itself a qosdeny.conf: a comment header saying
 * where and when it was accepted, then the file's text unchanged.
 */
#ifndef QD_POLICY_KEEP_H
#define QD_POLICY_KEEP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "policy.h"

#define QD_KEPT_NAME "qosdeny.conf.last-good"

struct qd_kept {
	char path[PATH_MAX];   /* <dir>/qosdeny.conf.last-good */
	char source[PATH_MAX]; /* the file it was read from */
	time_t accepted;
	char when[32]; /* accepted, as Slurm's logs write times */
	bool exists;   /* false: nothing was ever kept in dir */
};

/* Writes text, read from source and accepted at that time, as the copy in
 * dir, whole: a temporary file, fsync, rename, fsync of dir. Then removes
 * the temporary files (QD_KEPT_NAME.XXXXXX) over ten minutes old that a
 * slurmctld killed while writing left behind. Returns 0, or -1 with err. */
int qd_policy_keep(const char *dir, const char *source, const char *text,
		   time_t accepted, char *err, size_t errlen);

/* The kept policy with kept filled, or NULL with err: none kept (kept->exists
 * false), or a copy that cannot be read or parsed. */
struct qd_policy *qd_policy_kept(const char *dir, struct qd_kept *kept,
				 char *err, size_t errlen);

enum qd_start {
	QD_START_FILE, /* the file parsed: its policy and text are in f */
	QD_START_KEPT, /* the file failed (err); the kept policy is in f */
	QD_START_NONE, /* the file failed (err) and nothing kept is usable:
			  kept->exists false, or kept_err says why */
};

/*
 * The first refresh of f at slurmctld's start (or a 23.11+ reconfigure,
 * which starts a new slurmctld), falling back to the policy kept in dir when
 * the file cannot be read or parsed. The file's signature is recorded either
 * way, so its error is reported once, until it changes.
 */
enum qd_start qd_policy_file_start(struct qd_policy_file *f, const char *dir,
				   struct qd_kept *kept, char *err,
				   size_t errlen, char *kept_err,
				   size_t kept_errlen);

/*
 * What a start that could not use the file logs after the file's error:
 * "running on the policy slurmctld accepted at <when> from <source>, kept in
 * <copy>", or, with nothing usable kept, why and what to do (`qosdeny
 * check`).
 */
void qd_policy_start_explain(enum qd_start how, const struct qd_policy_file *f,
			     const struct qd_kept *kept, const char *kept_err,
			     char *buf, size_t len);

#endif
