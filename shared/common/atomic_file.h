/* SPDX-License-Identifier: GPL-2.0-or-later
 * A file replaced whole or not at all: the new text goes into a temporary
 * file in the same directory, which is then renamed over the file, so that
 * a reader finds the old text or the new, never part of either. This is how
 * the node's usage spool, the records behind pam_qosdeny.so and the policy
 * slurmctld keeps are written.
 *
 * What survives a crash is each caller's choice, and costs fsyncs: the
 * temporary file's data fsync'd before the rename, or a crash can leave the
 * name pointing at an empty file; the directory fsync'd after it, or a
 * crash can bring the old text back. The usage spool's choices and why are
 * in docs/gpu-and-usage.md "Usage reporting", what they cost a job in
 * docs/performance.md "Launch cost".
 */
#ifndef QD_ATOMIC_FILE_H
#define QD_ATOMIC_FILE_H

#include <stddef.h>

/* fsync the temporary file before the rename. */
#define QD_ATOMIC_FSYNC_FILE 0x1
/* fsync the directory after the rename, which makes the rename durable. */
#define QD_ATOMIC_FSYNC_DIR 0x2
/* A temporary file of that name already there (a writer killed before its
 * rename) is written over; without this flag it is an error. */
#define QD_ATOMIC_REUSE_TMP 0x4
/* Mode 0644, whatever the umask: a file other users' programs read (the
 * metrics files, which node_exporter reads as its own user). */
#define QD_ATOMIC_WORLD_READABLE 0x8

/* The step that failed, for callers that word their messages themselves. */
enum qd_atomic_step {
	QD_ATOMIC_DONE,
	QD_ATOMIC_CREATE, /* the temporary file */
	QD_ATOMIC_WRITE,
	QD_ATOMIC_SYNC, /* fsync of the temporary file */
	QD_ATOMIC_CLOSE,
	QD_ATOMIC_RENAME,
	QD_ATOMIC_SYNC_DIR,
};

struct qd_atomic_file {
	/* The directory of both names, open (O_DIRECTORY): a directory
	 * renamed or replaced meanwhile cannot redirect the write. AT_FDCWD
	 * with paths instead of names, as long as QD_ATOMIC_FSYNC_DIR is
	 * not asked for. */
	int dfd;
	const char *name; /* the file replaced */
	/* The temporary file's name, which must differ from every other
	 * writer's unless QD_ATOMIC_REUSE_TMP. One ending in "XXXXXX" has
	 * those six made unique, as mkostemp(3) does, here. */
	char *tmp;
	unsigned flags; /* QD_ATOMIC_* above */
	/* Set by qd_atomic_write: QD_ATOMIC_DONE, or the step that failed. */
	enum qd_atomic_step failed;
};

/*
 * Replaces f->name with the len bytes of text, its mode 0600 (less the
 * umask), as a file only its writer reads, unless QD_ATOMIC_WORLD_READABLE.
 * Returns 0, or -1 with errno, f->failed and err saying which step failed on
 * what, e.g. "write .tmp.x: No space left on device", "rename .tmp.x to x:
 * ...", "fsync: ..." (the directory); the temporary file is removed.
 */
int qd_atomic_write(struct qd_atomic_file *f, const char *text, size_t len,
		    char *err, size_t errlen);

#endif
