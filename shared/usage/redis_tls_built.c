/*
 * Whether TLS was built in: the Makefile defines QD_HAVE_TLS where hiredis
 * ships hiredis_ssl (hiredis 1.0 and later; Debian 12's 0.14 has none).
 */
#include "redis_usage.h"

bool qd_redis_tls_built(void)
{
#ifdef QD_HAVE_TLS
	return true;
#else
	return false;
#endif
}
