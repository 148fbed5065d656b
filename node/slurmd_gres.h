/* SPDX-License-Identifier: GPL-2.0-or-later
 * What `slurmd -G` prints of the GRES it would report (Slurm's gres.c,
 * _print_gres_info), which doctor compares with the GPUs qosdeny binds:
 *
 *   slurmd: Gres Name=gpu Type=a100 Count=1 Index=0 ID=7696487
 *       File=/dev/nvidia0 Cores=0-3 CoreCnt=4 Links=(null) Flags=HAS_FILE
 *
 * on one line, its fields separated by single blanks, File= absent where
 * gres.conf gives none, and 22.05 ending in the flags alone. The text is
 * the node's gres.conf's and slurmd's own, but a Type= is read as a field,
 * never searched: "Type=File=x" is a type.
 */
#ifndef QD_SLURMD_GRES_H
#define QD_SLURMD_GRES_H

#include <stddef.h>

/*
 * One line of that output: -1 when it is not a GRES line, 0 a GRES line
 * that is not a GPU's with File=, 1 a GPU's (Name=gpu) with its File=
 * value at *file, *filelen bytes of line (not NUL-terminated; may be a
 * list, /dev/nvidia[0-3]).
 */
int qd_slurmd_gres_line(const char *line, const char **file, size_t *filelen);

/*
 * The Count= of a line of name's (Name=shard, Name=mps): 1 with *count;
 * 0 a GRES line of another name, or without a decimal Count=; -1 not a
 * GRES line.
 */
int qd_slurmd_gres_count(const char *line, const char *name,
			 unsigned long long *count);

#endif
