/* SPDX-License-Identifier: GPL-2.0-or-later
 * Small readers of Slurm's text for qosdeny doctor: a key of a Key=Value
 * file (cgroup.conf), a plugin list (JobSubmitPlugins, TaskPlugin), and
 * what Slurm's plugins say of a task's cgroup.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "doctor.h"

void qd_doctor_conf_value(const char *text, const char *key, char *out,
			  size_t len)
{
	size_t klen = strlen(key);

	out[0] = '\0';
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		size_t i = 0;

		/* Each blank-separated Key=Value of the line, up to a '#'. */
		while (i < n && p[i] != '#') {
			size_t w;

			i += strspn(p + i, " \t\r");
			w = strcspn(p + i, " \t\r\n#");
			if (w > klen && p[i + klen] == '=' &&
			    !strncasecmp(p + i, key, klen))
				snprintf(out, len, "%.*s", (int)(w - klen - 1),
					 p + i + klen + 1);
			i += w;
			if (!w)
				break;
		}
		p += n + (p[n] == '\n');
	}
}

bool qd_doctor_list_has(const char *list, const char *prefix, const char *item)
{
	size_t plen = strlen(prefix), len = strlen(item);

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		const char *w = p;
		size_t wn = n;

		if (wn > plen && !strncasecmp(w, prefix, plen)) {
			w += plen;
			wn -= plen;
		}
		if (wn == len && !strncasecmp(w, item, len))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

bool qd_doctor_slurm_task_cgroups(const char *cgroup_plugin,
				  const char *proctrack,
				  const char *task_plugin,
				  const char *jobacct_gather)
{
	return !strcmp(cgroup_plugin, "cgroup/v2") &&
	       (!strcmp(proctrack, "proctrack/cgroup") ||
		qd_doctor_list_has(task_plugin, "task/", "cgroup") ||
		!strcmp(jobacct_gather, "jobacct_gather/cgroup"));
}
