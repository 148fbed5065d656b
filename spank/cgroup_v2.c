/*
 * cgroup v2: a device program, through the raw bpf() syscall (no libbpf).
 *
 * The kernel decides a device access in a cgroup by running its effective
 * programs, all of which must allow. Walking up from the cgroup, the first
 * level holding programs always counts; higher levels count only where they
 * were attached with BPF_F_ALLOW_MULTI. So ours, attached with ALLOW_MULTI to
 * a child of the task's cgroup, runs beside every inherited ALLOW_MULTI
 * program, but would push out the nearest inherited one when that was
 * attached with ALLOW_OVERRIDE (Slurm 22.05's job and step programs) or with
 * no flag (Slurm's task program, which also forbids programs below it). In
 * those cases our program ends in a tail call to that one, so its verdict
 * still applies, and where it was exclusive ours takes its place in the same
 * cgroup. The effective list is checked after attaching either way.
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

#include "cgroup_priv.h"

#define MAX_PROGS 64 /* effective device programs we can look at */

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static uint64_t ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

struct prog {
	struct bpf_insn *insn;
	size_t n;
};

static void emit(struct prog *p, uint8_t code, uint8_t dst, uint8_t src,
		 int16_t off, int32_t imm)
{
	struct bpf_insn *i = &p->insn[p->n++];

	memset(i, 0, sizeof(*i));
	i->code = code;
	i->dst_reg = dst;
	i->src_reg = src;
	i->off = off;
	i->imm = imm;
}

/*
 * r1 is the struct bpf_cgroup_dev_ctx. Refuses (0) any access to a
 * character device in deny; otherwise allows (1), or with map_fd >= 0
 * tail-calls the program in slot 0 of that prog array and refuses if that
 * call cannot be made.
 */
