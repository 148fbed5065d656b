/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny doctor --node: the spool, PrologFlags and the Slurm version here;
 * the spank_qosdeny.so line (doctor_plugstack.c), the GPUs (doctor_gpus.c),
 * cgroups (doctor_cgroup.c) and Redis (doctor_redis.c) with the line's
 * options, as the plugin reads them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm_version.h>

#include "doctor_node.h"
#include "errmsg.h"
#include "spool.h"
#include "spool_unrecorded.h"
#include "usage_report.h"

/* Writes, syncs and removes a file in dir, as the plugin's records are. */
static int try_write(const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX + 64];
	int fd;

	snprintf(path, sizeof(path), "%s/.tmp.doctor.%ld", dir, (long)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, "x", 1) != 1 || fsync(fd)) {
		qd_errf(err, errlen, "cannot write in %s: %s", dir,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	unlink(path);
	return 0;
}

/* File systems held in memory alone: a reboot empties them. */
#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif
#ifndef RAMFS_MAGIC
#define RAMFS_MAGIC 0x858458f6
#endif

/* "tmpfs" or "ramfs" when path is on such a file system, else NULL. */
static const char *in_memory(const char *path)
{
	struct statfs fs;

	if (statfs(path, &fs))
		return NULL;
	if (fs.f_type == TMPFS_MAGIC)
		return "tmpfs";
	if (fs.f_type == RAMFS_MAGIC)
		return "ramfs";
	return NULL;
}

/*
 * A spool on tmpfs loses at each reboot the records of jobs that were
 * running, or not yet sent, when the node went down (docs/gpu-and-usage.md,
 * "Usage reporting"): a warn line, its fix another spool=, or on a node with
 * no disk at all (/, /var and /var/spool all in memory) what is at stake.
 * 1 when it said so.
 */
static int spool_in_memory(struct qd_doctor *d, const char *dir,
			   const char *probe)
{
	const char *fs = in_memory(probe);

	if (!fs)
		return 0;
	if (in_memory("/") && in_memory("/var") && in_memory("/var/spool"))
		qd_doctor_linef(
		    d, QD_DOC_WARN, "spool",
		    "set spool= to a directory on storage that outlives a "
		    "reboot (a local disk, or NFS, each node its own "
		    "directory with %n in the path); else accept those "
		    "losses",
		    "%s: on %s, and this node has no disk: a reboot or crash "
		    "loses the GPU time of the jobs running then and of "
		    "records not yet sent",
		    dir, fs);
	else
		qd_doctor_linef(d, QD_DOC_WARN, "spool",
				"set spool= to a directory on a disk, e.g. "
				"under /var/spool",
				"%s: on %s, which a reboot empties: the GPU "
				"time of jobs running at a crash or reboot "
				"would be lost",
				dir, fs);
	return 1;
}

/* The age of the oldest record as "2h05m". */
static void age(time_t secs, char *out, size_t len)
{
	if (secs >= 86400)
		snprintf(out, len, "%ldd%02ldh", (long)secs / 86400,
			 (long)secs % 86400 / 3600);
	else
		snprintf(out, len, "%ldh%02ldm", (long)secs / 3600,
			 (long)secs % 3600 / 60);
}

/* dir's parent directory, in buf. */
static const char *raw_parent(const char *dir, char *buf, size_t len)
{
	const char *slash = strrchr(dir, '/');

	if (!slash || slash == dir)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int)(slash - dir), dir);
	return buf;
}

/* Records the replay set aside as too old to send (spool.h
 * QD_SPOOL_REPLAY_MAX_S): named, so that someone decides. */
static void aside(struct qd_doctor *d, const char *dir)
{
	char err[1024], names[256] = "";
	struct qd_spool_list l;
	size_t len = 0;

	if (qd_spool_list_aside(dir, &l, err, sizeof(err)) || !l.n) {
		qd_spool_list_free(&l);
		return;
	}
	for (size_t i = 0; i < l.n && i < 3; i++) {
		int w = snprintf(names + len, sizeof(names) - len, "%s%s",
				 i ? ", " : "", l.names[i]);

		if (w < 0 || (size_t)w >= sizeof(names) - len)
			break;
		len += w;
	}
	qd_doctor_linef(d, QD_DOC_WARN, "spool",
			"qosdeny never sends these, since each may have been "
			"counted already: check the job's usage (sacct, "
			"qosdeny share), then delete the file",
			"%s: %zu record%s ended more than %d days ago, set "
			"aside unsent: %s%s",
			dir, l.n, l.n == 1 ? "" : "s", QD_SPOOL_ID_DAYS - 1,
			names, l.n > 3 ? ", ..." : "");
	qd_spool_list_free(&l);
}

