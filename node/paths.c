/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"

int qd_paths_add(struct qd_paths *p, const char *path)
{
	char **bigger;
	char *copy = strdup(path);

	if (!copy)
		return -1;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;

		bigger = realloc(p->v, cap * sizeof(*p->v));
		if (!bigger) {
			free(copy);
			errno = ENOMEM;
			return -1;
		}
		p->v = bigger;
		p->cap = cap;
	}
	p->v[p->n++] = copy;
	return 0;
}

long qd_paths_find(const struct qd_paths *p, const char *path)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i], path))
			return (long)i;
	return -1;
}

void qd_paths_free(struct qd_paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;
}
