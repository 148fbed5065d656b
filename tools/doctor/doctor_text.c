/* SPDX-License-Identifier: GPL-2.0-or-later
 * Small readers of Slurm's text for qosdeny doctor: a key of a Key=Value
 * file (cgroup.conf), a plugin list (JobSubmitPlugins, TaskPlugin), and
 * what Slurm's plugins say of a task's cgroup; and of the system's: who
 * listens on a loopback port (/proc/net/tcp), UID_MIN (login.defs).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* HEX as the kernel prints an address: 32-bit words, each in host order;
 * into bytes, network order. Returns the number of bytes, or 0. */
static size_t hex_address(const char *p, size_t n, unsigned char *out)
{
	if (n != 8 && n != 32)
		return 0;
	for (size_t w = 0; w < n / 8; w++) {
		char word[9], *end;
		unsigned long v;
		uint32_t v32;

		memcpy(word, p + w * 8, 8);
		word[8] = '\0';
		v = strtoul(word, &end, 16);
		if (*end)
			return 0;
		v32 = (uint32_t)v;
		memcpy(out + w * 4, &v32, 4);
	}
	return n / 2;
}

/* 127.0.0.0/8, ::1, ::ffff:127.0.0.0/104, or the wildcard of either. */
static bool reaches_loopback(const unsigned char *a, size_t n)
{
	static const unsigned char mapped[12] = {[10] = 0xff, [11] = 0xff};
	unsigned char zero[16] = {0};

	if (n == 4)
		return a[0] == 127 || !memcmp(a, zero, 4);
	if (!memcmp(a, zero, 15))
		return a[15] <= 1; /* :: and ::1 */
	return !memcmp(a, mapped, 12) && a[12] == 127;
}

long qd_doctor_loopback_listener_uid(const char *text, int port)
{
	long worst = -1;

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		char line[512], *f[8], *save = NULL, *colon, *end;
		unsigned char addr[16];
		size_t alen;
		int k = 0;
		long uid;

		snprintf(line, sizeof(line), "%.*s", (int)(n < 511 ? n : 511),
			 p);
		p += n + (p[n] == '\n');
		for (char *t = strtok_r(line, " \t", &save); t && k < 8;
		     t = strtok_r(NULL, " \t", &save))
			f[k++] = t;
		/* sl local_address rem_address st ... uid (the 8th) */
		if (k < 8 || strcmp(f[3], "0A")) /* TCP_LISTEN */
			continue;
		colon = strchr(f[1], ':');
		if (!colon || strtol(colon + 1, &end, 16) != port || *end)
			continue;
		alen = hex_address(f[1], (size_t)(colon - f[1]), addr);
		uid = strtol(f[7], &end, 10);
		if (!alen || *end || uid < 0 || !reaches_loopback(addr, alen))
			continue;
		if (uid > worst)
			worst = uid;
	}
	return worst;
}

long qd_doctor_uid_min(const char *login_defs)
{
	long min = 1000;

	for (const char *p = login_defs ? login_defs : ""; *p;) {
		size_t n = strcspn(p, "\n");
		char *end;

		if (n > 7 && !strncmp(p, "UID_MIN", 7) &&
		    (p[7] == ' ' || p[7] == '\t')) {
			long v = strtol(p + 7, &end, 10);

			if (end != p + 7 &&
			    (*end == '\n' || *end == '\0' || *end == ' ' ||
			     *end == '\t') &&
			    v > 0)
				min = v;
		}
		p += n + (p[n] == '\n');
	}
	return min;
}
