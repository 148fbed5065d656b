/* SPDX-License-Identifier: GPL-2.0-or-later
 * What loading a SPANK plugin costs the process that loads it (srun,
 * salloc, sbatch, and on a node every slurmstepd): dlopen(RTLD_NOW) of each
 * library given, each time in a fresh child, which starts like those
 * processes with the plugin not yet mapped. tests/bench/launch.sh prints
 * it beside the launch figures (docs/performance.md "Launch cost").
 *
 *   load_cost RUNS LIBRARY...   one line per library: "load LIBRARY n
 *                               median p10 p90 min max", microseconds
 *
 * A library is a path or a soname (libhiredis.so.0.14), or several
 * joined by '+', loaded in that order and timed together (hiredis_ssl
 * needs hiredis loaded before it). The SPANK and
 * Slurm log functions a plugin calls are slurmstepd's: defined here and
 * exported (-rdynamic), as test_spank_plugin does.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/spank.h>

spank_context_t spank_context(void)
{
	return S_CTX_REMOTE;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
	(void)sp;
	(void)item;
	return ESPANK_ERROR;
}

spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len)
{
	(void)sp;
	(void)var;
	(void)buf;
	(void)len;
	return ESPANK_ERROR;
}

const char *spank_strerror(spank_err_t err)
{
	(void)err;
	return "";
}

void slurm_error(const char *fmt, ...)
{
	(void)fmt;
}

void slurm_info(const char *fmt, ...)
{
	(void)fmt;
}

void slurm_verbose(const char *fmt, ...)
{
	(void)fmt;
}

void slurm_debug(const char *fmt, ...)
{
	(void)fmt;
}

static int by_value(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* One load in a fresh child: its microseconds, or -1. */
static long one_load(const char *lib)
{
	int fds[2], status;
	long us = -1;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct timespec a, b;
		char *libs = strdup(lib), *one, *rest = libs;

		close(fds[0]);
		clock_gettime(CLOCK_MONOTONIC, &a);
		while (libs && (one = strsep(&rest, "+")))
			if (!dlopen(one, RTLD_NOW | RTLD_GLOBAL)) {
				fprintf(stderr, "load_cost: %s\n", dlerror());
				_exit(1);
			}
		clock_gettime(CLOCK_MONOTONIC, &b);
		us = (b.tv_sec - a.tv_sec) * 1000000L +
		     (b.tv_nsec - a.tv_nsec) / 1000;
		_exit(write(fds[1], &us, sizeof(us)) == sizeof(us) ? 0 : 1);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], &us, sizeof(us)) != sizeof(us))
		us = -1;
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return us;
}

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[1]) : 0;
	long *t;

	if (runs < 1) {
		fprintf(stderr, "usage: load_cost RUNS LIBRARY...\n");
		return 2;
	}
	t = calloc(runs, sizeof(*t));
	if (!t)
		return 1;
	for (int i = 2; i < argc; i++) {
		const char *base = strrchr(argv[i], '/');

		for (int r = 0; r < runs; r++)
			if ((t[r] = one_load(argv[i])) < 0)
				return 1;
		qsort(t, runs, sizeof(*t), by_value);
		printf("load_%-26s %6d %8ld %8ld %8ld %8ld %8ld\n",
		       base ? base + 1 : argv[i], runs, t[(runs - 1) / 2],
		       t[(runs - 1) / 10], t[(runs - 1) * 9 / 10], t[0],
		       t[runs - 1]);
	}
	free(t);
	return 0;
}
