/* SPDX-License-Identifier: GPL-2.0-or-later
 * Where Slurm puts a step's processes on cgroup v2; see step_cgroup.h.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "step_cgroup.h"

/* The leaf Slurm's cgroup/v2 moves slurmstepd into, and the tasks' one. */
#define STEPD_LEAF "/slurm"
#define TASKS_LEAF "/user"

/* Whether pid's command name (comm, as ps shows it) is slurmstepd. */
static bool is_slurmstepd(int pid)
{
	char path[64], comm[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return false;
	comm[n] = '\0';
	return !strcmp(comm, "slurmstepd\n");
}

/*
 * Whether STEP/slurm, step being the first len bytes of path, lists a
 * slurmstepd in its cgroup.procs (slurmstepd is its only process: one
 * pid, two at most while a step forks).
 */
static bool holds_stepd(const char *path, size_t len)
{
	char procs[PATH_MAX];
	bool found = false;
	FILE *f;
	int pid;

	if ((size_t)snprintf(procs, sizeof(procs),
			     "%.*s" STEPD_LEAF "/cgroup.procs", (int)len,
			     path) >= sizeof(procs))
		return false;
	f = fopen(procs, "re");
	if (!f)
		return false;
	while (!found && fscanf(f, "%d", &pid) == 1)
		found = is_slurmstepd(pid);
	fclose(f);
	return found;
}

int qd_step_cgroup(const char *dir, char *step, size_t steplen)
{
	size_t tlen = strlen(TASKS_LEAF), end, at;

	/* Each component ".../user" ends at a '/' or at the end: deepest
	 * first. */
	for (end = strlen(dir); end >= tlen; end--) {
		if (dir[end] != '/' && dir[end] != '\0')
			continue;
		at = end - tlen;
		if (strncmp(dir + at, TASKS_LEAF, tlen) ||
		    !holds_stepd(dir, at))
			continue;
		if (step)
			snprintf(step, steplen, "%.*s", (int)at, dir);
		return 1;
	}
	return 0;
}

int qd_step_cgroup_of_stepd(const char *stepd_dir, char *step, size_t steplen)
{
	size_t slen = strlen(STEPD_LEAF), len = strlen(stepd_dir);

	if (len <= slen || strcmp(stepd_dir + len - slen, STEPD_LEAF) ||
	    !holds_stepd(stepd_dir, len - slen))
		return 0;
	snprintf(step, steplen, "%.*s", (int)(len - slen), stepd_dir);
	return 1;
}
