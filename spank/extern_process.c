/* SPDX-License-Identifier: GPL-2.0-or-later
 * The process whose cgroups are where Slurm put the extern step
 * (extern_process.h).
 */
#include <slurm/slurm_version.h>
#include <unistd.h>

#include "extern_process.h"

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)

/* From 25.05: the extern step has no process of its own, and slurmstepd
 * is in its cgroups. */
pid_t qd_extern_process(void)
{
	return getpid();
}

#else

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first numeric entry NAME of dir for which pick() finds a pid in the
 * start of dir/NAME/file; 0 when none. */
static pid_t find_in(const char *dir, const char *file,
		     pid_t (*pick)(const char *name, const char *text))
{
	char path[300], buf[512];
	struct dirent *e;
	pid_t found = 0;
	ssize_t n;
	int fd;
	DIR *d = opendir(dir);

	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", dir, e->d_name, file);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		found = pick(e->d_name, buf);
	}
	if (d)
		closedir(d);
	return found;
}

/* /proc/PID/stat, "PID (COMM) STATE PPID ...": PID when PPID is ours.
 * COMM may hold blanks. */
static pid_t our_child(const char *name, const char *text)
{
	const char *p = strrchr(text, ')');
	int ppid;

	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1 || ppid != getpid())
		return 0;
	return (pid_t)atoi(name);
}

/* /proc/self/task/TID/children: the pids that thread forked. */
static pid_t first_child(const char *name, const char *text)
{
	(void)name;
	return (pid_t)atoi(text);
}

/*
 * Up to 24.11: the extern step's one process, `sleep`, the only child
 * slurmstepd has forked when it calls task_post_fork with no task. It may
 * not have reached its setsid() or exec yet, so it is known by its parent
 * alone. Each of slurmstepd's threads lists the children it forked in
 * /proc/self/task/TID/children: a few files instead of every process on
 * the node (docs/performance.md "Launch cost"). Where that finds none
 * (kernels built without CONFIG_PROC_CHILDREN), every process is looked
 * at.
 */
pid_t qd_extern_process(void)
{
	pid_t found = find_in("/proc/self/task", "children", first_child);

	return found ? found : find_in("/proc", "stat", our_child);
}

#endif
