/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>

#include "usage_skipped.h"

void qd_usage_skip(struct qd_usage_skipped *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->n++) {
		va_start(ap, fmt);
		vsnprintf(s->first, sizeof(s->first), fmt, ap);
		va_end(ap);
		/* Keys and values come from Redis, which a job may have
		 * written: one printable line in the logs. */
		for (char *p = s->first; *p; p++)
			if ((unsigned char)*p < 0x20 ||
			    (unsigned char)*p >= 0x7f)
				*p = '?';
	}
}

const char *qd_usage_skipped_text(const struct qd_usage_skipped *s, char *buf,
				  size_t len)
{
	if (s->n == 1)
		snprintf(buf, len,
			 "1 usage entry in Redis cannot be read and is left "
			 "out: %s",
			 s->first);
	else
		snprintf(buf, len,
			 "%zu usage entries in Redis cannot be read and are "
			 "left out (the first: %s)",
			 s->n, s->first);
	return buf;
}
