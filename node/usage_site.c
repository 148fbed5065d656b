/* SPDX-License-Identifier: GPL-2.0-or-later
 * Where the node's reporting goes: the spool directory, Redis, and the
 * qosdeny.conf that gives UsageHalfLife, from the plugstack.conf options and
 * slurm.conf. The job prolog and epilog run in a slurmstepd of their own
 * that has no slurmd configuration to ask, so slurm.conf is read here, as
 * `qosdeny flush` reads it.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "spool_orphan.h"
#include "usage_report.h"

int qd_expand_node_path(const char *path, const char *node, const char *host,
			char *out, size_t len)
{
	size_t n = 0;

	for (const char *p = path; *p; p++) {
		const char *sub = NULL;
		char c[2] = {*p, '\0'};

		if (*p == '%' && p[1] == 'n')
			sub = node;
		else if (*p == '%' && p[1] == 'h')
			sub = host;
		else if (*p == '%' && p[1] == '%')
			sub = "%";
		if (sub)
			p++;
		else
			sub = c;
		if (n + strlen(sub) >= len)
			return -1;
		memcpy(out + n, sub, strlen(sub));
		n += strlen(sub);
	}
	if (n >= len)
		return -1;
	out[n] = '\0';
	return 0;
}

void qd_short_host(char *buf, size_t len)
{
	if (gethostname(buf, len))
		snprintf(buf, len, "localhost");
	buf[len - 1] = '\0';
	buf[strcspn(buf, ".")] = '\0';
}

int qd_reporter_init(struct qd_reporter *rp, const struct qd_spank_opts *o,
		     const char *node, qd_report_log_fn log, void *log_arg,
		     char *err, size_t errlen)
{
	char path[PATH_MAX + 16], host[256];

	memset(rp, 0, sizeof(*rp));
	rp->log = log;
	rp->log_arg = log_arg;
	if (qd_site_load(&rp->site, err, errlen))
		return -1;
	if (o->spool[0])
		snprintf(path, sizeof(path), "%s", o->spool);
	else
		snprintf(path, sizeof(path), "%s/qosdeny",
			 rp->site.slurmd_spool_dir);
	qd_short_host(host, sizeof(host));
	if (qd_expand_node_path(path, node, host, rp->spool, sizeof(rp->spool)))
		return qd_errf(err, errlen, "spool path too long: %s", path);
	rp->opts = *o;
	rp->boot_time = qd_boot_time();
	return 0;
}
