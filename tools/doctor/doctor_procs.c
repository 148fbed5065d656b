/* SPDX-License-Identifier: GPL-2.0-or-later
 * The Slurm daemons of this host, from /proc (doctor_procs.h). Only those
 * reading our slurm.conf count: test clusters and multiple-slurmd hosts run
 * several sets side by side.
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor_procs.h"

/* A NUL-separated /proc file, NUL-terminated; its length, or -1. */
static ssize_t slurp(const char *pid, const char *what, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/%s", pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* The word after flag in a NUL-separated argument list, or NULL. */
static const char *arg_after(const char *args, size_t len, const char *flag)
{
	for (size_t i = 0; i < len; i += strlen(args + i) + 1)
		if (!strcmp(args + i, flag) && i + strlen(flag) + 1 < len)
			return args + i + strlen(flag) + 1;
	return NULL;
}

/* The daemon's slurm.conf is ours (compared as real paths). */
static bool same_conf(const char *pid, const char *args, size_t len,
		      const char *ours)
{
	static char env[65536];
	const char *conf = arg_after(args, len, "-f");
	char a[PATH_MAX], b[PATH_MAX];
	ssize_t n;

	if (!conf && (n = slurp(pid, "environ", env, sizeof(env))) > 0)
		for (size_t i = 0; i < (size_t)n; i += strlen(env + i) + 1)
			if (!strncmp(env + i, "SLURM_CONF=", 11))
				conf = env + i + 11;
	if (!conf)
		conf = QD_DEFAULT_SLURM_CONF;
	return realpath(conf, a) && realpath(ours, b) && !strcmp(a, b);
}

static void take(struct qd_procs *p, const char *pid, const char *comm,
		 const char *ours)
{
	char args[4096];
	const char *node;
	ssize_t n = slurp(pid, "cmdline", args, sizeof(args));

	if (n <= 0 || !same_conf(pid, args, (size_t)n, ours))
		return;
	if (!strcmp(comm, "slurmctld")) {
		p->slurmctld = true;
		return;
	}
	node = arg_after(args, (size_t)n, "-N");
	if (!node)
		node = p->hostname;
	/* slurmd's forks (prolog, RPC handlers) show its arguments too. */
	for (size_t i = 0; i < p->n_slurmd; i++)
		if (!strcmp(p->slurmd[i].node, node))
			return;
	if (p->n_slurmd == QD_PROCS_SLURMD_MAX)
		return;
	p->slurmd[p->n_slurmd].pid = (pid_t)atol(pid);
	snprintf(p->slurmd[p->n_slurmd++].node, QD_NAME_MAX, "%s", node);
}

static int by_node(const void *a, const void *b)
{
	return strcmp(((const struct qd_proc_slurmd *)a)->node,
		      ((const struct qd_proc_slurmd *)b)->node);
}

void qd_procs_find(const struct qd_site *s, struct qd_procs *p)
{
	struct dirent *e;
	DIR *dir;

	memset(p, 0, sizeof(*p));
	if (gethostname(p->hostname, sizeof(p->hostname)))
		snprintf(p->hostname, sizeof(p->hostname), "localhost");
	p->hostname[strcspn(p->hostname, ".")] = '\0';
	dir = opendir("/proc");
	if (!dir)
		return;
	while ((e = readdir(dir))) {
		char comm[64];

		if (!isdigit((unsigned char)e->d_name[0]) ||
		    slurp(e->d_name, "comm", comm, sizeof(comm)) <= 0)
			continue;
		/* Debian's daemons are slurmd-wlm and slurmctld-wlm, named
		 * so once they re-exec themselves (24.11's reconfigure). */
		comm[strcspn(comm, "\n")] = '\0';
		if (strlen(comm) > 4 &&
		    !strcmp(comm + strlen(comm) - 4, "-wlm"))
			comm[strlen(comm) - 4] = '\0';
		if (!strcmp(comm, "slurmd") || !strcmp(comm, "slurmctld"))
			take(p, e->d_name, comm, s->slurm_conf);
	}
	closedir(dir);
	/* In node name order, whatever the pids (a re-exec renumbers). */
	qsort(p->slurmd, p->n_slurmd, sizeof(*p->slurmd), by_node);
}
