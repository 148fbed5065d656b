/* SPDX-License-Identifier: GPL-2.0-or-later
 * Runs one of Slurm's commands (squeue, sacct, found on PATH) and reads
 * what it prints, within a time limit. Not through libslurm: `slurmstepd
 * spank epilog` runs with the reduced configuration slurmd hands it, in
 * which libslurm's RPCs do not work (seen on 24.11: slurm_load_job never
 * returned and the epilog was killed), and slurmd must never wait on
 * slurmctld longer than it chose to.
 */
#ifndef QD_SLURM_CMD_H
#define QD_SLURM_CMD_H

#include <stddef.h>

/*
 * Runs argv (argv[0] on PATH) with SLURM_TIME_FORMAT=%s (times as Unix
 * seconds), stdin and stderr on /dev/null, its stdout into out
 * (NUL-terminated, cut at len - 1), killing it after timeout_ms. Returns
 * 0 with *status its exit status (0 success), or -1 with err when it could
 * not be started or ran out of time.
 */
int qd_slurm_cmd(const char *const argv[], int timeout_ms, char *out,
		 size_t len, int *status, char *err, size_t errlen);

#endif
