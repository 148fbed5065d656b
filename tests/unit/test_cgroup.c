/* SPDX-License-Identifier: GPL-2.0-or-later
 * The cgroup module on this machine's real cgroups, with fake GPUs: char
 * devices 195:N made by mknod in a temporary directory. No driver is behind
 * them, so an open() the cgroup allows fails with ENXIO and one it refuses
 * with EPERM; that difference is what is asserted. Each test confines a
 * child process that waits on a pipe, then opens every device and reports
 * the errno of each.
 *
 * Needs root, and for each suite its kind of cgroup; skipped otherwise.
 * Every cgroup made here is named after the test process, and the fixture's
 * teardown removes them and kills the child even when an assertion fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "cgroup.h"
#include "cgroup_deny.h"
#include "cgroup_file.h"
#include "cgroup_locate.h"
#include "step_cgroup.h"

#define NGPU	  4
#define GPU_MAJOR 195
#define BIG	  (PATH_MAX + 128) /* a parent below and a file name */

/* What the task opens, in this order; GPUs first. */
static const char *const probe_names[] = {
    "nvidia0",	 "nvidia1",	   "nvidia2",	"nvidia3",
    "nvidiactl", "nvidia-modeset", "/dev/null",
};
#define NPROBE	  (sizeof(probe_names) / sizeof(*probe_names))
#define P_CTL	  4
#define P_MODESET 5
#define P_NULL	  6

static char devdir[64];
static struct qd_paths gpus, allowed;
static pid_t task = -1, other = -1;
static int go_w = -1, res_r = -1;
static struct qd_cg_binding *binding;
static char name[64];
static char parent[PATH_MAX + 32];  /* a cgroup made by the test, or "" */
static char parent2[PATH_MAX + 32]; /* another, in the other hierarchy */
static char err[1024];
/* Cgroups made below parent by a test, removed deepest first. */
static char made[16][2 * PATH_MAX + 64];
static int nmade;
/* Stand-ins for slurmstepd (slurm_tree()), one per step made. */
static pid_t stepds[4] = {-1, -1, -1, -1};
static int nstepds;

static void dev_path(char *buf, size_t len, const char *base)
{
	snprintf(buf, len, "%s/%s", devdir, base);
}

static void make_dev(const char *base, mode_t type, unsigned min)
{
	char p[128];

	dev_path(p, sizeof(p), base);
	cr_assert_eq(mknod(p, type | 0666, makedev(GPU_MAJOR, min)), 0,
		     "mknod %s: %s", p, strerror(errno));
}

static void setup(void)
{
	char p[128];

	if (geteuid() != 0)
		cr_skip_test("needs root (mknod, cgroups)");
	snprintf(devdir, sizeof(devdir), "/tmp/qd-cgtest.XXXXXX");
	cr_assert(mkdtemp(devdir), "mkdtemp: %s", strerror(errno));
	chmod(devdir, 0755); /* for the test run as nobody */
	for (unsigned i = 0; i < NGPU; i++) {
		snprintf(p, sizeof(p), "nvidia%u", i);
		make_dev(p, S_IFCHR, i);
		dev_path(p, sizeof(p), probe_names[i]);
		qd_paths_add(&gpus, p);
	}
	make_dev("nvidiactl", S_IFCHR, 255);
	make_dev("nvidia-modeset", S_IFCHR, 254);
	make_dev("notadev", S_IFREG, 0);
	snprintf(name, sizeof(name), QD_CG_PREFIX "test_%d", (int)getpid());
}

static void reap(pid_t *pid)
{
	if (*pid > 0) {
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
	}
	*pid = -1;
}

static void teardown(void)
{
	char p[128], child[BIG];
	const char *const files[] = {"nvidia0", "nvidia1",   "nvidia2",
				     "nvidia3", "nvidiactl", "nvidia-modeset",
				     "notadev"};

	reap(&task);
	reap(&other);
	while (nstepds > 0)
		reap(&stepds[--nstepds]);
	if (go_w >= 0)
		close(go_w);
	if (res_r >= 0)
		close(res_r);
	go_w = res_r = -1;
	if (binding && qd_cg_release(binding, err, sizeof(err))) {
		fprintf(stderr, "teardown: %s\n", err);
		qd_cg_forget(binding);
	}
	binding = NULL;
	while (nmade > 0)
		if (rmdir(made[--nmade]) && errno != ENOENT)
			fprintf(stderr, "teardown: rmdir %s: %s\n", made[nmade],
				strerror(errno));
	if (parent[0]) {
		snprintf(child, sizeof(child), "%s/%s", parent, name);
		rmdir(child);
		snprintf(child, sizeof(child), "%s/" QD_CG_PREFIX "stale",
			 parent);
		rmdir(child);
		snprintf(child, sizeof(child), "%s/" QD_CG_PREFIX "busy",
			 parent);
		rmdir(child);
		if (rmdir(parent) && errno != ENOENT)
			fprintf(stderr, "teardown: rmdir %s: %s\n", parent,
				strerror(errno));
		parent[0] = '\0';
	}
	if (parent2[0] && rmdir(parent2) && errno != ENOENT)
		fprintf(stderr, "teardown: rmdir %s: %s\n", parent2,
			strerror(errno));
	parent2[0] = '\0';
	if (devdir[0]) {
		for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
			dev_path(p, sizeof(p), files[i]);
			unlink(p);
		}
		rmdir(devdir);
	}
	qd_paths_free(&gpus);
	qd_paths_free(&allowed);
}

