/* SPDX-License-Identifier: GPL-2.0-or-later
 * PrioritySiteFactorParameters of site_factor/qosdeny (docs/fair-share.md, "GPU
 * fair share in job priority"): "weight=N,interval=SECONDS", Slurm's
 * comma-separated key=value style.
 */
#ifndef QD_FACTOR_PARAMS_H
#define QD_FACTOR_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#define QD_FACTOR_WEIGHT_DEFAULT   10000
#define QD_FACTOR_WEIGHT_MAX	   1000000
#define QD_FACTOR_INTERVAL_DEFAULT 60
#define QD_FACTOR_INTERVAL_MIN	   5
#define QD_FACTOR_INTERVAL_MAX	   3600
#define QD_FACTOR_ERR_MAX	   512

struct qd_factor_params {
	uint32_t weight;     /* the site factor is round(weight x FairShare) */
	uint32_t interval_s; /* how often the factors are refreshed */
};

/*
 * Parses the parameters; NULL or "" gives the defaults. Keys are
 * case-insensitive, each at most once; values are decimal integers in
 * range (leading zeros allowed). Returns 0, or -1 with err naming the
 * offending text and p left as it was.
 */
int qd_factor_params_parse(const char *text, struct qd_factor_params *p,
			   char *err, size_t errlen);

#endif
