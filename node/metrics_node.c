/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "adopt.h"
#include "metrics_file.h"
#include "metrics_node.h"
#include "node_text.h"
#include "spool.h"

static bool still_there(const char *spool, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", spool, name);
	return lstat(path, &st) == 0 || errno != ENOENT;
}

/* The spool's records: open, closed and when the oldest closed one
 * ended, unreadable. */
static int spool_state(const char *spool, struct qd_node_metrics *m, char *err,
		       size_t errlen)
{
	struct qd_spool_list l = {0};
	char why[QD_SPOOL_ERR_MAX];

	if (qd_spool_list(spool, &l, err, errlen))
		return -1;
	for (size_t i = 0; i < l.n; i++) {
		struct qd_usage_record r;

		if (qd_spool_read(spool, l.names[i], &r, why, sizeof(why))) {
			/* Sent and removed since the listing: gone, not
			 * unreadable. */
			if (still_there(spool, l.names[i]))
				m->spool_unread++;
		} else if (!r.end) {
			m->spool_open++;
		} else {
			m->spool_closed++;
			if (!m->oldest_closed_end ||
			    r.end < m->oldest_closed_end)
				m->oldest_closed_end = r.end;
		}
	}
	qd_spool_list_free(&l);
	return 0;
}

/* The confinement's counts, from the node's adoption directory. */
static int confinement(const char *adopt_dir, const char *node,
		       struct qd_node_metrics *m, char *err, size_t errlen)
{
	static const enum qd_node_count kept[] = {
	    QD_NC_BIND_TASK, QD_NC_BIND_EXTERN, QD_NC_SSH_CONFINED,
	    QD_NC_SSH_UNCONFINED, QD_NC_SSH_REFUSED};
	struct qd_node_counts c;
	char sub[PATH_MAX];

	if (qd_adopt_counts_dir(adopt_dir, node, sub, sizeof(sub), err,
				errlen) ||
	    qd_node_counts_create(sub, err, errlen) ||
	    qd_node_counts_read(sub, &c, err, errlen))
		return -1;
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		m->c.v[kept[i]] = c.v[kept[i]];
	return 0;
}

int qd_node_metrics_write(const char *spool, const char *adopt_dir,
			  const char *dir, const char *node, char *err,
			  size_t errlen)
{
	struct qd_node_metrics m = {.now = time(NULL)};
	struct qd_prom text = {0};
	char name[PATH_MAX];
	int rv = -1;

	/* The node's name as slurm.conf gives it, in a file name. */
	if (!*node || *node == '.' || strchr(node, '/')) {
		snprintf(err, errlen, "node name '%s' cannot name a file",
			 node);
		return -1;
	}
	snprintf(name, sizeof(name),
		 QD_METRICS_NODE_PREFIX "%s" QD_METRICS_SUFFIX, node);
	if (qd_node_counts_create(spool, err, errlen) ||
	    qd_node_counts_read(spool, &m.c, err, errlen) ||
	    confinement(adopt_dir, node, &m, err, errlen) ||
	    spool_state(spool, &m, err, errlen))
		return -1;
	qd_node_metrics_text(node, &m, &text);
	rv = qd_metrics_write(dir, name, &text, err, errlen);
	qd_prom_free(&text);
	return rv;
}
