/* SPDX-License-Identifier: GPL-2.0-or-later
 * What a test sees in a directory, to compare with what it expects to be
 * left there: the names, temporary files included, in one string.
 */
#ifndef QD_TEST_DIR_NAMES_H
#define QD_TEST_DIR_NAMES_H

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* Names in d (all of them, temp files too), space-separated, sorted; "" for
 * an empty or missing directory. Static storage: one call's at a time. */
static inline const char *dir_names(const char *d)
{
	static char out[4096];
	struct dirent **v;
	int n = scandir(d, &v, NULL, alphasort);

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(v[i]->d_name, ".") && strcmp(v[i]->d_name, "..")) {
			if (out[0])
				strcat(out, " ");
			strcat(out, v[i]->d_name);
		}
		free(v[i]);
	}
	if (n >= 0)
		free(v);
	return out;
}

#endif
