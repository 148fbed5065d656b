/* SPDX-License-Identifier: GPL-2.0-or-later
 * The site's spank_qosdeny.so line (site.h finds it in plugstack.conf) read
 * by the plugin's own parser (spank_opts.h), for the tool and the site
 * factor: a line the plugin refuses, they refuse with the plugin's words
 * (qosdeny(1), PLUGSTACK.CONF OPTIONS).
 */
#ifndef QD_SITE_OPTS_H
#define QD_SITE_OPTS_H

#include <stddef.h>

#include "site.h"
#include "spank_opts.h"

/* The most words taken from the line: a line with more than there are
 * options repeats one or names an unknown one, and is refused within them. */
#define QD_SPANK_ARGS_MAX 64

/* The line's words: argv points into buf, a copy of s->spank_args. Returns
 * their number. */
int qd_site_spank_argv(const struct qd_site *s, char buf[QD_SPANK_ARGS_LEN],
		       char *argv[QD_SPANK_ARGS_MAX]);

/*
 * o: the line's options over the defaults, the defaults alone without a
 * line. Returns 0, or -1 with err "FILE:LINE: " and what the plugin says of
 * the line (its message without its "qosdeny: ").
 */
int qd_site_spank_opts(const struct qd_site *s, struct qd_spank_opts *o,
		       char *err, size_t errlen);

/* The cluster usage records name: the line's cluster=, else ClusterName;
 * NULL when neither. */
const char *qd_site_cluster(const struct qd_site *s,
			    const struct qd_spank_opts *o);

#endif
