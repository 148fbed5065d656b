#include <string.h>

#include "site_redis.h"

static const char *given(const char *s)
{
	return s[0] ? s : NULL;
}

void qd_site_redis_config(const struct qd_site *s, const char *addr,
			  struct qd_redis_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->addr = addr ? addr : given(s->redis);
	cfg->password_file = given(s->password_file);
	cfg->timeout_ms = s->timeout_ms;
	cfg->user = given(s->redis_user);
	cfg->replicas = s->redis_replicas;
	cfg->replicas_given = s->redis_replicas >= 0;
	cfg->tls_ca = given(s->tls_ca);
	cfg->tls_cert = given(s->tls_cert);
	cfg->tls_key = given(s->tls_key);
}
