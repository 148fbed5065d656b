/* SPDX-License-Identifier: GPL-2.0-or-later
 * Several daemons' metrics files as one text (`qosdeny metrics`): each
 * family once, its HELP and TYPE lines first, then every file's samples of
 * it, in the order the files are given. Nothing else is passed on: a line
 * that is not a HELP, TYPE or sample line of a qosdeny_ metric, or holds a
 * control character or a byte that is no part of valid UTF-8, is left out
 * and counted.
 */
#ifndef QD_PROM_MERGE_H
#define QD_PROM_MERGE_H

#include <stddef.h>

#include "prom_text.h"

/* texts[0..n) merged into out; *skipped: the lines left out. Returns 0, or
 * -1 when out of memory. */
int qd_prom_merge(const char *const *texts, size_t n, struct qd_prom *out,
		  size_t *skipped);

#endif