/* A child that waits for "go", then opens every probe and reports. */
static pid_t spawn(void)
{
	int go[2], res[2], e, fd;
	char c, p[128];
	pid_t pid;

	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(res, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(go[1]);
		close(res[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		for (size_t i = 0; i < NPROBE; i++) {
			if (probe_names[i][0] == '/')
				snprintf(p, sizeof(p), "%s", probe_names[i]);
			else
				dev_path(p, sizeof(p), probe_names[i]);
			fd = open(p, O_RDWR | O_CLOEXEC);
			e = fd >= 0 ? 0 : errno;
			if (fd >= 0)
				close(fd);
			if (write(res[1], &e, sizeof(e)) != sizeof(e))
				_exit(1);
		}
		_exit(0);
	}
	close(go[0]);
	close(res[1]);
	go_w = go[1];
	res_r = res[0];
	return pid;
}

/* Lets the task run its probes; errs[i] is probe i's errno (0: opened). */
static void run(int *errs)
{
	int status;

	cr_assert_eq(write(go_w, "g", 1), 1);
	for (size_t i = 0; i < NPROBE; i++)
		cr_assert_eq(read(res_r, &errs[i], sizeof(*errs)),
			     sizeof(*errs), "task died before probe %zu", i);
	cr_assert_eq(waitpid(task, &status, 0), task);
	task = -1;
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void allow(unsigned gpu)
{
	qd_paths_add(&allowed, gpus.v[gpu]);
}

static const char *errname(int e)
{
	return e == 0	    ? "opened"
	       : e == EPERM ? "EPERM"
	       : e == ENXIO ? "ENXIO"
			    : strerror(e);
}

/*
 * The GPUs in the mask open as allocated (ENXIO), the others are refused
 * (EPERM); control devices reach the (absent) driver; /dev/null opens.
 */
static void expect(const int *errs, unsigned allowed_mask)
{
	for (unsigned i = 0; i < NGPU; i++) {
		int want = (allowed_mask & (1u << i)) ? ENXIO : EPERM;

		cr_expect_eq(errs[i], want, "%s: %s, expected %s",
			     probe_names[i], errname(errs[i]), errname(want));
	}
	cr_expect_eq(errs[P_CTL], ENXIO, "nvidiactl: %s", errname(errs[P_CTL]));
	cr_expect_eq(errs[P_MODESET], ENXIO, "nvidia-modeset: %s",
		     errname(errs[P_MODESET]));
	cr_expect_eq(errs[P_NULL], 0, "/dev/null: %s", errname(errs[P_NULL]));
}

/* The cgroup dir of this test process: v1 devices or (NULL) v2. */
static bool own_dir(const char *controller, char *dir, size_t len)
{
	char top[PATH_MAX], why[512];

	return !cg_dir_of(getpid(), controller, dir, len, top, sizeof(top), why,
			  sizeof(why));
}

static void need(enum qd_cg_mode mode)
{
	char dir[PATH_MAX];

	if (!own_dir(mode == QD_CG_V1 ? "devices" : NULL, dir, sizeof(dir)))
		cr_skip_test("no %s cgroup here", qd_cg_mode_name(mode));
}

static const char *controller_of(enum qd_cg_mode mode)
{
	return mode == QD_CG_V1 ? "devices" : NULL;
}

/* A cgroup "qdtest_PID" beside... under this process's own; task moved in. */
static void make_parent(enum qd_cg_mode mode, pid_t pid)
{
	char dir[PATH_MAX];

	cr_assert(own_dir(controller_of(mode), dir, sizeof(dir)));
	snprintf(parent, sizeof(parent), "%s/qdtest_%d", dir, (int)getpid());
	cr_assert_eq(mkdir(parent, 0755), 0, "mkdir %s: %s", parent,
		     strerror(errno));
	if (pid > 0)
		cr_assert_eq(cg_move(parent, pid, err, sizeof(err)), 0, "%s",
			     err);
}

static void write_rule(const char *file, const char *rule)
{
	char p[BIG];

	snprintf(p, sizeof(p), "%s/%s", parent, file);
	cr_assert_eq(cg_write(p, rule, err, sizeof(err)), 0, "%s", err);
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* Confines the task allowing the GPUs in mask, probes, releases, checks. */
static void confine_and_probe(enum qd_cg_mode mode, unsigned mask)
{
	int errs[NPROBE];
	char dir[PATH_MAX];

	need(mode);
	for (unsigned i = 0; i < NGPU; i++)
		if (mask & (1u << i))
			allow(i);
	task = spawn();
	cr_assert_eq(qd_cg_confine(task, mode, name, &gpus, &allowed, &binding,
				   err, sizeof(err)),
		     0, "%s", err);
	if (mask == (1u << NGPU) - 1) {
		cr_assert_null(binding, "nothing to deny, nothing made");
	} else {
		cr_assert_not_null(binding);
		cr_assert_eq(binding->mode, mode);
		cr_assert_eq(binding->ndenied, NGPU - __builtin_popcount(mask));
		cr_assert(exists(binding->dir), "%s", binding->dir);
	}
	run(errs);
	expect(errs, mask);
	if (binding) {
		snprintf(dir, sizeof(dir), "%s", binding->dir);
		cr_assert_eq(qd_cg_release(binding, err, sizeof(err)), 0, "%s",
			     err);
		binding = NULL;
		cr_assert_not(exists(dir), "%s left behind", dir);
	}
}

/* ---- cgroup v1 ---- */

TestSuite(cgroup_v1, .init = setup, .fini = teardown);

Test(cgroup_v1, no_gpu_allowed)
{
	confine_and_probe(QD_CG_V1, 0);
}

Test(cgroup_v1, one_gpu_allowed)
{
	confine_and_probe(QD_CG_V1, 1u << 2);
}

Test(cgroup_v1, two_gpus_allowed)
{
	confine_and_probe(QD_CG_V1, (1u << 0) | (1u << 3));
}

Test(cgroup_v1, all_gpus_allowed)
{
	confine_and_probe(QD_CG_V1, 0xf);
}

Test(cgroup_v1, control_devices_in_the_gpu_list_stay_usable)
{
	char p[128];

	dev_path(p, sizeof(p), "nvidiactl");
	qd_paths_add(&gpus, p);
	dev_path(p, sizeof(p), "nvidia-modeset");
	qd_paths_add(&gpus, p);
	confine_and_probe(QD_CG_V1, 1u << 1);
}

Test(cgroup_v1, writes_deny_rules_into_a_child_of_the_task_cgroup)
{
	char rules[256] = "", p[BIG];
	FILE *f;

	need(QD_CG_V1);
	task = spawn();
	make_parent(QD_CG_V1, task);
	allow(0);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V1, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	snprintf(p, sizeof(p), "%s/%s", parent, name);
	cr_assert_str_eq(binding->dir, p);
	/* The task left the parent for the child. */
	cr_assert_eq(cg_holds_only(p, task, err, sizeof(err)), 1);
	snprintf(p, sizeof(p), "%s/%s/devices.list", parent, name);
	f = fopen(p, "r");
	cr_assert_not_null(f);
	cr_assert(fgets(rules, sizeof(rules), f));
	fclose(f);
	/* Default allow with our denies as exceptions (not listed). */
	cr_assert_str_eq(rules, "a *:* rwm\n");
}

Test(cgroup_v1, never_loosens_what_the_parent_denies)
{
	int errs[NPROBE];

	need(QD_CG_V1);
	task = spawn();
	/* As Slurm's ConstrainDevices would: GPU 1 not this task's. */
	make_parent(QD_CG_V1, task);
	write_rule("devices.deny", "c 195:1 rwm\n");
	allow(0);
	allow(1);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V1, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	run(errs);
	expect(errs, 1u << 0);
}

Test(cgroup_v1, narrows_an_allow_list_parent)
{
	int errs[NPROBE];
	const char *const rules[] = {"c 195:0 rwm\n",	"c 195:1 rwm\n",
				     "c 195:2 rwm\n",	"c 195:3 rwm\n",
				     "c 195:254 rwm\n", "c 195:255 rwm\n",
				     "c 1:3 rwm\n"};

	need(QD_CG_V1);
	task = spawn();
	make_parent(QD_CG_V1, 0);
	write_rule("devices.deny", "a\n");
	for (size_t i = 0; i < sizeof(rules) / sizeof(*rules); i++)
		write_rule("devices.allow", rules[i]);
	cr_assert_eq(cg_move(parent, task, err, sizeof(err)), 0, "%s", err);
	allow(2);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V1, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	run(errs);
	expect(errs, 1u << 2);
}

Test(cgroup_v1, refuses_a_wildcard_it_cannot_narrow)
{
	char p[BIG];

	need(QD_CG_V1);
	task = spawn();
	make_parent(QD_CG_V1, 0);
	write_rule("devices.deny", "a\n");
	write_rule("devices.allow", "c 195:* rwm\n");
	write_rule("devices.allow", "c 1:3 rwm\n");
	cr_assert_eq(cg_move(parent, task, err, sizeof(err)), 0, "%s", err);
	allow(2);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V1, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     -1);
	cr_assert_null(binding);
	cr_assert(strstr(err, "still allows c 195:0") &&
		      strstr(err, "'c 195:* rwm'"),
		  "%s", err);
	snprintf(p, sizeof(p), "%s/%s", parent, name);
	cr_assert_not(exists(p), "%s left behind", p);
	/* The task stayed where it was. */
	cr_assert_eq(cg_holds_only(parent, task, err, sizeof(err)), 1);
}

Test(cgroup_v1, replaces_a_stale_child_of_the_same_name)
{
	char p[BIG], q[BIG + 16];
	int errs[NPROBE];

	need(QD_CG_V1);
	task = spawn();
	make_parent(QD_CG_V1, task);
	/* A crashed step's: it denied GPU 2, which this step owns. */
	snprintf(p, sizeof(p), "%s/%s", parent, name);
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(q, sizeof(q), "%s/devices.deny", p);
	cr_assert_eq(cg_write(q, "c 195:2 rwm\n", err, sizeof(err)), 0);
	allow(2);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V1, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	run(errs);
	expect(errs, 1u << 2);
}

Test(cgroup_v1, release_leaves_a_cgroup_with_processes_in_place)
{
	need(QD_CG_V1);
	task = spawn();
	cr_assert_eq(qd_cg_confine(task, QD_CG_V1, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(qd_cg_release(binding, err, sizeof(err)), -1);
	cr_assert_eq(errno, EBUSY);
	cr_assert(strstr(err, "still holds 1 process"), "%s", err);
	cr_assert(exists(binding->dir));
	reap(&task);
	cr_assert_eq(qd_cg_release(binding, err, sizeof(err)), 0, "%s", err);
	binding = NULL;
}

/* ---- cgroup v2 ---- */

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

/*
 * A device program of our own, as Slurm or systemd would attach: refuses
 * c 195:minor, allows the rest. Returns its fd.
 */
static int other_prog(unsigned minor)
{
	struct bpf_insn insn[] = {
	    {.code = BPF_LDX | BPF_MEM | BPF_W, .dst_reg = 2, .src_reg = 1},
	    {.code = BPF_ALU64 | BPF_AND | BPF_K, .dst_reg = 2, .imm = 0xffff},
	    {.code = BPF_LDX | BPF_MEM | BPF_W,
	     .dst_reg = 3,
	     .src_reg = 1,
	     .off = 4},
	    {.code = BPF_LDX | BPF_MEM | BPF_W,
	     .dst_reg = 4,
	     .src_reg = 1,
	     .off = 8},
	    {.code = BPF_JMP | BPF_JNE | BPF_K,
	     .dst_reg = 2,
	     .off = 4,
	     .imm = BPF_DEVCG_DEV_CHAR},
	    {.code = BPF_JMP | BPF_JNE | BPF_K,
	     .dst_reg = 3,
	     .off = 3,
	     .imm = GPU_MAJOR},
	    {.code = BPF_JMP | BPF_JNE | BPF_K,
	     .dst_reg = 4,
	     .off = 2,
	     .imm = (int)minor},
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0},
	    {.code = BPF_JMP | BPF_EXIT},
	    {.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 1},
	    {.code = BPF_JMP | BPF_EXIT},
	};
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	a.insns = (uint64_t)(uintptr_t)insn;
	a.insn_cnt = sizeof(insn) / sizeof(*insn);
	a.license = (uint64_t)(uintptr_t) "GPL";
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	cr_assert_geq(fd, 0, "BPF_PROG_LOAD: %s", strerror(errno));
	return fd;
}

/* Attaches a program refusing c 195:minor to dir; returns its id. */
static uint32_t attach_at(const char *dir, unsigned minor, uint32_t flags)
{
	union bpf_attr a;
	struct bpf_prog_info info;
	int prog = other_prog(minor);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	cr_assert_geq(fd, 0);
	memset(&a, 0, sizeof(a));
	a.target_fd = (uint32_t)fd;
	a.attach_bpf_fd = (uint32_t)prog;
	a.attach_type = BPF_CGROUP_DEVICE;
	a.attach_flags = flags;
	cr_assert_eq(sys_bpf(BPF_PROG_ATTACH, &a), 0,
		     "BPF_PROG_ATTACH to %s (flags %u): %s", dir, flags,
		     strerror(errno));
	memset(&a, 0, sizeof(a));
	memset(&info, 0, sizeof(info));
	a.info.bpf_fd = (uint32_t)prog;
	a.info.info_len = sizeof(info);
	a.info.info = (uint64_t)(uintptr_t)&info;
	cr_assert_eq(sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a), 0);
	close(fd);
	close(prog);
	return info.id;
}

static void attach_other(unsigned minor, uint32_t flags)
{
	attach_at(parent, minor, flags);
}

/* The ids of the programs attached to dir itself. */
static uint32_t own_progs(const char *dir, uint32_t *ids, uint32_t *flags)
{
	union bpf_attr a;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	cr_assert_geq(fd, 0);
	memset(&a, 0, sizeof(a));
	a.query.target_fd = (uint32_t)fd;
	a.query.attach_type = BPF_CGROUP_DEVICE;
	a.query.prog_ids = (uint64_t)(uintptr_t)ids;
	a.query.prog_cnt = 8;
	cr_assert_eq(sys_bpf(BPF_PROG_QUERY, &a), 0, "BPF_PROG_QUERY: %s",
		     strerror(errno));
	close(fd);
	*flags = a.query.attach_flags;
	return a.query.prog_cnt;
}

TestSuite(cgroup_v2, .init = setup, .fini = teardown);

Test(cgroup_v2, no_gpu_allowed)
{
	confine_and_probe(QD_CG_V2, 0);
}

Test(cgroup_v2, one_gpu_allowed)
{
	confine_and_probe(QD_CG_V2, 1u << 2);
}

Test(cgroup_v2, two_gpus_allowed)
{
	confine_and_probe(QD_CG_V2, (1u << 0) | (1u << 3));
}

Test(cgroup_v2, all_gpus_allowed)
{
	confine_and_probe(QD_CG_V2, 0xf);
}

Test(cgroup_v2, control_devices_in_the_gpu_list_stay_usable)
{
	char p[128];

	dev_path(p, sizeof(p), "nvidiactl");
	qd_paths_add(&gpus, p);
	dev_path(p, sizeof(p), "nvidia-modeset");
	qd_paths_add(&gpus, p);
	confine_and_probe(QD_CG_V2, 1u << 1);
}

Test(cgroup_v2, attaches_with_allow_multi_to_a_child_of_the_task_cgroup)
{
	uint32_t ids[8], flags;
	char p[BIG];

	need(QD_CG_V2);
	task = spawn();
	make_parent(QD_CG_V2, task);
	allow(0);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V2, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	snprintf(p, sizeof(p), "%s/%s", parent, name);
	cr_assert_str_eq(binding->dir, p);
	cr_assert_eq(cg_holds_only(p, task, err, sizeof(err)), 1);
	cr_assert_eq(own_progs(p, ids, &flags), 1);
	cr_assert_eq(flags, BPF_F_ALLOW_MULTI);
	/* Nothing attached to the task's former cgroup. */
	cr_assert_eq(own_progs(parent, ids, &flags), 0);
	cr_assert_eq(binding->chain_fd, -1);
}

Test(cgroup_v2, an_allow_multi_program_above_still_applies)
{
	int errs[NPROBE];

	need(QD_CG_V2);
	task = spawn();
	make_parent(QD_CG_V2, task);
	attach_other(1, BPF_F_ALLOW_MULTI);
	allow(0);
	allow(1);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V2, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(binding->chain_fd, -1, "no chaining needed");
	run(errs);
	expect(errs, 1u << 0);
}

Test(cgroup_v2, an_allow_override_program_above_still_applies)
{
	int errs[NPROBE];

	/* Slurm 22.05 attaches its job and step programs this way. */
	need(QD_CG_V2);
	task = spawn();
	make_parent(QD_CG_V2, task);
	attach_other(1, BPF_F_ALLOW_OVERRIDE);
	allow(0);
	allow(1);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V2, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_geq(binding->chain_fd, 0, "tail call to the inherited one");
	cr_assert_str_neq(binding->dir, "");
	run(errs);
	expect(errs, 1u << 0);
}

Test(cgroup_v2, an_exclusive_program_is_replaced_in_place_and_restored)
{
	uint32_t ids[8], flags, original;
	int errs[NPROBE];

	/* Slurm 22.05's task-level program: no flag, nothing below allowed. */
	need(QD_CG_V2);
	task = spawn();
	make_parent(QD_CG_V2, task);
	attach_other(1, 0);
	cr_assert_eq(own_progs(parent, ids, &flags), 1);
	original = ids[0];
	allow(0);
	allow(1);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V2, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_str_eq(binding->dir, "", "no child cgroup");
	cr_assert_str_eq(binding->attached, parent);
	cr_assert(binding->replaced);
	cr_assert_eq(own_progs(parent, ids, &flags), 1);
	cr_assert_neq(ids[0], original);
	run(errs);
	expect(errs, 1u << 0);
	cr_assert_eq(qd_cg_release(binding, err, sizeof(err)), 0, "%s", err);
	binding = NULL;
	cr_assert_eq(own_progs(parent, ids, &flags), 1);
	cr_assert_eq(ids[0], original, "the original program is back");
	cr_assert_eq(flags, 0);
}

Test(cgroup_v2, an_exclusive_program_shared_with_others_is_refused)
{
	need(QD_CG_V2);
	task = spawn();
	other = spawn();
	make_parent(QD_CG_V2, task);
	cr_assert_eq(cg_move(parent, other, err, sizeof(err)), 0, "%s", err);
	attach_other(1, 0);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V2, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     -1);
	cr_assert_null(binding);
	cr_assert(strstr(err, "exclusive device program and processes other"),
		  "%s", err);
}

Test(cgroup_v2, release_leaves_a_cgroup_with_processes_in_place)
{
	need(QD_CG_V2);
	task = spawn();
	cr_assert_eq(qd_cg_confine(task, QD_CG_V2, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(qd_cg_release(binding, err, sizeof(err)), -1);
	cr_assert_eq(errno, EBUSY);
	cr_assert(exists(binding->dir));
	reap(&task);
	cr_assert_eq(qd_cg_release(binding, err, sizeof(err)), 0, "%s", err);
	binding = NULL;
}

/* ---- cgroup v2 in place, in cgroups laid out as Slurm's cgroup/v2 ---- */

TestSuite(cgroup_v2_in_place, .init = setup, .fini = teardown);

/* parent/rel, made (with what leads to it) and remembered for teardown. */
static void make_below(char *dir, size_t len, const char *rel)
{
	char path[256], *p;

	snprintf(path, sizeof(path), "%s", rel);
	for (p = path;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;

		*p = '\0';
		snprintf(made[nmade], sizeof(made[nmade]), "%s/%s", parent,
			 path);
		if (mkdir(made[nmade], 0755) == 0)
			nmade++;
		else
			cr_assert_eq(errno, EEXIST, "mkdir %s: %s", made[nmade],
				     strerror(errno));
		*p = c;
		if (!c)
			break;
	}
	snprintf(dir, len, "%s/%s", parent, rel);
}

/* A process named slurmstepd (as Slurm's is), waiting to be killed. */
static pid_t spawn_stepd(void)
{
	int ready[2];
	char c;
	pid_t pid;

	cr_assert_eq(pipe2(ready, O_CLOEXEC), 0);
	pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "slurmstepd");
		close(ready[0]);
		if (write(ready[1], "", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	cr_assert_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	return pid;
}

/*
 * Slurm's cgroups of a step under a test parent, as its cgroup/v2 makes
 * them: rel is JOB/STEP/user/TASK, and STEP/slurm is made beside user with
 * a slurmstepd in it (once per step); pid, if any, is moved into rel.
 */
static void slurm_tree(char *dir, size_t len, const char *rel, pid_t pid)
{
	char step[256], stepd_dir[BIG];
	const char *user = strstr(rel, "/user/");

	need(QD_CG_V2);
	if (!parent[0])
		make_parent(QD_CG_V2, -1);
	cr_assert_not_null(user, "%s: no /user/", rel);
	snprintf(step, sizeof(step), "%.*s/slurm", (int)(user - rel), rel);
	make_below(stepd_dir, sizeof(stepd_dir), step);
	if (cg_nprocs(stepd_dir, err, sizeof(err)) == 0) {
		cr_assert_lt(nstepds, 4);
		stepds[nstepds] = spawn_stepd();
		cr_assert_eq(
		    cg_move(stepd_dir, stepds[nstepds], err, sizeof(err)), 0,
		    "%s", err);
		nstepds++;
	}
	make_below(dir, len, rel);
	if (pid > 0)
		cr_assert_eq(cg_move(dir, pid, err, sizeof(err)), 0, "%s", err);
}

static uint32_t effective(const char *dir, uint32_t *ids)
{
	union bpf_attr a;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	cr_assert_geq(fd, 0);
	memset(&a, 0, sizeof(a));
	a.query.target_fd = (uint32_t)fd;
	a.query.attach_type = BPF_CGROUP_DEVICE;
	a.query.query_flags = BPF_F_QUERY_EFFECTIVE;
	a.query.prog_ids = (uint64_t)(uintptr_t)ids;
	a.query.prog_cnt = 8;
	cr_assert_eq(sys_bpf(BPF_PROG_QUERY, &a), 0);
	close(fd);
	return a.query.prog_cnt;
}

/* The layout qd_cg_decide_layout() gives the task in mode, and where. */
static enum qd_cg_layout layout_of(enum qd_cg_mode mode, char *got, size_t len)
{
	enum qd_cg_layout layout;

	cr_assert_eq(qd_cg_decide_layout(task, mode, &layout, got, len, err,
					 sizeof(err)),
		     0, "%s", err);
	return layout;
}

Test(cgroup_v2_in_place, the_layout_follows_the_cgroup)
{
	char dir[BIG], got[PATH_MAX];

	task = spawn();
	slurm_tree(dir, sizeof(dir), "job_7/step_batch/user/task_special",
		   task);
	cr_assert_eq(layout_of(QD_CG_V2, got, sizeof(got)),
		     QD_CG_LAYOUT_V2_IN_PLACE);
	cr_assert_str_eq(got, dir);
	/* A cgroup of no Slurm step: qosdeny's own child cgroup. */
	cr_assert_eq(cg_move(parent, task, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(layout_of(QD_CG_V2, got, sizeof(got)),
		     QD_CG_LAYOUT_V2_CHILD);
	/* 26.05 names the job's directory after its SLUID: the same. */
	slurm_tree(dir, sizeof(dir), "s4CDM8EPVE3X00/step_0/user/task_special",
		   task);
	cr_assert_eq(layout_of(QD_CG_V2, got, sizeof(got)),
		     QD_CG_LAYOUT_V2_IN_PLACE);
	/* Slurm's names without a slurmstepd in step_0/slurm: not a step. */
	make_below(dir, sizeof(dir), "job_8/step_0/slurm");
	make_below(dir, sizeof(dir), "job_8/step_0/user/task_0");
	cr_assert_eq(cg_move(dir, task, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(layout_of(QD_CG_V2, got, sizeof(got)),
		     QD_CG_LAYOUT_V2_CHILD);
	cr_assert_eq(layout_of(QD_CG_OFF, got, sizeof(got)), QD_CG_LAYOUT_OFF);
}

/* step_cgroup.h: the step from a task's cgroup and from slurmstepd's. */
Test(cgroup_v2_in_place, a_step_is_known_by_its_slurmstepd)
{
	char dir[BIG], step[BIG], want[BIG], stepd[BIG + 16];

	slurm_tree(dir, sizeof(dir),
		   "s4CDM8EPVE3X00/step_extern/user/task_special", -1);
	snprintf(want, sizeof(want), "%s/s4CDM8EPVE3X00/step_extern", parent);
	cr_assert_eq(qd_step_cgroup(dir, step, sizeof(step)), 1);
	cr_assert_str_eq(step, want);
	/* A cgroup below the task's (qosdeny's child, before 26.05's fix). */
	make_below(dir, sizeof(dir),
		   "s4CDM8EPVE3X00/step_extern/user/task_special/qosdeny_x");
	cr_assert_eq(qd_step_cgroup(dir, step, sizeof(step)), 1);
	cr_assert_str_eq(step, want);
	snprintf(stepd, sizeof(stepd), "%s/slurm", want);
	cr_assert_eq(qd_step_cgroup_of_stepd(stepd, step, sizeof(step)), 1);
	cr_assert_str_eq(step, want);
	/* Not below user/, nor slurm/ itself as a task's. */
	cr_assert_eq(qd_step_cgroup(want, step, sizeof(step)), 0);
	cr_assert_eq(qd_step_cgroup(stepd, step, sizeof(step)), 0);
	cr_assert_eq(qd_step_cgroup_of_stepd(want, step, sizeof(step)), 0);
	/* Its slurmstepd gone: no longer Slurm's step. */
	reap(&stepds[--nstepds]);
	cr_assert_eq(qd_step_cgroup(dir, step, sizeof(step)), 0);
	cr_assert_eq(qd_step_cgroup_of_stepd(stepd, step, sizeof(step)), 0);
}

Test(cgroup_v2_in_place, task_none_nothing_moves_nothing_is_made)
{
	uint32_t ids[8], flags;
	int errs[NPROBE];
	char dir[BIG];

	task = spawn();
	slurm_tree(dir, sizeof(dir), "job_7/step_0/user/task_special", task);
	allow(2);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V2, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(binding->layout, QD_CG_LAYOUT_V2_IN_PLACE);
	cr_assert_str_eq(binding->dir, "", "no cgroup made");
	cr_assert_str_eq(binding->attached, dir);
	cr_assert_eq(cg_holds_only(dir, task, err, sizeof(err)), 1,
		     "the task stays where Slurm put it");
	cr_assert_eq(own_progs(dir, ids, &flags), 1);
	cr_assert_eq(ids[0], binding->prog_id);
	cr_assert_eq(flags, 0, "Slurm's task-level flag");
	cr_assert_eq(binding->chain_fd, -1, "nothing above to defer to");
	run(errs);
	expect(errs, 1u << 2);
	cr_assert_eq(qd_cg_release(binding, err, sizeof(err)), 0, "%s", err);
	binding = NULL;
	cr_assert_eq(own_progs(dir, ids, &flags), 0, "nothing of ours left");
}

Test(cgroup_v2_in_place, never_looser_than_slurms_step_program)
{
	int errs[NPROBE];
	char dir[BIG], step[BIG];

	/* ConstrainDevices: job and step programs with ALLOW_OVERRIDE. */
	task = spawn();
	slurm_tree(dir, sizeof(dir), "job_7/step_0/user/task_special", task);
	make_below(step, sizeof(step), "job_7");
	attach_at(step, 3, BPF_F_ALLOW_OVERRIDE);
	make_below(step, sizeof(step), "job_7/step_0/user");
	attach_at(step, 1, BPF_F_ALLOW_OVERRIDE);
	allow(0);
	allow(1);
	allow(3);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V2, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_geq(binding->chain_fd, 0, "tail call to the step's program");
	cr_assert_not(binding->replaced);
	run(errs);
	/* ours refuses 2, the step's 1; the job's 3 was not in force here. */
	expect(errs, (1u << 0) | (1u << 3));
}

Test(cgroup_v2_in_place, slurms_task_program_is_replaced_and_put_back)
{
	uint32_t ids[8], flags, slurms;
	int errs[NPROBE];
	char dir[BIG], step[BIG];

	/* task/cgroup, ConstrainDevices, --gpus-per-task: no flag at task_0. */
	task = spawn();
	slurm_tree(dir, sizeof(dir), "job_7/step_0/user/task_0", task);
	make_below(step, sizeof(step), "job_7/step_0/user");
	attach_at(step, 2, BPF_F_ALLOW_OVERRIDE);
	slurms = attach_at(dir, 1, 0);
	allow(0);
	allow(1);
	allow(2);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V2, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	cr_assert(binding->replaced);
	cr_assert_eq(own_progs(dir, ids, &flags), 1);
	cr_assert_eq(ids[0], binding->prog_id);
	cr_assert_eq(flags, 0);
	run(errs);
	/* Slurm's task program (1) and ours (3); the step's (2) was not in
	 * force for the task before either. */
	expect(errs, (1u << 0) | (1u << 2));
	cr_assert_eq(qd_cg_release(binding, err, sizeof(err)), 0, "%s", err);
	binding = NULL;
	cr_assert_eq(own_progs(dir, ids, &flags), 1);
	cr_assert_eq(ids[0], slurms, "Slurm's program is back");
	cr_assert_eq(flags, 0);
}

Test(cgroup_v2_in_place, slurms_later_attaches_still_succeed)
{
	uint32_t ids[8], flags, later;
	char dir[BIG], job[BIG], step[BIG], task1[BIG];

	task = spawn();
	slurm_tree(dir, sizeof(dir), "job_7/step_0/user/task_0", task);
	make_below(job, sizeof(job), "job_7");
	attach_at(job, 3, BPF_F_ALLOW_OVERRIDE);
	make_below(step, sizeof(step), "job_7/step_0/user");
	attach_at(step, 2, BPF_F_ALLOW_OVERRIDE);
	allow(0);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V2, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	/* The next task's cgroup and program, as slurmstepd makes them. */
	make_below(task1, sizeof(task1), "job_7/step_0/user/task_1");
	attach_at(task1, 1, 0);
	/* A later step of the job: the job's program again, and its own. */
	attach_at(job, 3, BPF_F_ALLOW_OVERRIDE);
	make_below(step, sizeof(step), "job_7/step_1/user/task_0");
	attach_at(step, 2, 0);
	cr_assert(effective(dir, ids) >= 1);
	cr_assert_eq(ids[0], binding->prog_id, "ours still in force");
	/* Slurm attaching to the task's own cgroup after ours replaces it. */
	later = attach_at(dir, 1, 0);
	cr_assert_eq(own_progs(dir, ids, &flags), 1);
	cr_assert_eq(ids[0], later);
	reap(&task);
	/* Release leaves Slurm's program alone. */
	cr_assert_eq(qd_cg_release(binding, err, sizeof(err)), 0, "%s", err);
	binding = NULL;
	cr_assert_eq(own_progs(dir, ids, &flags), 1);
	cr_assert_eq(ids[0], later);
}

Test(cgroup_v2_in_place, beside_allow_multi_programs_in_the_cgroup)
{
	uint32_t ids[8], flags, systemds;
	int errs[NPROBE];
	char dir[BIG];

	/* systemd attaches its device policy with ALLOW_MULTI. */
	task = spawn();
	slurm_tree(dir, sizeof(dir), "job_7/step_0/user/task_0", task);
	systemds = attach_at(dir, 1, BPF_F_ALLOW_MULTI);
	allow(0);
	allow(1);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V2, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(binding->chain_fd, -1, "runs beside it, no chaining");
	cr_assert_eq(own_progs(dir, ids, &flags), 2);
	cr_assert_eq(flags, BPF_F_ALLOW_MULTI);
	run(errs);
	expect(errs, 1u << 0);
	cr_assert_eq(qd_cg_release(binding, err, sizeof(err)), 0, "%s", err);
	binding = NULL;
	cr_assert_eq(own_progs(dir, ids, &flags), 1);
	cr_assert_eq(ids[0], systemds, "only ours detached");
}

Test(cgroup_v2_in_place, below_an_exclusive_program_is_refused)
{
	char dir[BIG], step[BIG];

	task = spawn();
	slurm_tree(dir, sizeof(dir), "job_7/step_0/user/task_0", task);
	make_below(step, sizeof(step), "job_7/step_0/user");
	attach_at(step, 1, 0);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V2, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     -1);
	cr_assert_null(binding);
	cr_assert(strstr(err, "holds an exclusive device program"), "%s", err);
}

Test(cgroup_v2_in_place, a_shared_task_cgroup_stays_confined_while_used)
{
	uint32_t ids[8], flags;
	char dir[BIG];

	task = spawn();
	other = spawn();
	slurm_tree(dir, sizeof(dir), "job_7/step_0/user/task_special", task);
	cr_assert_eq(cg_move(dir, other, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V2, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	reap(&task);
	cr_assert_eq(qd_cg_release(binding, err, sizeof(err)), -1);
	cr_assert_eq(errno, EBUSY);
	cr_assert_eq(own_progs(dir, ids, &flags), 1, "still confined");
	reap(&other);
	cr_assert_eq(qd_cg_release(binding, err, sizeof(err)), 0, "%s", err);
	binding = NULL;
	cr_assert_eq(own_progs(dir, ids, &flags), 0);
}

Test(cgroup_v2_in_place, release_after_slurm_removed_the_cgroup)
{
	char dir[BIG];

	task = spawn();
	slurm_tree(dir, sizeof(dir), "job_7/step_0/user/task_0", task);
	cr_assert_eq(qd_cg_confine(task, QD_CG_V2, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	reap(&task);
	cr_assert_eq(cg_rmdir(dir, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(qd_cg_release(binding, err, sizeof(err)), 0, "%s", err);
	binding = NULL;
}

Test(cgroup_v2_in_place, the_extern_step_confines_adopted_processes_there)
{
	int errs[NPROBE], moved = -1;
	char dir[BIG];

	/* The extern step's sleep; then a session pam_slurm_adopt adds. */
	other = spawn();
	slurm_tree(dir, sizeof(dir), "job_7/step_extern/user/task_special",
		   other);
	allow(3);
	cr_assert_eq(qd_cg_prepare(other, QD_CG_V2, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_str_eq(binding->attached, dir);
	task = spawn();
	cr_assert_eq(cg_move(dir, task, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(qd_cg_join(task, QD_CG_V2, dir, binding->prog_id, &moved,
				err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(moved, 0, "checked, not moved");
	run(errs);
	expect(errs, 1u << 3);
}

Test(cgroup_v2_in_place, a_session_elsewhere_in_a_step_is_not_moved)
{
	int moved = -1;
	char dir[BIG], ext[BIG];
	uint32_t ids[8];

	other = spawn();
	slurm_tree(ext, sizeof(ext), "job_7/step_extern/user/task_special",
		   other);
	cr_assert_eq(qd_cg_prepare(other, QD_CG_V2, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	task = spawn();
	slurm_tree(dir, sizeof(dir), "job_7/step_0/user/task_0", task);
	cr_assert_eq(qd_cg_join(task, QD_CG_V2, ext, binding->prog_id, &moved,
				err, sizeof(err)),
		     -1);
	cr_assert(strstr(err, "would hide it from Slurm"), "%s", err);
	cr_assert_eq(moved, 0);
	cr_assert_eq(effective(dir, ids), 0);
}

/*
 * The extern step on Slurm's cgroup/v2 from 25.05: no sleep, no task
 * cgroup until pam_slurm_adopt adds a session. Our program goes on the
 * step's user cgroup, chained to the job's (ConstrainDevices'); a session
 * added later below it is confined by both, even once Slurm attaches an
 * exclusive program of its own to the session's task cgroup.
 */
Test(cgroup_v2_in_place, the_extern_steps_user_cgroup_covers_later_sessions)
{
	int errs[NPROBE], moved = -1;
	char job[BIG], users[BIG], dir[BIG], step[BIG];

	slurm_tree(users, sizeof(users), "s4CDM8EPVE3X00/step_extern/user/",
		   -1);
	users[strlen(users) - 1] = '\0';
	make_below(job, sizeof(job), "s4CDM8EPVE3X00");
	attach_at(job, 0, BPF_F_ALLOW_OVERRIDE);
	cr_assert_eq(qd_step_cgroup(users, step, sizeof(step)), 1);
	allow(0);
	allow(3);
	cr_assert_eq(qd_cg_attach_above(users, &gpus, &allowed, &binding, err,
					sizeof(err)),
		     0, "%s", err);
	task = spawn();
	slurm_tree(dir, sizeof(dir),
		   "s4CDM8EPVE3X00/step_extern/user/task_special", task);
	cr_assert_eq(qd_cg_join(task, QD_CG_V2, binding->attached,
				binding->prog_id, &moved, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(moved, 0, "checked, not moved");
	attach_at(dir, 3, 0);
	run(errs);
	/* 0: the job's program; 1, 2: ours; 3: the task's. */
	expect(errs, 0);
}

Test(cgroup_v2_in_place, a_scratch_cgroup_by_its_path)
{
	uint32_t ids[8], flags;
	int errs[NPROBE];

	/* What `qosdeny doctor` does. */
	need(QD_CG_V2);
	task = spawn();
	make_parent(QD_CG_V2, task);
	allow(1);
	cr_assert_eq(qd_cg_attach_dir(parent, &gpus, &allowed, &binding, err,
				      sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(own_progs(parent, ids, &flags), 1);
	cr_assert_eq(ids[0], binding->prog_id);
	run(errs);
	expect(errs, 1u << 1);
	cr_assert_eq(qd_cg_release(binding, err, sizeof(err)), 0, "%s", err);
	binding = NULL;
	cr_assert_eq(own_progs(parent, ids, &flags), 0);
}

/* ---- errors, modes and sweeping ---- */

TestSuite(cgroup, .init = setup, .fini = teardown);

static void confine_fails(enum qd_cg_mode mode, const char *want)
{
	int rv;

	if (task < 0)
		task = spawn();
	rv = qd_cg_confine(task, mode, name, &gpus, &allowed, &binding, err,
			   sizeof(err));
	cr_assert_eq(rv, -1, "confined, expected '%s'", want);
	cr_assert_null(binding);
	cr_assert(strstr(err, want), "'%s' does not say '%s'", err, want);
}

static void nothing_left(void)
{
	char dir[PATH_MAX], p[BIG];

	if (own_dir("devices", dir, sizeof(dir))) {
		snprintf(p, sizeof(p), "%s/%s", dir, name);
		cr_assert_not(exists(p), "%s left behind", p);
	}
	if (own_dir(NULL, dir, sizeof(dir))) {
		snprintf(p, sizeof(p), "%s/%s", dir, name);
		cr_assert_not(exists(p), "%s left behind", p);
	}
}

Test(cgroup, a_missing_gpu_file_is_named)
{
	char p[128], want[256];

	dev_path(p, sizeof(p), "nvidia9");
	qd_paths_add(&gpus, p);
	snprintf(want, sizeof(want), "%s: No such file or directory", p);
	confine_fails(QD_CG_AUTO, want);
	nothing_left();
}

Test(cgroup, a_missing_allowed_file_is_named)
{
	char p[128], want[256];

	dev_path(p, sizeof(p), "nvidia9");
	qd_paths_add(&allowed, p);
	snprintf(want, sizeof(want), "%s: No such file or directory", p);
	confine_fails(QD_CG_AUTO, want);
}

Test(cgroup, a_file_that_is_no_device_is_named)
{
	char p[128], want[256];

	dev_path(p, sizeof(p), "notadev");
	qd_paths_add(&gpus, p);
	snprintf(want, sizeof(want), "%s: not a character device", p);
	confine_fails(QD_CG_V1, want);
	nothing_left();
}

/* In a mount namespace of this test process only, as if never mounted. */
static void unmount(const char *path)
{
	cr_assert_eq(unshare(CLONE_NEWNS), 0, "unshare: %s", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	cr_assert_eq(umount2(path, MNT_DETACH), 0, "umount %s: %s", path,
		     strerror(errno));
}

Test(cgroup, no_v1_devices_controller)
{
	need(QD_CG_V1);
	unmount("/sys/fs/cgroup/devices");
	confine_fails(QD_CG_V1, "cgroup v1: no v1 devices controller mounted");
}

Test(cgroup, no_cgroup2)
{
	need(QD_CG_V2);
	unmount("/sys/fs/cgroup/unified");
	confine_fails(QD_CG_V2, "cgroup v2: no cgroup2 file system mounted");
}

Test(cgroup, auto_with_neither_says_both)
{
	need(QD_CG_V1);
	need(QD_CG_V2);
	unmount("/sys/fs/cgroup/devices");
	cr_assert_eq(umount2("/sys/fs/cgroup/unified", MNT_DETACH), 0);
	confine_fails(QD_CG_AUTO,
		      "no cgroup to confine devices in: cgroup v1: no v1 "
		      "devices controller mounted; cgroup v2: no cgroup2 "
		      "file system mounted");
}

Test(cgroup, auto_falls_back_to_v2_without_v1_devices)
{
	int errs[NPROBE];

	need(QD_CG_V1);
	need(QD_CG_V2);
	task = spawn();
	unmount("/sys/fs/cgroup/devices");
	cr_assert_eq(qd_cg_confine(task, QD_CG_AUTO, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(binding->mode, QD_CG_V2);
	run(errs);
	expect(errs, 0);
}

Test(cgroup, auto_prefers_v1_devices_where_the_task_has_them)
{
	enum qd_cg_mode m;

	need(QD_CG_V1);
	cr_assert_eq(qd_cg_resolve(getpid(), QD_CG_AUTO, &m, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(m, QD_CG_V1);
}

/* Runs confine as nobody in a child; the error comes back. */
static void confine_unprivileged(enum qd_cg_mode mode)
{
	int p[2], status;
	pid_t pid;
	ssize_t n;

	need(mode);
	task = spawn();
	cr_assert_eq(pipe(p), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct qd_cg_binding *b = NULL;

		close(p[0]);
		if (setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(2);
		if (!qd_cg_confine(task, mode, name, &gpus, &allowed, &b, err,
				   sizeof(err)))
			_exit(3);
		n = write(p[1], err, strlen(err) + 1);
		_exit(n > 0 ? 0 : 4);
	}
	close(p[1]);
	memset(err, 0, sizeof(err));
	n = read(p[0], err, sizeof(err) - 1);
	close(p[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "child status %d", status);
	cr_assert_gt(n, 0);
}

Test(cgroup, v1_permission_denied_is_reported)
{
	confine_unprivileged(QD_CG_V1);
	cr_assert(strstr(err, "cgroup v1: mkdir ") &&
		      strstr(err, ": Permission denied"),
		  "%s", err);
	nothing_left();
}

Test(cgroup, v2_permission_denied_is_reported)
{
	/* Querying device programs needs CAP_NET_ADMIN: the first step. */
	confine_unprivileged(QD_CG_V2);
	cr_assert(strstr(err, "cgroup v2: ") &&
		      (strstr(err, "Operation not permitted") ||
		       strstr(err, "Permission denied")),
		  "%s", err);
	nothing_left();
}

Test(cgroup, a_gone_process_is_reported)
{
	char want[64];

	task = spawn();
	reap(&task);
	task = 1 << 22; /* above pid_max's default; never a live pid */
	snprintf(want, sizeof(want), "/proc/%d/cgroup: No such file",
		 (int)task);
	confine_fails(QD_CG_AUTO, want);
	task = -1;
}

Test(cgroup, the_name_must_be_ours)
{
	task = spawn();
	snprintf(name, sizeof(name), "slurm");
	confine_fails(QD_CG_AUTO, "must start with " QD_CG_PREFIX);
	snprintf(name, sizeof(name), QD_CG_PREFIX "a/b");
	confine_fails(QD_CG_AUTO, "must start with " QD_CG_PREFIX);
}

Test(cgroup, off_does_nothing)
{
	task = spawn();
	cr_assert_eq(qd_cg_confine(task, QD_CG_OFF, name, &gpus, &allowed,
				   &binding, err, sizeof(err)),
		     0);
	cr_assert_null(binding);
	nothing_left();
}

Test(cgroup, a_node_without_gpus_needs_nothing)
{
	struct qd_paths none = {0};

	task = spawn();
	cr_assert_eq(qd_cg_confine(task, QD_CG_AUTO, name, &none, &allowed,
				   &binding, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_null(binding);
	nothing_left();
}

Test(cgroup, deny_set_counts_each_device_once)
{
	struct qd_dev *deny;
	size_t n;
	char p[128];

	/* nvidia0 twice, a second name for nvidia1 (allowed), nvidiactl. */
	qd_paths_add(&gpus, gpus.v[0]);
	dev_path(p, sizeof(p), "nvidia1b");
	cr_assert_eq(mknod(p, S_IFCHR | 0600, makedev(GPU_MAJOR, 1)), 0);
	qd_paths_add(&gpus, p);
	dev_path(p, sizeof(p), "nvidiactl");
	qd_paths_add(&gpus, p);
	allow(1);
	cr_assert_eq(cg_deny_set(&gpus, &allowed, &deny, &n, err, sizeof(err)),
		     0, "%s", err);
	dev_path(p, sizeof(p), "nvidia1b");
	unlink(p);
	cr_assert_eq(n, 3);
	cr_assert_eq(deny[0].major, GPU_MAJOR);
	cr_assert_eq(deny[0].minor, 0);
	cr_assert_eq(deny[1].minor, 2);
	cr_assert_eq(deny[2].minor, 3);
	free(deny);
}

Test(cgroup, sweep_removes_empty_leftovers_only)
{
	char p[BIG], dir[PATH_MAX];

	need(QD_CG_V1);
	task = spawn();
	other = spawn();
	make_parent(QD_CG_V1, task);
	/* So that the v2 half sweeps there, not where other tests run. */
	if (own_dir(NULL, dir, sizeof(dir))) {
		snprintf(parent2, sizeof(parent2), "%s/qdtest2_%d", dir,
			 (int)getpid());
		cr_assert_eq(mkdir(parent2, 0755), 0);
		cr_assert_eq(cg_move(parent2, task, err, sizeof(err)), 0, "%s",
			     err);
	}
	snprintf(p, sizeof(p), "%s/" QD_CG_PREFIX "stale", parent);
	cr_assert_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/" QD_CG_PREFIX "busy", parent);
	cr_assert_eq(mkdir(p, 0755), 0);
	cr_assert_eq(cg_move(p, other, err, sizeof(err)), 0, "%s", err);
	cr_assert_geq(qd_cg_sweep(task, err, sizeof(err)), 1, "%s", err);
	cr_assert(exists(p), "busy one kept");
	snprintf(p, sizeof(p), "%s/" QD_CG_PREFIX "stale", parent);
	cr_assert_not(exists(p), "stale one removed");
}
