/* SPDX-License-Identifier: GPL-2.0-or-later
 * Jobs with GPUs whose usage record could not be made (a name too long for
 * the store, a malformed variable from slurmd): each is an error in
 * slurmd's log, and a line in the spool's QD_UNRECORDED_FILE, which
 * `qosdeny doctor --node` counts, so that no job runs uncharged unseen
 * (docs/gpu-and-usage.md, "What a user can and cannot do to the usage
 * store"). The administrator deletes the file once the jobs are dealt with.
 */
#ifndef QD_SPOOL_UNRECORDED_H
#define QD_SPOOL_UNRECORDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QD_UNRECORDED_FILE ".unrecorded"
/* Lines beyond this size are not added: the count then says "at least". */
#define QD_UNRECORDED_MAX_BYTES 65536

/*
 * Appends "JOB TIME WHY" (why cut to printable ASCII on one line) to the
 * spool's file, creating the spool directory (mode 0700) and the file
 * (0600) when missing. Returns 0, or -1 with err.
 */
int qd_spool_note_unrecorded(const char *dir, uint32_t job, int64_t now,
			     const char *why, char *err, size_t errlen);

struct qd_unrecorded {
	size_t n;	/* lines */
	bool full;	/* the file reached QD_UNRECORDED_MAX_BYTES */
	char last[256]; /* the last line, without its newline */
};

/* Reads the spool's file into u (n = 0 when there is none). Returns 0, or
 * -1 with err when it exists but cannot be read. */
int qd_spool_unrecorded(const char *dir, struct qd_unrecorded *u, char *err,
			size_t errlen);

#endif
