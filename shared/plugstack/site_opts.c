/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <string.h>

#include "site_opts.h"

#define PLUGIN_PREFIX "qosdeny: "

int qd_site_spank_argv(const struct qd_site *s, char buf[QD_SPANK_ARGS_LEN],
		       char *argv[QD_SPANK_ARGS_MAX])
{
	char *save = NULL, *w;
	int argc = 0;

	snprintf(buf, QD_SPANK_ARGS_LEN, "%s", s->spank_args);
	for (w = strtok_r(buf, " ", &save); w && argc < QD_SPANK_ARGS_MAX;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	return argc;
}

int qd_site_spank_opts(const struct qd_site *s, struct qd_spank_opts *o,
		       char *err, size_t errlen)
{
	char buf[QD_SPANK_ARGS_LEN], why[512], *argv[QD_SPANK_ARGS_MAX];
	int argc = qd_site_spank_argv(s, buf, argv);
	size_t skip;

	qd_spank_opts_init(o);
	if (!qd_spank_opts_parse(o, argc, argv, why, sizeof(why)))
		return 0;
	skip = strncmp(why, PLUGIN_PREFIX, strlen(PLUGIN_PREFIX))
		   ? 0
		   : strlen(PLUGIN_PREFIX);
	snprintf(err, errlen, "%s: %s", s->spank_where, why + skip);
	return -1;
}

const char *qd_site_cluster(const struct qd_site *s,
			    const struct qd_spank_opts *o)
{
	if (o->cluster[0])
		return o->cluster;
	return s->cluster_name[0] ? s->cluster_name : NULL;
}
