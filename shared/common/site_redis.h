/*
 * The Redis settings of the spank_qosdeny.so line (README "plugstack.conf")
 * as the tool and the site factor hand them to qd_redis_new.
 */
#ifndef QD_SITE_REDIS_H
#define QD_SITE_REDIS_H

#include "redis_usage.h"
#include "site.h"

/* cfg from s; addr overrides redis= when not NULL (the tool's --redis).
 * cfg points into s (and addr), which must outlive it. */
void qd_site_redis_config(const struct qd_site *s, const char *addr,
			  struct qd_redis_config *cfg);

#endif
