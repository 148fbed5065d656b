/* SPDX-License-Identifier: GPL-2.0-or-later
 * cgroup v2: a device program, through the raw bpf() syscall (no libbpf).
 * One loader (load(), of what cgroup_bpf.c builds), and the attachers of the
 * two v2 layouts (cgroup.h): a child cgroup of ours, or the process's own
 * cgroup in place.
 *
 * The kernel decides a device access in a cgroup by running its effective
 * programs, all of which must allow. Walking up from the cgroup, the first
 * level holding programs always counts; higher levels count only where they
 * were attached with BPF_F_ALLOW_MULTI. A cgroup with programs takes more
 * only with the same flags as those (else EPERM), and without ALLOW_MULTI a
 * new one replaces the one there; nothing can be attached below a program
 * attached with no flag. Slurm's cgroup/v2 (ebpf.c, 24.11 to 26.05) attaches
 * its programs with BPF_F_ALLOW_OVERRIDE to job_N and step_S/user and with
 * no flag to task_T, all before slurmstepd calls our task_post_fork.
 *
 * So wherever ours takes the place of a program in the effective set (one
 * of an ancestor attached with ALLOW_OVERRIDE or no flag, or one it
 * replaces in the same cgroup), ours ends in a tail call to that one, whose
 * verdict then still applies; inherited ALLOW_MULTI programs (systemd's)
 * keep running beside ours.
 *
 * - Child layout: attached with ALLOW_MULTI to a new child cgroup, or, where
 *   the process's cgroup holds a program attached with no flag (nothing can
 *   go below it), in its place there when the process is alone in it.
 * - In place (a cgroup Slurm's cgroup/v2 made): attached to that cgroup with
 *   the flags of what is there already (a later attach of Slurm's there with
 *   its flags then succeeds, never EPERM), else with no flag, as Slurm's own
 *   task-level program: Slurm makes nothing below a task cgroup, and a later
 *   attach of its there would replace ours rather than fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup_bpf.h"
#include "cgroup_file.h"
#include "cgroup_v2.h"
#include "errmsg.h"

#define MAX_PROGS 64 /* effective device programs we can look at */

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static uint64_t ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static int load(const struct qd_dev *deny, size_t n, int map_fd, char *err,
		size_t errlen)
{
	union bpf_attr attr;
	struct cg_bpf_prog p;
	char *log = NULL;
	const char *last;
	int fd, saved;

	if (cg_bpf_build(deny, n, map_fd, &p))
		return qd_errf(err, errlen,
			       "cgroup v2: cannot build a device program for "
			       "%zu devices",
			       n);
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	attr.insns = ptr(p.insn);
	attr.insn_cnt = (uint32_t)p.n;
	attr.license = ptr("GPL");
	snprintf(attr.prog_name, sizeof(attr.prog_name), "qosdeny");
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0 && errno != EPERM && (log = calloc(1, 65536))) {
		/* Again with the verifier's log, to say why. */
		attr.log_level = 1;
		attr.log_buf = ptr(log);
		attr.log_size = 65536;
		fd = sys_bpf(BPF_PROG_LOAD, &attr);
	}
	saved = errno;
	free(p.insn);
	if (fd < 0) {
		last = "";
		if (log) {
			log[65535] = '\0';
			log[strcspn(log, "\n")] = '\0';
			last = log;
		}
		qd_errf(err, errlen, "cgroup v2: bpf(BPF_PROG_LOAD): %s%s%s",
			strerror(saved), *last ? ": " : "", last);
	}
	free(log);
	return fd;
}

/*
 * The device programs of the cgroup open at dirfd: its own (with the flags
 * they were attached with) or the effective ones. *cnt: room in ids, then how
 * many there are.
 */
static int query(int dirfd, bool effective, uint32_t *flags, uint32_t *ids,
		 uint32_t *cnt)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.query.target_fd = (uint32_t)dirfd;
	attr.query.attach_type = BPF_CGROUP_DEVICE;
	attr.query.query_flags = effective ? BPF_F_QUERY_EFFECTIVE : 0;
	attr.query.prog_ids = ptr(ids);
	attr.query.prog_cnt = *cnt;
	if (sys_bpf(BPF_PROG_QUERY, &attr))
		return -1;
	if (flags)
		*flags = attr.query.attach_flags;
	*cnt = attr.query.prog_cnt;
	return 0;
}

