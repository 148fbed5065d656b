/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "usage_qos_env.h"

bool qd_qos_env_ours(const char *entry)
{
	static const char spank[] = "SPANK_", ours[] = "QOSDENY_";

	if (!strncmp(entry, spank, strlen(spank)))
		entry += strlen(spank);
	return !strncmp(entry, ours, strlen(ours));
}

int qd_qos_env_set(char ***env, uint32_t *n, const char *qos,
		   const struct qd_env_alloc *a)
{
	size_t len = strlen(QD_QOS_ENV "=") + strlen(qos) + 1;
	char **old = *env, **grown = NULL, *entry = NULL;
	uint32_t kept = 0;

	/* In place first: nothing of the user's under our name survives an
	 * allocation failure. */
	for (uint32_t i = 0; i < *n; i++) {
		if (old[i] && !qd_qos_env_ours(old[i]))
			old[kept++] = old[i];
		else
			a->release(old[i]);
	}
	if (kept < *n)
		old[kept] = NULL;
	*n = kept;
	entry = a->zalloc(len);
	grown = a->zalloc((kept + 2) * sizeof(*grown));
	if (!entry || !grown) {
		a->release(entry);
		a->release(grown);
		return -1;
	}
	memcpy(entry, QD_QOS_ENV "=", strlen(QD_QOS_ENV "="));
	memcpy(entry + strlen(QD_QOS_ENV "="), qos, strlen(qos));
	if (kept)
		memcpy(grown, old, kept * sizeof(*grown));
	grown[kept] = entry;
	a->release(old);
	*env = grown;
	*n = kept + 1;
	return 0;
}