/* GPU jobs that ran without a usage record (spool_unrecorded.h): counted,
 * the latest named, so that someone charges them or lets them go. */
static void unrecorded(struct qd_doctor *d, const char *dir)
{
	struct qd_unrecorded u;
	char err[1024];

	if (qd_spool_unrecorded(dir, &u, err, sizeof(err))) {
		qd_doctor_line(d, QD_DOC_WARN, "spool", err,
			       "make it a file of root's, mode 0600");
		return;
	}
	if (!u.n)
		return;
	qd_doctor_linef(d, QD_DOC_WARN, "spool",
			"see slurmd's log for each ('GPU usage not "
			"reported'), charge them by hand if need be, then "
			"delete the file",
			"%s/%s: %s%zu GPU job%s ran without a usage record, "
			"charged nothing; the latest (job, time, why): %s",
			dir, QD_UNRECORDED_FILE, u.full ? "at least " : "", u.n,
			u.n == 1 ? "" : "s", u.last);
}

static void spool(struct qd_doctor *d, const struct qd_site *s,
		  const struct qd_spank_opts *o, const char *node)
{
	char raw[PATH_MAX + 16], dir[PATH_MAX], host[256], err[1024], old[32];
	char parent[PATH_MAX];
	struct qd_spool_list l;
	int64_t oldest = 0;
	struct stat st;

	if (o->spool[0])
		snprintf(raw, sizeof(raw), "%s", o->spool);
	else
		snprintf(raw, sizeof(raw), "%s/qosdeny", s->slurmd_spool_dir);
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "localhost");
	host[strcspn(host, ".")] = '\0';
	if (qd_expand_node_path(raw, node, host, dir, sizeof(dir))) {
		qd_doctor_linef(d, QD_DOC_FAIL, "spool",
				"shorten spool=", "%s: path too long", raw);
		return;
	}
	/* The plugin creates a missing spool (not its parents) at the first
	 * record: the same is tried here and undone. */
	if (stat(dir, &st) && errno == ENOENT) {
		if (mkdir(dir, 0700)) {
			qd_doctor_linef(d, QD_DOC_FAIL, "spool",
					"create its parent directory, owned "
					"by root, or set spool= to one",
					"cannot create %s: %s", dir,
					strerror(errno));
			return;
		}
		rmdir(dir);
		if (!spool_in_memory(d, dir,
				     raw_parent(dir, parent, sizeof(parent))))
			qd_doctor_linef(d, QD_DOC_OK, "spool", NULL,
					"%s: not created yet, can be", dir);
		return;
	}
	if (qd_spool_list(dir, &l, err, sizeof(err)) ||
	    try_write(dir, err, sizeof(err))) {
		qd_doctor_line(d, QD_DOC_FAIL, "spool", err,
			       "make it a directory owned by root, mode 0700, "
			       "on a writable file system");
		return;
	}
	for (size_t i = 0; i < l.n; i++) {
		int64_t t = qd_spool_name_start(l.names[i]);

		if (t && (!oldest || t < oldest))
			oldest = t;
	}
	if (spool_in_memory(d, dir, dir)) {
		qd_spool_list_free(&l);
		return;
	}
	aside(d, dir);
	unrecorded(d, dir);
	age(oldest ? time(NULL) - (time_t)oldest : 0, old, sizeof(old));
	/* A record stays here while its job runs: only old ones are news. */
	qd_doctor_linef(
	    d, oldest && time(NULL) - oldest > 86400 ? QD_DOC_WARN : QD_DOC_OK,
	    "spool", "check 'redis' above, then run 'qosdeny flush'",
	    "%s: writable, %zu record%s waiting%s%s%s", dir, l.n,
	    l.n == 1 ? "" : "s", l.n ? ", the oldest of a job started " : "",
	    l.n ? old : "", l.n ? " ago" : "");
	qd_spool_list_free(&l);
}