static int build(struct prog *p, const struct qd_dev *deny, size_t n,
		 int map_fd)
{
	size_t i;

	if (n > 8192)
		return -1; /* the jump below is 16 bits */
	p->n = 0;
	p->insn = calloc(5 + 4 * n + 6, sizeof(*p->insn));
	if (!p->insn)
		return -1;
	emit(p, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1,
	     offsetof(struct bpf_cgroup_dev_ctx, access_type), 0);
	/* access_type is (access << 16) | type */
	emit(p, BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff);
	emit(p, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, BPF_REG_1,
	     offsetof(struct bpf_cgroup_dev_ctx, major), 0);
	emit(p, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_4, BPF_REG_1,
	     offsetof(struct bpf_cgroup_dev_ctx, minor), 0);
	emit(p, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, (int16_t)(4 * n),
	     BPF_DEVCG_DEV_CHAR);
	for (i = 0; i < n; i++) {
		emit(p, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_3, 0, 3,
		     (int32_t)deny[i].major);
		emit(p, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 2,
		     (int32_t)deny[i].minor);
		emit(p, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
		emit(p, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	}
	if (map_fd >= 0) {
		/* bpf_tail_call(ctx, map, 0); r1 still holds ctx */
		emit(p, BPF_LD | BPF_DW | BPF_IMM, BPF_REG_2, BPF_PSEUDO_MAP_FD,
		     0, map_fd);
		emit(p, 0, 0, 0, 0, 0);
		emit(p, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, 0);
		emit(p, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_tail_call);
		emit(p, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	} else {
		emit(p, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1);
	}
	emit(p, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return 0;
}

static int load(const struct qd_dev *deny, size_t n, int map_fd, char *err,
		size_t errlen)
{
	union bpf_attr attr;
	struct prog p;
	char *log = NULL;
	const char *last;
	int fd, saved;

	if (build(&p, deny, n, map_fd))
		return cg_err(err, errlen,
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
		cg_err(err, errlen, "cgroup v2: bpf(BPF_PROG_LOAD): %s%s%s",
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
		return cg_err(err, errlen, "cgroup v2: open %s: %s", dir,
			      strerror(errno));
	rv = query(fd, effective, flags, ids, cnt);
	if (rv)
		cg_err(err, errlen, "cgroup v2: bpf(BPF_PROG_QUERY) on %s: %s",
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
		return cg_err(err, errlen,
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
		return cg_err(err, errlen, "cgroup v2: bpf(BPF_MAP_CREATE): %s",
			      strerror(errno));
	value = b->chain_fd;
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)b->map_fd;
	attr.key = ptr(&key);
	attr.value = ptr(&value);
	attr.flags = BPF_ANY;
	if (sys_bpf(BPF_MAP_UPDATE_ELEM, &attr))
		return cg_err(err, errlen,
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
		return cg_err(err, errlen,
			      "cgroup v2: device program %u attached to %s "
			      "but not effective there",
			      ours, dir);
	for (uint32_t i = 0; i < nbefore; i++)
		if (before[i] != chained && !listed(before[i], after, n))
			return cg_err(err, errlen,
				      "cgroup v2: attaching to %s would drop "
				      "device program %u that confines the "
				      "task now",
				      dir, before[i]);
	return 0;
}

/* Puts the exclusive program ours replaced back in its cgroup. */
static int restore(struct qd_cg_binding *b, char *err, size_t errlen)
{
	int rv = -1;
	int fd = open(b->replaced, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		rv = 0; /* removed, and our program with it */
		goto fail;
	}
	if (fd < 0) {
		cg_err(err, errlen, "cgroup v2: open %s: %s", b->replaced,
		       strerror(errno));
		goto fail;
	}
	if (attach(fd, b->chain_fd, 0)) {
		cg_err(err, errlen, "cgroup v2: bpf(BPF_PROG_ATTACH) to %s: %s",
		       b->replaced, strerror(errno));
		goto fail;
	}
	rv = 0;
fail:
	if (!rv)
		b->replaced[0] = '\0';
	if (fd >= 0)
		close(fd);
	return rv;
}

int cg_v2_confine(struct qd_cg_binding *b, const char *parent, const char *top,
		  const char *name, const struct qd_dev *deny, size_t n,
		  char *err, size_t errlen)
{
	int rv = -1, fd = -1;
	uint32_t before[MAX_PROGS], nbefore = MAX_PROGS, flags = 0, id = 0;
	uint32_t ours;
	bool found, chain, exclusive = false;
	char where[PATH_MAX], why[PATH_MAX + 256];
	const char *target;

	if (query_dir(parent, true, NULL, before, &nbefore, err, errlen) ||
	    nearest(parent, top, &found, where, sizeof(where), &flags, &id, err,
		    errlen))
		goto fail;
	if (!found && nbefore) {
		cg_err(err, errlen,
		       "cgroup v2: %s has device programs from cgroups above "
		       "the mount at %s, whose attach flags cannot be read",
		       parent, top);
		goto fail;
	}
	chain = found && !(flags & BPF_F_ALLOW_MULTI);
	if (chain && !(flags & BPF_F_ALLOW_OVERRIDE)) {
		if (strcmp(where, parent)) {
			cg_err(err, errlen,
			       "cgroup v2: %s holds an exclusive device "
			       "program, so no cgroup below it can get one",
			       where);
			goto fail;
		}
		if (b->nomove) {
			cg_err(err, errlen,
			       "cgroup v2: %s holds an exclusive device "
			       "program, so no cgroup below it can get one",
			       where);
			goto fail;
		}
		/* Replacing it in place confines all that is in there. */
		switch (cg_holds_only(parent, b->pid, why, sizeof(why))) {
		case 1:
			break;
		case 0:
			cg_err(
			    err, errlen,
			    "cgroup v2: %s holds an exclusive device program "
			    "and processes other than pid %d",
			    parent, (int)b->pid);
			goto fail;
		default:
			cg_err(err, errlen, "cgroup v2: %s", why);
			goto fail;
		}
		exclusive = true;
	}
	if (chain && chain_to(b, id, err, errlen))
		goto fail;
	b->prog_fd = load(deny, n, chain ? b->map_fd : -1, err, errlen);
	if (b->prog_fd < 0)
		goto fail;
	if (prog_id(b->prog_fd, &ours)) {
		cg_err(err, errlen,
		       "cgroup v2: bpf(BPF_OBJ_GET_INFO_BY_FD): %s",
		       strerror(errno));
		goto fail;
	}
	if (exclusive) {
		target = parent;
	} else {
		if (cg_mkchild(parent, name, b->dir, sizeof(b->dir), why,
			       sizeof(why))) {
			b->dir[0] = '\0';
			cg_err(err, errlen, "cgroup v2: %s", why);
			goto fail;
		}
		target = b->dir;
	}
	fd = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		cg_err(err, errlen, "cgroup v2: open %s: %s", target,
		       strerror(errno));
		goto fail;
	}
	/* Exclusive: same flags as the one there, which replaces it. */
	if (attach(fd, b->prog_fd, exclusive ? 0 : BPF_F_ALLOW_MULTI)) {
		cg_err(err, errlen, "cgroup v2: bpf(BPF_PROG_ATTACH) to %s: %s",
		       target, strerror(errno));
		goto fail;
	}
	if (exclusive)
		snprintf(b->replaced, sizeof(b->replaced), "%s", parent);
	if (verify(target, ours, before, nbefore, chain ? id : 0, err, errlen))
		goto fail;
	b->prog_id = ours;
	if (!exclusive && !b->nomove &&
	    cg_move(b->dir, b->pid, why, sizeof(why))) {
		cg_err(err, errlen, "cgroup v2: %s", why);
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
		if (b->replaced[0])
			restore(b, why, sizeof(why));
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

	if (b->replaced[0]) {
		/* The replaced program confines less than ours did. */
		n = cg_nprocs(b->replaced, err, errlen);
		if (n > 0) {
			errno = EBUSY;
			return cg_err(err, errlen,
				      "cgroup v2: %s still holds %d "
				      "process%s",
				      b->replaced, n, n == 1 ? "" : "es");
		}
		if ((n < 0 && errno != ENOENT) || restore(b, err, errlen))
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
