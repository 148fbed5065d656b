/* SPDX-License-Identifier: GPL-2.0-or-later
 * slurmctld's two qosdeny plugins write one metrics file,
 * qosdeny_ctld.prom (docs/metrics.md): job_submit/qosdeny writes it and
 * asks site_factor/qosdeny, when slurmctld loaded it too, for its families
 * through a function the site factor exports; the site factor writes the
 * file itself only where job_submit/qosdeny is not loaded. Slurm loads each
 * plugin on its own (RTLD_LOCAL), so a plugin finds the other by its file
 * name among the objects of the process.
 */
#ifndef QD_PEER_PLUGIN_H
#define QD_PEER_PLUGIN_H

#include <stdbool.h>

#define QD_PEER_JOB_SUBMIT  "job_submit_qosdeny.so"
#define QD_PEER_SITE_FACTOR "site_factor_qosdeny.so"
/* What site_factor_qosdeny.so exports: its families' text, malloc'd
 * (NULL when out of memory). */
#define QD_PEER_SITE_FACTOR_TEXT "qosdeny_site_factor_metrics"

/* Whether an object whose file name is name is loaded in this process. */
bool qd_peer_loaded(const char *name);

/* The text the loaded object name's exported char *fn(void) returns
 * (malloc'd), NULL when the object is not loaded or has no such function. */
char *qd_peer_text(const char *name, const char *fn);

#endif
