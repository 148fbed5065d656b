/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "peer_plugin.h"

struct search {
	const char *name;
	char path[PATH_MAX];
};

static int match(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct search *s = arg;
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	if (strcmp(base, s->name))
		return 0;
	snprintf(s->path, sizeof(s->path), "%s", info->dlpi_name);
	return 1;
}

static bool find(struct search *s)
{
	return dl_iterate_phdr(match, s) == 1;
}

bool qd_peer_loaded(const char *name)
{
	struct search s = {.name = name};

	return find(&s);
}

char *qd_peer_text(const char *name, const char *fn)
{
	struct search s = {.name = name};
	char *(*get)(void);
	char *text = NULL;
	void *h;

	/* RTLD_NOLOAD: a reference to the object already loaded, held for
	 * the call, never a load. */
	if (!find(&s) || !(h = dlopen(s.path, RTLD_LAZY | RTLD_NOLOAD)))
		return NULL;
	*(void **)&get = dlsym(h, fn);
	if (get)
		text = get();
	dlclose(h);
	return text;
}
