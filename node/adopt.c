/* SPDX-License-Identifier: GPL-2.0-or-later
 * The records behind pam_qosdeny.so: see adopt.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adopt.h"
#include "atomic_file.h"
#include "errmsg.h"

/* A node name is one path component: no '/', not "." or "..". */
static int valid_node(const char *node)
{
	return *node && !strchr(node, '/') && strcmp(node, ".") &&
	       strcmp(node, "..") && strlen(node) < NAME_MAX - 32;
}

int qd_adopt_path(char *buf, size_t len, const char *dir, const char *node,
		  uint32_t job, const char *ext, char *err, size_t errlen)
{
	if (!valid_node(node))
		return qd_errf(err, errlen, "node name '%s' unusable in %s",
			       node, dir);
	if (snprintf(buf, len, "%s/%s/job_%" PRIu32 ".%s", dir, node, job,
		     ext) >= (int)len)
		return qd_errf(err, errlen, "%s/%s: path too long", dir, node);
	return 0;
}

/* Whoever could write in a directory of these files could put another
 * job's file in the place of this one's, or take it away: both the
 * directory and its node's must be root's, writable by root alone (the
 * files are checked as they are read). */
static int roots_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;
	int saved;

	if (stat(dir, &st)) {
		saved = errno; /* ENOENT: no file of any job there yet */
		qd_errf(err, errlen, "%s: %s", dir, strerror(saved));
		errno = saved;
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		qd_errf(err, errlen, "%s: not a directory", dir);
		errno = ENOTDIR;
		return -1;
	}
	if (st.st_uid != 0 || (st.st_mode & 022)) {
		qd_errf(err, errlen,
			"%s: owned by uid %u, mode %04o: not a directory owned "
			"by root and writable by root alone: refused",
			dir, (unsigned)st.st_uid,
			(unsigned)(st.st_mode & 07777));
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* dir itself, made root's and private if we create it. */
static int make_dir(const char *dir, char *err, size_t errlen)
{
	if (!mkdir(dir, 0700) || errno == EEXIST)
		return roots_dir(dir, err, errlen);
	return qd_errf(err, errlen, "mkdir %s: %s", dir, strerror(errno));
}

int qd_adopt_write(const char *dir, const char *node, uint32_t job,
		   const char *ext, const char *text, char *err, size_t errlen)
{
	char path[PATH_MAX], tmp[PATH_MAX + 16], sub[PATH_MAX];
	/* Under /run, emptied at every boot as the confinements are: nothing
	 * to keep through a crash, so no fsync. A .tmp a killed writer left
	 * is written over. */
	struct qd_atomic_file f = {
	    .dfd = AT_FDCWD,
	    .name = path,
	    .tmp = tmp,
	    .flags = QD_ATOMIC_REUSE_TMP,
	};

	if (qd_adopt_path(path, sizeof(path), dir, node, job, ext, err, errlen))
		return -1;
	snprintf(sub, sizeof(sub), "%s/%s", dir, node);
	if (make_dir(dir, err, errlen) || make_dir(sub, err, errlen))
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!qd_atomic_write(&f, text, strlen(text), err, errlen))
		return 0;
	/* These two worded as the plugin's logs have always had them. */
	if (f.failed == QD_ATOMIC_CREATE)
		qd_errf(err, errlen, "open %s: %s", tmp, strerror(errno));
	else if (f.failed == QD_ATOMIC_RENAME)
		qd_errf(err, errlen, "rename %s: %s", tmp, strerror(errno));
	return -1;
}

int qd_adopt_read(const char *dir, const char *node, uint32_t job,
		  const char *ext, char *buf, size_t len, char *err,
		  size_t errlen)
{
	int rv = -1, saved;
	char path[PATH_MAX], sub[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	if (qd_adopt_path(path, sizeof(path), dir, node, job, ext, err, errlen))
		return -1;
	snprintf(sub, sizeof(sub), "%s/%s", dir, node);
	if (roots_dir(dir, err, errlen) || roots_dir(sub, err, errlen))
		return -1;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		qd_errf(err, errlen, "%s: %s", path, strerror(saved));
		errno = saved;
		return -1;
	}
	/* Whoever could write it would choose the session's confinement. */
	if (fstat(fd, &st) || st.st_uid != 0 || (st.st_mode & 022) ||
	    !S_ISREG(st.st_mode)) {
		qd_errf(err, errlen,
			"%s: not a regular file owned by root and writable "
			"by root alone",
			path);
		errno = EPERM;
		goto fail;
	}
	n = read(fd, buf, len - 1);
	if (n < 0) {
		saved = errno;
		qd_errf(err, errlen, "read %s: %s", path, strerror(saved));
		errno = saved;
		goto fail;
	}
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	rv = 0;
fail:
	close(fd);
	return rv;
}

int qd_adopt_remove(const char *dir, const char *node, uint32_t job,
		    const char *ext, char *err, size_t errlen)
{
	char path[PATH_MAX];

	if (qd_adopt_path(path, sizeof(path), dir, node, job, ext, err, errlen))
		return -1;
	if (unlink(path) && errno != ENOENT)
		return qd_errf(err, errlen, "unlink %s: %s", path,
			       strerror(errno));
	return 0;
}

int qd_adopt_format(const struct qd_adopt_rec *r, char *buf, size_t len)
{
	int n;
	size_t used;

	if (r->refuse[0])
		n = snprintf(buf, len, "refuse=%s\n", r->refuse);
	else if (r->mode == QD_CG_OFF)
		n = snprintf(buf, len, "mode=off\n");
	else
		n = snprintf(buf, len, "mode=%s\nslurm=%d\nprog=%u\ndir=%s\n",
			     qd_cg_mode_name(r->mode), r->slurm ? 1 : 0,
			     r->prog_id, r->dir);
	if (n < 0 || (size_t)n >= len)
		return -1;
	used = (size_t)n;
	if (r->step[0])
		n = snprintf(buf + used, len - used, "step=%s\n", r->step);
	return n < 0 || (size_t)n >= len - used ? -1 : 0;
}

