/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sf_counts.h"

void qd_sf_metrics_text(const struct qd_sf_counts *c, struct qd_prom *out)
{
	qd_prom_family(out, "qosdeny_site_factor_refreshes_total", "counter",
		       "Refreshes of the site factor's table: running jobs "
		       "published, usage read from Redis, factors computed");
	qd_prom_u64(out, "qosdeny_site_factor_refreshes_total", NULL,
		    c->refreshes);
	qd_prom_family(out, "qosdeny_site_factor_refresh_errors_total",
		       "counter",
		       "Refreshes that failed, Redis unreachable or refusing "
		       "among them: the factors kept their last values");
	qd_prom_u64(out, "qosdeny_site_factor_refresh_errors_total", NULL,
		    c->failures);
	qd_prom_family(
	    out, "qosdeny_site_factor_last_success_timestamp_seconds", "gauge",
	    "When the last refresh that succeeded ended (Unix "
	    "time; 0: none yet)");
	qd_prom_u64(out, "qosdeny_site_factor_last_success_timestamp_seconds",
		    NULL,
		    (uint64_t)(c->last_success > 0 ? c->last_success : 0));
	qd_prom_family(out, "qosdeny_site_factor_refresh_duration_seconds",
		       "gauge", "How long the last refresh took");
	qd_prom_double(out, "qosdeny_site_factor_refresh_duration_seconds",
		       NULL, (double)c->last_ms / 1000.0);
	qd_prom_family(out, "qosdeny_site_factor_jobs_set_total", "counter",
		       "Times the site factor set a pending job's factor (at "
		       "submission, update, requeue and every "
		       "PriorityCalcPeriod)");
	qd_prom_u64(out, "qosdeny_site_factor_jobs_set_total", NULL,
		    c->jobs_set);
}
