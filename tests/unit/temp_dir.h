/* SPDX-License-Identifier: GPL-2.0-or-later
 * A test's files in a directory of its own under /tmp, made at the first
 * file and removed whole by the suite's fini: tests that read a
 * slurm.conf, gres.conf or a stand-in program write them here.
 */
#ifndef QD_TEST_TEMP_DIR_H
#define QD_TEST_TEMP_DIR_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

/* Writes text to dir/name, making dir from "/tmp/qd-TAG.XXXXXX" where it
 * is still ""; path gets the file's path. */
static inline void temp_file(char *dir, size_t dirlen, const char *tag,
			     const char *name, const char *text, char *path,
			     size_t pathlen)
{
	FILE *f;

	if (!dir[0]) {
		snprintf(dir, dirlen, "/tmp/qd-%s.XXXXXX", tag);
		cr_assert(mkdtemp(dir));
	}
	snprintf(path, pathlen, "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

/* Removes dir and all in it, and leaves it "" for the next test. */
static inline void temp_dir_remove(char *dir)
{
	char cmd[128];

	if (dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		cr_expect_eq(system(cmd), 0);
	}
	dir[0] = '\0';
}

#endif