int qd_adopt_parse(const char *text, struct qd_adopt_rec *r, char *err,
		   size_t errlen)
{
	const char *p = text, *nl, *eq;
	char key[16];
	size_t klen, vlen;
	int have_mode = 0;

	memset(r, 0, sizeof(*r));
	r->mode = QD_CG_OFF;
	while (*p) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		eq = memchr(p, '=', (size_t)(nl - p));
		if (!eq || (klen = (size_t)(eq - p)) >= sizeof(key))
			return qd_errf(err, errlen, "bad line '%.*s'",
				       (int)(nl - p), p);
		memcpy(key, p, klen);
		key[klen] = '\0';
		eq++;
		vlen = (size_t)(nl - eq);
		if (!strcmp(key, "refuse")) {
			snprintf(r->refuse, sizeof(r->refuse), "%.*s",
				 (int)vlen, eq);
			if (!r->refuse[0])
				snprintf(r->refuse, sizeof(r->refuse), "?");
			have_mode = 1;
		} else if (!strcmp(key, "mode")) {
			if (vlen == 2 && !strncmp(eq, "v1", 2))
				r->mode = QD_CG_V1;
			else if (vlen == 2 && !strncmp(eq, "v2", 2))
				r->mode = QD_CG_V2;
			else if (vlen == 3 && !strncmp(eq, "off", 3))
				r->mode = QD_CG_OFF;
			else
				return qd_errf(err, errlen, "bad mode '%.*s'",
					       (int)vlen, eq);
			have_mode = 1;
		} else if (!strcmp(key, "slurm")) {
			r->slurm = vlen == 1 && *eq == '1';
		} else if (!strcmp(key, "prog")) {
			r->prog_id = (unsigned)strtoul(eq, NULL, 10);
		} else if (!strcmp(key, "step")) {
			if (vlen >= sizeof(r->step) || *eq != '/')
				return qd_errf(err, errlen, "bad step");
			memcpy(r->step, eq, vlen);
			r->step[vlen] = '\0';
		} else if (!strcmp(key, "dir")) {
			if (vlen >= sizeof(r->dir) || *eq != '/')
				return qd_errf(err, errlen, "bad dir");
			memcpy(r->dir, eq, vlen);
			r->dir[vlen] = '\0';
		} else {
			return qd_errf(err, errlen, "unknown key '%s'", key);
		}
		p = *nl ? nl + 1 : nl;
	}
	if (!have_mode)
		return qd_errf(err, errlen, "no mode");
	if (!r->refuse[0] && r->mode != QD_CG_OFF &&
	    (!r->dir[0] || (r->mode == QD_CG_V2 && !r->prog_id && !r->slurm)))
		return qd_errf(err, errlen, "incomplete record");
	return 0;
}

/*
 * The nodes under dir with job's record (.adopt), or, for job 0, with a
 * directory of their own: how many, the first one's name in node; -1
 * (errno set) when dir cannot be read.
 */
static int nodes_with(const char *dir, uint32_t job, char *node, size_t len)
{
	char path[PATH_MAX];
	struct dirent *e;
	struct stat st;
	int found = 0, n;
	DIR *d = opendir(dir);

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!valid_node(e->d_name))
			continue;
		n = job ? snprintf(path, sizeof(path),
				   "%s/%s/job_%" PRIu32 ".adopt", dir,
				   e->d_name, job)
			: snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (n >= (int)sizeof(path) ||
		    (job ? stat(path, &st)
			 : lstat(path, &st) || !S_ISDIR(st.st_mode)))
			continue;
		if (found++ == 0)
			snprintf(node, len, "%s", e->d_name);
	}
	closedir(d);
	return found;
}

int qd_adopt_find_node(const char *dir, uint32_t job, char *node, size_t len,
		       char *err, size_t errlen)
{
	int found = nodes_with(dir, job, node, len);

	if (found < 0)
		return qd_errf(err, errlen, "%s: %s", dir, strerror(errno));
	if (found == 1)
		return 0;
	if (!found)
		return qd_errf(err, errlen,
			       "no node under %s has job %" PRIu32
			       "'s extern step",
			       dir, job);
	return qd_errf(err, errlen,
		       "%d nodes under %s have job %" PRIu32
		       "'s extern step: give nodename=",
		       found, dir, job);
}

int qd_adopt_counts_dir(const char *dir, const char *node, char *buf,
			size_t len, char *err, size_t errlen)
{
	if (!valid_node(node))
		return qd_errf(err, errlen, "node name '%s' unusable in %s",
			       node, dir);
	if (snprintf(buf, len, "%s/%s", dir, node) >= (int)len)
		return qd_errf(err, errlen, "%s/%s: path too long", dir, node);
	return make_dir(dir, err, errlen) || make_dir(buf, err, errlen) ? -1
									: 0;
}

void qd_adopt_count(const char *dir, const char *node, enum qd_node_count c)
{
	char sub[PATH_MAX];

	if (valid_node(node) &&
	    snprintf(sub, sizeof(sub), "%s/%s", dir, node) < (int)sizeof(sub))
		qd_node_counts_add(sub, c, 1);
}

int qd_adopt_sole_node(const char *dir, char *node, size_t len)
{
	return nodes_with(dir, 0, node, len) == 1 ? 0 : -1;
}
