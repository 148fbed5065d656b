/* SPDX-License-Identifier: GPL-2.0-or-later
 * Where a process's cgroup is on this machine; see cgroup_locate.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_locate.h"
#include "errmsg.h"

/*
 * The path in /proc/PID/cgroup of pid's cgroup in the v1 hierarchy that has
 * controller, or (NULL) in the v2 one ("0::/path").
 */
static int proc_cgroup(pid_t pid, const char *controller, char *path,
		       size_t len, char *err, size_t errlen)
{
	int rv = -1;
	char file[64], *line = NULL, *ctls, *p, *tok, *save;
	size_t cap = 0;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return qd_errf(err, errlen, "%s: %s", file, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		/* "ID:CONTROLLERS:PATH"; the path may itself hold ':' */
		ctls = strchr(line, ':');
		if (!ctls)
			continue;
		*ctls++ = '\0';
		p = strchr(ctls, ':');
		if (!p)
			continue;
		*p++ = '\0';
		if (!controller) {
			if (strcmp(line, "0") || *ctls)
				continue;
		} else {
			for (tok = strtok_r(ctls, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save))
				if (!strcmp(tok, controller))
					break;
			if (!tok)
				continue;
		}
		if (snprintf(path, len, "%s", p) >= (int)len) {
			qd_errf(err, errlen, "%s: path too long", file);
			goto fail;
		}
		rv = 0;
		goto fail;
	}
	if (controller)
		qd_errf(err, errlen, "pid %d is in no v1 %s cgroup (%s)",
			(int)pid, controller, file);
	else
		qd_errf(err, errlen, "pid %d is in no cgroup2 cgroup (%s)",
			(int)pid, file);
fail:
	free(line);
	fclose(f);
	return rv;
}

/* mountinfo escapes blanks, tabs, newlines and '\' as \ooo. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

static bool has_option(const char *opts, const char *want)
{
	size_t len = strlen(want);

	for (const char *p = opts; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (!strncmp(p, want, len) && (p[len] == ',' || !p[len]))
			return true;
	}
	return false;
}

/*
 * This process's mount of the v1 hierarchy that has controller, or (NULL) of
 * cgroup2: where it is mounted and which cgroup is its root.
 */
int cg_mount(const char *controller, char *mnt, size_t mntlen, char *root,
	     size_t rootlen, char *err, size_t errlen)
{
	int rv = -1;
	char *line = NULL, *f[6], *sep, *fstype, *opts, *save;
	size_t cap = 0;
	int i;
	FILE *m = fopen("/proc/self/mountinfo", "re");

	if (!m)
		return qd_errf(err, errlen, "/proc/self/mountinfo: %s",
			       strerror(errno));
	while (getline(&line, &cap, m) > 0) {
		line[strcspn(line, "\n")] = '\0';
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE
		 * SOURCE SUPEROPTS */
		f[0] = strtok_r(line, " ", &save);
		for (i = 1; i < 6 && f[i - 1]; i++)
			f[i] = strtok_r(NULL, " ", &save);
		if (i < 6 || !f[5])
			continue;
		while ((sep = strtok_r(NULL, " ", &save)) && strcmp(sep, "-"))
			;
		fstype = strtok_r(NULL, " ", &save);
		if (!sep || !fstype || !strtok_r(NULL, " ", &save))
			continue;
		opts = strtok_r(NULL, " ", &save);
		if (controller) {
			if (strcmp(fstype, "cgroup") || !opts ||
			    !has_option(opts, controller))
				continue;
		} else if (strcmp(fstype, "cgroup2")) {
			continue;
		}
		unescape(f[3]);
		unescape(f[4]);
		if (snprintf(mnt, mntlen, "%s", f[4]) >= (int)mntlen ||
		    snprintf(root, rootlen, "%s", f[3]) >= (int)rootlen) {
			qd_errf(err, errlen, "mount point %s: path too long",
				f[4]);
			goto fail;
		}
		rv = 0;
		goto fail;
	}
	if (controller)
		qd_errf(err, errlen, "no v1 %s controller mounted", controller);
	else
		qd_errf(err, errlen, "no cgroup2 file system mounted");
fail:
	free(line);
	fclose(m);
	return rv;
}

int cg_dir_of(pid_t pid, const char *controller, char *dir, size_t dirlen,
	      char *top, size_t toplen, char *err, size_t errlen)
{
	char path[PATH_MAX], root[PATH_MAX], mnt[PATH_MAX];
	const char *rel = path;
	const char *v = controller ? "cgroup v1" : "cgroup v2";
	size_t rootlen;
	char why[512];

	if (proc_cgroup(pid, controller, path, sizeof(path), why,
			sizeof(why)) ||
	    cg_mount(controller, mnt, sizeof(mnt), root, sizeof(root), why,
		     sizeof(why)))
		return qd_errf(err, errlen, "%s: %s", v, why);
	/*
	 * A mount of part of the hierarchy (a container's, or a cgroup
	 * namespace's) shows the cgroups below its root only.
	 */
	rootlen = strlen(root);
	if (strcmp(root, "/")) {
		if (strncmp(path, root, rootlen) ||
		    (path[rootlen] && path[rootlen] != '/'))
			return qd_errf(err, errlen,
				       "%s: pid %d's cgroup %s is outside the "
				       "mount at %s (root %s)",
				       v, (int)pid, path, mnt, root);
		rel = path + rootlen;
	}
	if (!strcmp(rel, "/"))
		rel = "";
	if (snprintf(dir, dirlen, "%s%s", mnt, rel) >= (int)dirlen ||
	    snprintf(top, toplen, "%s", mnt) >= (int)toplen)
		return qd_errf(err, errlen, "%s: %s%s: path too long", v, mnt,
			       rel);
	return 0;
}