static int query_dir(const char *dir, bool effective, uint32_t *flags,
		     uint32_t *ids, uint32_t *cnt, char *err, size_t errlen)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rv;

	if (fd < 0)
		return qd_errf(err, errlen, "cgroup v2: open %s: %s", dir,
			       strerror(errno));
	rv = query(fd, effective, flags, ids, cnt);
	if (rv)
		qd_errf(err, errlen, "cgroup v2: bpf(BPF_PROG_QUERY) on %s: %s",
			dir, strerror(errno));
	close(fd);
	return rv;
}

static int attach(int dirfd, int prog_fd, uint32_t flags)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.target_fd = (uint32_t)dirfd;
	attr.attach_bpf_fd = (uint32_t)prog_fd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	attr.attach_flags = flags;
	return sys_bpf(BPF_PROG_ATTACH, &attr);
}

static int prog_id(int fd, uint32_t *id)
{
	union bpf_attr attr;
	struct bpf_prog_info info;

	memset(&attr, 0, sizeof(attr));
	memset(&info, 0, sizeof(info));
	attr.info.bpf_fd = (uint32_t)fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = ptr(&info);
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr))
		return -1;
	*id = info.id;
	return 0;
}

/* A prog array whose slot 0 holds the program with this id. */
static int chain_to(struct qd_cg_binding *b, uint32_t id, char *err,
		    size_t errlen)
{
	union bpf_attr attr;
	uint32_t key = 0;
	int value;

	memset(&attr, 0, sizeof(attr));
	attr.prog_id = id;
	b->chain_fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &attr);
	if (b->chain_fd < 0)
		return qd_errf(err, errlen,
			       "cgroup v2: bpf(BPF_PROG_GET_FD_BY_ID, %u): %s",
			       id, strerror(errno));
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_PROG_ARRAY;
	attr.key_size = sizeof(key);
	attr.value_size = sizeof(value);
	attr.max_entries = 1;
	snprintf(attr.map_name, sizeof(attr.map_name), "qosdeny_chain");
	b->map_fd = sys_bpf(BPF_MAP_CREATE, &attr);
	if (b->map_fd < 0)
		return qd_errf(err, errlen,
			       "cgroup v2: bpf(BPF_MAP_CREATE): %s",
			       strerror(errno));
	value = b->chain_fd;
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)b->map_fd;
	attr.key = ptr(&key);
	attr.value = ptr(&value);
	attr.flags = BPF_ANY;
	if (sys_bpf(BPF_MAP_UPDATE_ELEM, &attr))
		return qd_errf(err, errlen,
			       "cgroup v2: cannot chain to device program %u "
			       "(bpf(BPF_MAP_UPDATE_ELEM): %s)",
			       id, strerror(errno));
	return 0;
}

/*
 * The nearest cgroup at or above dir (up to the mount at top) holding device
 * programs: where, its attach flags and its first program. *found false when
 * none.
 */
static int nearest(const char *dir, const char *top, bool *found, char *where,
		   size_t wherelen, uint32_t *flags, uint32_t *id, char *err,
		   size_t errlen)
{
	char cur[PATH_MAX], *slash;
	uint32_t ids[MAX_PROGS], cnt;
	size_t toplen = strlen(top);

	*found = false;
	snprintf(cur, sizeof(cur), "%s", dir);
	for (;;) {
		cnt = MAX_PROGS;
		if (query_dir(cur, false, flags, ids, &cnt, err, errlen))
			return -1;
		if (cnt) {
			*found = true;
			*id = ids[0];
			snprintf(where, wherelen, "%s", cur);
			return 0;
		}
		slash = strrchr(cur, '/');
		if (!strcmp(cur, top) || !slash ||
		    (size_t)(slash - cur) < toplen)
			return 0;
		*slash = '\0';
	}
}