/* Whether sshd's PAM stack has pam_qosdeny, which needs Contain. */
static bool pam_uses_qosdeny(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/etc/pam.d/sshd", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = line[strspn(line, " \t")] != '#' &&
			strstr(line, "pam_qosdeny");
	fclose(f);
	return found;
}

/* Alloc: the job prolog, hence the usage record, runs on every node of the
 * job at allocation (docs/gpu-and-usage.md, Usage reporting); Contain: ssh
 * sessions are adopted into the job (docs/gpu-and-usage.md, Adopted ssh
 * sessions). */
static void prolog_flags(struct qd_doctor *d, const struct qd_doctor_conf *c)
{
	const char *fix = "set PrologFlags=Alloc (Alloc,Contain for ssh "
			  "into jobs) in slurm.conf, then restart slurmctld "
			  "and slurmd";

	if (!c->loaded)
		qd_doctor_linef(d, QD_DOC_WARN, "prolog-flags",
				"start slurmctld, or run doctor where it runs",
				"not checked: %s", c->err);
	else if (!c->prolog_alloc)
		qd_doctor_line(d, QD_DOC_WARN, "prolog-flags",
			       "no Alloc: the prolog runs at a node's first "
			       "step, so a node where no step runs reports "
			       "no GPU usage",
			       fix);
	else if (!c->prolog_contain && pam_uses_qosdeny())
		qd_doctor_line(d, QD_DOC_WARN, "prolog-flags",
			       "no Contain, but /etc/pam.d/sshd uses "
			       "pam_qosdeny: ssh sessions are not adopted",
			       fix);
	else
		qd_doctor_linef(d, QD_DOC_OK, "prolog-flags", NULL, "%s",
				c->prolog_contain
				    ? "Alloc,Contain"
				    : "Alloc (no Contain: "
				      "sessions are not adopted)");
}

/* The plugins were built against one Slurm's structures (docs/versions.md,
 * Supported Slurm versions): the running slurmd must be that version. */
static void version(struct qd_doctor *d)
{
	char line[256] = "", v[64] = "", built[32];
	FILE *p = popen("slurmd -V 2>&1", "re");

	/* slurmd -V prints "slurm 22.05.8", as slurm_version.h's number. */
	snprintf(built, sizeof(built), "%02d.%02d.%d",
		 SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
		 SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
		 SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
	if (p) {
		if (!fgets(line, sizeof(line), p))
			line[0] = '\0';
		pclose(p);
	}
	line[strcspn(line, "\n")] = '\0';
	/* "slurm 26.05.3" (SchedMD's build), Debian's "slurm-wlm 22.05.8" */
	if (strncmp(line, "slurm", 5) || sscanf(line, "%*s %63s", v) != 1)
		qd_doctor_linef(d, QD_DOC_WARN, "slurm-version",
				"put slurmd on PATH",
				"built for Slurm %s; 'slurmd -V' gave: %s",
				built, line[0] ? line : "nothing");
	else if (strcmp(v, built))
		qd_doctor_linef(d, QD_DOC_FAIL, "slurm-version",
				"install the qosdeny built for this Slurm "
				"(make; make install)",
				"built for Slurm %s, slurmd is %s", built, v);
	else
		qd_doctor_linef(d, QD_DOC_OK, "slurm-version", NULL,
				"built for Slurm %s, slurmd is %s", built, v);
}

void qd_doctor_node(struct qd_doctor *d, const struct qd_site *s,
		    const struct qd_doctor_conf *c, const char *node,
		    const char *site_err)
{
	struct qd_spank_opts o;
	struct qd_redis_config cfg;
	char plugin[2 * PATH_MAX];

	qd_doctor_plugstack(d, s, c, site_err, &o, plugin, sizeof(plugin));
	qd_doctor_gpus(d, s, &o, node, plugin);
	qd_doctor_cgroup(d, s, c, &o, node);
	qd_spank_opts_redis_config(&o, &cfg);
	qd_doctor_redis(d, &cfg);
	spool(d, s, &o, node);
	prolog_flags(d, c);
	version(d);
}
