/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "names.h"

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("._@+$-", c));
}

bool qd_usage_name_ok(const char *s)
{
	size_t len = strlen(s);

	if (!len || len >= QD_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!name_char(s[i]))
			return false;
	return true;
}