static bool listed(uint32_t id, const uint32_t *ids, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/*
 * After attaching at dir: ours is effective there, and so is every program
 * that was effective for the task before, but the one ours tail-calls.
 */
static int verify(const char *dir, uint32_t ours, const uint32_t *before,
		  uint32_t nbefore, uint32_t chained, char *err, size_t errlen)
{
	uint32_t after[MAX_PROGS], n = MAX_PROGS;

	if (query_dir(dir, true, NULL, after, &n, err, errlen))
		return -1;
	if (!listed(ours, after, n))
		return qd_errf(err, errlen,
			       "cgroup v2: device program %u attached to %s "
			       "but not effective there",
			       ours, dir);
	for (uint32_t i = 0; i < nbefore; i++)
		if (before[i] != chained && !listed(before[i], after, n))
			return qd_errf(err, errlen,
				       "cgroup v2: attaching to %s would drop "
				       "device program %u that confines the "
				       "task now",
				       dir, before[i]);
	return 0;
}

static int detach(int dirfd, int prog_fd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.target_fd = (uint32_t)dirfd;
	attr.attach_bpf_fd = (uint32_t)prog_fd;
	attr.attach_type = BPF_CGROUP_DEVICE;
	return sys_bpf(BPF_PROG_DETACH, &attr);
}

/*
 * Takes ours off the cgroup it was attached to: the program it replaced put
 * back (with the same flags, which replaces ours in one step), else ours
 * detached. A cgroup already removed took ours with it.
 */
static int unattach(struct qd_cg_binding *b, char *err, size_t errlen)
{
	int rv = -1;
	uint32_t own[MAX_PROGS], cnt = MAX_PROGS;
	int fd = open(b->attached, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		rv = 0;
		goto fail;
	}
	if (fd < 0) {
		qd_errf(err, errlen, "cgroup v2: open %s: %s", b->attached,
			strerror(errno));
		goto fail;
	}
	/*
	 * Replaced meanwhile (by a later attach of Slurm's with the same
	 * flags): not ours to touch. A detach without ALLOW_MULTI takes
	 * whatever program is there.
	 */
	if (query(fd, false, NULL, own, &cnt) == 0 &&
	    !listed(b->prog_id, own, cnt)) {
		rv = 0;
		goto fail;
	}
	if (b->replaced ? attach(fd, b->chain_fd, b->attach_flags)
			: detach(fd, b->prog_fd)) {
		/* Removed meanwhile (Slurm's rmdir), ours with it. */
		if (errno == ENOENT && access(b->attached, F_OK)) {
			rv = 0;
			goto fail;
		}
		qd_errf(err, errlen, "cgroup v2: bpf(%s) on %s: %s",
			b->replaced ? "BPF_PROG_ATTACH" : "BPF_PROG_DETACH",
			b->attached, strerror(errno));
		goto fail;
	}
	rv = 0;
fail:
	if (!rv)
		b->attached[0] = '\0';
	if (fd >= 0)
		close(fd);
	return rv;
}

/*
 * Where ours goes and with which flags, from the nearest programs at or
 * above parent (where, flags): target is parent itself (*in_place) or a
 * child of it; *chain when ours takes the place of that nearest program in
 * the effective set.
 */
static int plan(struct qd_cg_binding *b, const char *parent, bool found,
		const char *where, uint32_t flags, bool *in_place,
		uint32_t *attach_flags, bool *chain, char *err, size_t errlen)
{
	bool here = found && !strcmp(where, parent);
	char why[PATH_MAX + 256];

	*chain = found && !(flags & BPF_F_ALLOW_MULTI);
	if (found && !here &&
	    !(flags & (BPF_F_ALLOW_MULTI | BPF_F_ALLOW_OVERRIDE)))
		return qd_errf(
		    err, errlen,
		    "cgroup v2: %s holds an exclusive device program, "
		    "so no cgroup below it can get one",
		    where);
	if (b->layout == QD_CG_LAYOUT_V2_IN_PLACE) {
		*in_place = true;
		/* A task's cgroup: no flag, as Slurm's own task level; above
		 * cgroups others attach to: beside theirs. */
		*attach_flags = here ? flags : b->above ? BPF_F_ALLOW_MULTI : 0;
		return 0;
	}
	if (!here || (flags & (BPF_F_ALLOW_MULTI | BPF_F_ALLOW_OVERRIDE))) {
		*in_place = false;
		*attach_flags = BPF_F_ALLOW_MULTI;
		return 0;
	}
	/* The child layout, under an exclusive program in parent itself. */
	if (b->nomove)
		return qd_errf(err, errlen,
			       "cgroup v2: %s holds an exclusive device "
			       "program, so no cgroup below it can get one",
			       where);
	/* Replacing it in place confines all that is in there. */
	switch (cg_holds_only(parent, b->pid, why, sizeof(why))) {
	case 1:
		break;
	case 0:
		return qd_errf(
		    err, errlen,
		    "cgroup v2: %s holds an exclusive device program "
		    "and processes other than pid %d",
		    parent, (int)b->pid);
	default:
		return qd_errf(err, errlen, "cgroup v2: %s", why);
	}
	*in_place = true;
	*attach_flags = 0;
	return 0;
}

int cg_v2_confine(struct qd_cg_binding *b, const char *parent, const char *top,
		  const char *name, const struct qd_dev *deny, size_t n,
		  char *err, size_t errlen)
{
	int rv = -1, fd = -1;
	uint32_t before[MAX_PROGS], nbefore = MAX_PROGS, flags = 0, id = 0;
	uint32_t ours, attach_flags = 0;
	bool found, chain = false, in_place = false;
	char where[PATH_MAX], why[PATH_MAX + 256];
	const char *target;

	if (query_dir(parent, true, NULL, before, &nbefore, err, errlen) ||
	    nearest(parent, top, &found, where, sizeof(where), &flags, &id, err,
		    errlen))
		goto fail;
	if (!found && nbefore) {
		qd_errf(err, errlen,
			"cgroup v2: %s has device programs from cgroups above "
			"the mount at %s, whose attach flags cannot be read",
			parent, top);
		goto fail;
	}
	if (plan(b, parent, found, where, flags, &in_place, &attach_flags,
		 &chain, err, errlen))
		goto fail;
	if (chain && chain_to(b, id, err, errlen))
		goto fail;
	b->prog_fd = load(deny, n, chain ? b->map_fd : -1, err, errlen);
	if (b->prog_fd < 0)
		goto fail;
	if (prog_id(b->prog_fd, &ours)) {
		qd_errf(err, errlen,
			"cgroup v2: bpf(BPF_OBJ_GET_INFO_BY_FD): %s",
			strerror(errno));
		goto fail;
	}
	b->prog_id = ours;
	if (in_place) {
		target = parent;
	} else {
		if (cg_mkchild(parent, name, b->dir, sizeof(b->dir), why,
			       sizeof(why))) {
			b->dir[0] = '\0';
			qd_errf(err, errlen, "cgroup v2: %s", why);
			goto fail;
		}
		target = b->dir;
	}
	fd = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		qd_errf(err, errlen, "cgroup v2: open %s: %s", target,
			strerror(errno));
		goto fail;
	}
	if (attach(fd, b->prog_fd, attach_flags)) {
		qd_errf(err, errlen,
			"cgroup v2: bpf(BPF_PROG_ATTACH) to %s: %s", target,
			strerror(errno));
		goto fail;
	}
	if (in_place) {
		snprintf(b->attached, sizeof(b->attached), "%s", parent);
		b->attach_flags = attach_flags;
		/* Without ALLOW_MULTI ours took the place of the one there. */
		b->replaced = found && !strcmp(where, parent) &&
			      !(attach_flags & BPF_F_ALLOW_MULTI);
	}
	if (verify(target, ours, before, nbefore, chain ? id : 0, err, errlen))
		goto fail;
	if (!in_place && !b->nomove &&
	    cg_move(b->dir, b->pid, why, sizeof(why))) {
		qd_errf(err, errlen, "cgroup v2: %s", why);
		goto fail;
	}
	rv = 0;
fail:
	if (fd >= 0)
		close(fd);
	if (rv) {
		/* Removing the cgroup detaches what is attached to it. */
		if (b->dir[0])
			rmdir(b->dir);
		b->dir[0] = '\0';
		if (b->attached[0])
			unattach(b, why, sizeof(why));
		cg_v2_close(b);
	}
	return rv;
}

int cg_v2_effective(const char *dir, unsigned id, const char *others,
		    int *covers, char *err, size_t errlen)
{
	uint32_t here[MAX_PROGS], n = MAX_PROGS;
	uint32_t there[MAX_PROGS], m = MAX_PROGS;

	if (query_dir(dir, true, NULL, here, &n, err, errlen))
		return -1;
	if (others) {
		if (query_dir(others, true, NULL, there, &m, err, errlen))
			return -1;
		*covers = 1;
		for (uint32_t i = 0; i < m; i++)
			if (!listed(there[i], here, n))
				*covers = 0;
	}
	return listed(id, here, n) ? 1 : 0;
}

int cg_v2_release(struct qd_cg_binding *b, char *err, size_t errlen)
{
	int n;

	if (b->attached[0]) {
		/* Without ours, they could open more than the step's GPUs. */
		n = cg_nprocs(b->attached, err, errlen);
		if (n > 0) {
			errno = EBUSY;
			return qd_errf(err, errlen,
				       "cgroup v2: %s still holds %d "
				       "process%s",
				       b->attached, n, n == 1 ? "" : "es");
		}
		if ((n < 0 && errno != ENOENT) || unattach(b, err, errlen))
			return -1;
	}
	cg_v2_close(b);
	return 0;
}

void cg_v2_close(struct qd_cg_binding *b)
{
	if (b->prog_fd >= 0)
		close(b->prog_fd);
	if (b->map_fd >= 0)
		close(b->map_fd);
	if (b->chain_fd >= 0)
		close(b->chain_fd);
	b->prog_fd = b->map_fd = b->chain_fd = -1;
}
