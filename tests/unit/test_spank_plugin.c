/* SPDX-License-Identifier: GPL-2.0-or-later
 * build/spank_qosdeny.so itself, loaded with dlopen() as slurmstepd would,
 * its spank_* and slurm_* calls answered by the stubs below (exported from
 * this binary with -rdynamic). Drives init, task_post_fork, task_exit and
 * exit for a real child process on this machine's cgroups with fake GPUs
 * (char 195:N, so an allowed open() gives ENXIO and a denied one EPERM), as
 * test_cgroup.c does for the module alone.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <slurm/spank.h>

#include "cgroup.h"
#include "cgroup_locate.h"

#ifndef QD_SPANK_SO
#define QD_SPANK_SO "build/spank_qosdeny.so"
#endif
#ifndef QD_GRES_GPU_SO
#define QD_GRES_GPU_SO "build/tests/stub/gres_gpu.so"
#endif

#define NGPU 4

/* ---- what slurmstepd would answer ---- */

static struct {
	spank_context_t ctx;
	uint32_t job, step;
	int task;
	pid_t pid;
	const char *env[8]; /* "NAME=value" */
	char last_error[2048];
	char log[8192];
} st;

spank_context_t spank_context(void)
{
	return st.ctx;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
	spank_err_t rc = ESPANK_SUCCESS;
	va_list ap;

	(void)sp;
	va_start(ap, item);
	switch (item) {
	case S_JOB_ID:
		*va_arg(ap, uint32_t *) = st.job;
		break;
	case S_JOB_STEPID:
		*va_arg(ap, uint32_t *) = st.step;
		break;
	case S_TASK_ID:
	case S_TASK_GLOBAL_ID:
		*va_arg(ap, int *) = st.task;
		break;
	case S_TASK_PID:
		*va_arg(ap, pid_t *) = st.pid;
		break;
	default:
		rc = ESPANK_BAD_ARG;
	}
	va_end(ap);
	return rc;
}

spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len)
{
	size_t n = strlen(var);

	(void)sp;
	for (size_t i = 0; i < sizeof(st.env) / sizeof(*st.env); i++) {
		if (!st.env[i] || strncmp(st.env[i], var, n) ||
		    st.env[i][n] != '=')
			continue;
		if ((int)strlen(st.env[i] + n + 1) >= len)
			return ESPANK_NOSPACE;
		strcpy(buf, st.env[i] + n + 1);
		return ESPANK_SUCCESS;
	}
	return ESPANK_ENV_NOEXIST;
}

const char *spank_strerror(spank_err_t err)
{
	(void)err;
	return "stub error";
}

static void logv(const char *fmt, va_list ap)
{
	size_t n = strlen(st.log);

	vsnprintf(st.log + n, sizeof(st.log) - n, fmt, ap);
	n = strlen(st.log);
	if (n + 1 < sizeof(st.log))
		strcat(st.log, "\n");
}

void slurm_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st.last_error, sizeof(st.last_error), fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	logv(fmt, ap);
	va_end(ap);
}

#define LOGGER(fn)                                                             \
	void fn(const char *fmt, ...)                                          \
	{                                                                      \
		va_list ap;                                                    \
		va_start(ap, fmt);                                             \
		logv(fmt, ap);                                                 \
		va_end(ap);                                                    \
	}
LOGGER(slurm_info)
LOGGER(slurm_verbose)
LOGGER(slurm_debug)

/* ---- fixture ---- */

static void *so, *gres_gpu;
static spank_f *init_fn, *post_fork_fn, *task_exit_fn, *exit_fn;
static char dir[64];
static pid_t task = -1;
static int go_w = -1, res_r = -1, err_r = -1;

static void path_in(char *buf, size_t len, const char *base)
{
	snprintf(buf, len, "%s/%s", dir, base);
}

static void write_in(const char *base, const char *text)
{
	char p[128];
	FILE *f;

	path_in(p, sizeof(p), base);
	f = fopen(p, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

static void setup(void)
{
	char p[128], conf[512];

	if (geteuid() != 0)
		cr_skip_test("needs root (mknod, cgroups)");
	snprintf(dir, sizeof(dir), "/tmp/qd-spanktest.XXXXXX");
	cr_assert(mkdtemp(dir));
	for (int i = 0; i < NGPU; i++) {
		snprintf(p, sizeof(p), "%s/nvidia%d", dir, i);
		cr_assert_eq(mknod(p, S_IFCHR | 0666, makedev(195, i)), 0,
			     "mknod: %s", strerror(errno));
	}
	path_in(p, sizeof(p), "nvidiactl");
	cr_assert_eq(mknod(p, S_IFCHR | 0666, makedev(195, 255)), 0);
	write_in("slurm.conf", "# unused\n");
	snprintf(conf, sizeof(conf),
		 "AutoDetect=off\n"
		 "NodeName=tn1 Name=gpu Type=a100 File=%s/nvidia[0-3]\n"
		 "NodeName=tn2 Name=gpu Type=v100 File=%s/nvidia[4-7]\n",
		 dir, dir);
	write_in("gres.conf", conf);
	path_in(p, sizeof(p), "slurm.conf");
	setenv("SLURM_CONF", p, 1);
	setenv("SLURMD_NODENAME", "tn1", 1);

	/* slurmstepd with Slurm's gres/gpu plugin (GresTypes=gpu), unless a
	 * test unloads it before the first task. */
	gres_gpu = dlopen(QD_GRES_GPU_SO, RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(gres_gpu, "dlopen: %s", dlerror());
	so = dlopen(QD_SPANK_SO, RTLD_NOW | RTLD_LOCAL);
	cr_assert_not_null(so, "dlopen: %s", dlerror());
	init_fn = (spank_f *)dlsym(so, "slurm_spank_init");
	post_fork_fn = (spank_f *)dlsym(so, "slurm_spank_task_post_fork");
	task_exit_fn = (spank_f *)dlsym(so, "slurm_spank_task_exit");
	exit_fn = (spank_f *)dlsym(so, "slurm_spank_exit");
	cr_assert(init_fn && post_fork_fn && task_exit_fn && exit_fn);

	memset(&st, 0, sizeof(st));
	st.ctx = S_CTX_REMOTE;
	st.job = (uint32_t)getpid(); /* cgroup names unique per test */
	st.step = 0;
	st.task = 0;
}

static void teardown(void)
{
	char p[128];
	const char *const files[] = {"nvidia0",	 "nvidia1",   "nvidia2",
				     "nvidia3",	 "nvidiactl", "slurm.conf",
				     "gres.conf"};

	if (task > 0) {
		kill(task, SIGKILL);
		waitpid(task, NULL, 0);
	}
	task = -1;
	/* Removes whatever cgroups the plugin still holds. */
	if (exit_fn)
		exit_fn(NULL, 0, NULL);
	if (so)
		dlclose(so);
	so = NULL;
	if (gres_gpu)
		dlclose(gres_gpu);
	gres_gpu = NULL;
	exit_fn = NULL;
	for (int *fd = (int[]){go_w, res_r, err_r}, i = 0; i < 3; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	go_w = res_r = err_r = -1;
	if (dir[0]) {
		for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
			path_in(p, sizeof(p), files[i]);
			unlink(p);
		}
		rmdir(dir);
	}
}

/* A task: waits for "go", opens nvidia0-3 and nvidiactl, reports errnos. */
static void spawn(void)
{
	int go[2], res[2], er[2], e, fd;
	char c, p[128];
	static const char *const names[] = {"nvidia0", "nvidia1", "nvidia2",
					    "nvidia3", "nvidiactl"};

	cr_assert_eq(pipe2(go, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(res, O_CLOEXEC), 0);
	cr_assert_eq(pipe2(er, O_CLOEXEC), 0);
	task = fork();
	cr_assert_geq(task, 0);
	if (task == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(er[1], 2); /* its stderr: what the user would see */
		/* Set up, as slurmstepd's tasks are before post_fork. */
		if (write(res[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		for (size_t i = 0; i < 5; i++) {
			path_in(p, sizeof(p), names[i]);
			fd = open(p, O_RDWR | O_CLOEXEC);
			e = fd >= 0 ? 0 : errno;
			if (write(res[1], &e, sizeof(e)) != sizeof(e))
				_exit(1);
		}
		_exit(0);
	}
	close(go[0]);
	close(res[1]);
	close(er[1]);
	go_w = go[1];
	res_r = res[0];
	err_r = er[0];
	st.pid = task;
	cr_assert_eq(read(res_r, &c, 1), 1, "task did not start");
}

/* Runs the task; GPUs in mask must open to ENXIO, the others fail EPERM. */
static void expect_gpus(unsigned mask)
{
	int e, status;

	cr_assert_eq(write(go_w, "g", 1), 1);
	for (int i = 0; i < NGPU + 1; i++) {
		int want = i == NGPU || (mask & (1u << i)) ? ENXIO : EPERM;

		cr_assert_eq(read(res_r, &e, sizeof(e)), sizeof(e));
		cr_expect_eq(e, want, "device %d: errno %d (%s), expected %s",
			     i, e, strerror(e), strerror(want));
	}
	cr_assert_eq(waitpid(task, &status, 0), task);
	task = -1;
}

static int call(spank_f *fn, int ac, char **av)
{
	return fn((spank_t)&st, ac, av);
}

#define ARGV(...)                                                              \
	(char *[])                                                             \
	{                                                                      \
		__VA_ARGS__                                                    \
	}

static void init_ok(const char *opt)
{
	char *av[] = {(char *)opt};

	cr_assert_eq(call(init_fn, opt ? 1 : 0, opt ? av : NULL), 0, "%s",
		     st.last_error);
}

static bool cgroup_exists(const char *controller)
{
	char d[PATH_MAX], top[PATH_MAX], why[256], p[PATH_MAX + 64];
	struct stat s;

	if (cg_dir_of(getpid(), controller, d, sizeof(d), top, sizeof(top), why,
		      sizeof(why)))
		return false;
	snprintf(p, sizeof(p), "%s/" QD_CG_PREFIX "%u_%s_%d_%d", d, st.job,
		 st.step == 0xfffffffbu ? "batch" : "0", st.task,
		 (int)getpid());
	return !stat(p, &s);
}

TestSuite(spank_plugin, .init = setup, .fini = teardown);

Test(spank_plugin, exports_only_the_spank_entry_points)
{
	cr_assert_not_null(dlsym(so, "plugin_name"));
	cr_assert_str_eq((const char *)dlsym(so, "plugin_name"), "qosdeny");
	cr_assert_str_eq((const char *)dlsym(so, "plugin_type"), "spank");
	cr_assert_null(dlsym(so, "qd_cg_confine"));
	cr_assert_null(dlsym(so, "qd_spank_opts_parse"));
}

Test(spank_plugin, init_fails_on_an_unknown_option)
{
	cr_assert_lt(call(init_fn, 2, ARGV("cgroup=v1", "bogus=1")), 0);
	cr_assert_str_eq(st.last_error,
			 "qosdeny: unknown option 'bogus=1' in plugstack.conf "
			 "(known: redis, redis_password_file, cluster, spool, "
			 "timeout_ms, cgroup, gpu_devices, adopt_dir, "
			 "redis_user, redis_replicas, redis_tls_ca, "
			 "redis_tls_cert, redis_tls_key, metrics_dir, "
			 "metrics_interval)");
}

Test(spank_plugin, init_fails_on_a_malformed_option)
{
	st.ctx = S_CTX_LOCAL; /* srun fails as well */
	cr_assert_lt(call(init_fn, 1, ARGV("cgroup=v3")), 0);
	cr_assert_str_eq(st.last_error,
			 "qosdeny: cgroup=v3: expected auto, v1, v2 or off");
}

static void step_binding(const char *mode)
{
	init_ok(mode);
	spawn();
	st.env[0] = "SLURM_STEP_GPUS=1,3";
	st.env[1] = "CUDA_VISIBLE_DEVICES=0,1,2,3"; /* not trusted */
	cr_assert_eq(call(post_fork_fn, 0, NULL), 0, "%s", st.last_error);
	cr_assert(strstr(st.log, "2 GPU files allowed of the node's 4 GPUs "
				 "(SLURM_STEP_GPUS=1,3)"),
		  "%s", st.log);
	expect_gpus((1u << 1) | (1u << 3));
	cr_assert_eq(call(task_exit_fn, 0, NULL), 0);
	cr_assert_not(cgroup_exists("devices"), "removed at task exit");
	cr_assert_not(cgroup_exists(NULL), "removed at task exit");
}

Test(spank_plugin, a_step_gets_its_gpus_v1)
{
	step_binding("cgroup=v1");
}

Test(spank_plugin, a_step_gets_its_gpus_v2)
{
	step_binding("cgroup=v2");
}

Test(spank_plugin, a_step_gets_its_gpus_auto)
{
	step_binding(NULL);
}

Test(spank_plugin, the_batch_step_uses_the_job_gpus)
{
	init_ok("cgroup=v1");
	spawn();
	st.step = 0xfffffffbu;
	st.env[0] = "SLURM_JOB_GPUS=2";
	st.env[1] = "SLURM_STEP_GPUS=0,1,2,3"; /* exported by the user */
	cr_assert_eq(call(post_fork_fn, 0, NULL), 0, "%s", st.last_error);
	cr_assert(cgroup_exists("devices"));
	expect_gpus(1u << 2);
}

/* GresTypes without gpu: no Slurm plugin writes the step's list, so a
 * SLURM_STEP_GPUS there is the user's own export: no GPU. */
Test(spank_plugin, without_slurms_gres_gpu_plugin_the_list_is_the_users)
{
	cr_assert_eq(dlclose(gres_gpu), 0);
	gres_gpu = NULL;
	init_ok("cgroup=v1");
	spawn();
	st.env[0] = "SLURM_STEP_GPUS=0,1,2,3";
	cr_assert_eq(call(post_fork_fn, 0, NULL), 0, "%s", st.last_error);
	expect_gpus(0);
	cr_expect(strstr(st.log, "SLURM_STEP_GPUS=0,1,2,3 is not Slurm's"),
		  "%s", st.log);
}

Test(spank_plugin, a_step_without_gpus_can_open_none)
{
	init_ok(NULL);
	spawn();
	cr_assert_eq(call(post_fork_fn, 0, NULL), 0, "%s", st.last_error);
	expect_gpus(0);
}

Test(spank_plugin, gpu_devices_overrides_gres_conf)
{
	char opt[128];

	/* Only nvidia2 and nvidia3 are GPUs; index 0 is nvidia2. */
	snprintf(opt, sizeof(opt), "gpu_devices=%s/nvidia[2-3]", dir);
	init_ok(opt);
	spawn();
	st.env[0] = "SLURM_STEP_GPUS=0";
	cr_assert_eq(call(post_fork_fn, 0, NULL), 0, "%s", st.last_error);
	expect_gpus((1u << 0) | (1u << 1) | (1u << 2));
}

Test(spank_plugin, off_binds_nothing)
{
	init_ok("cgroup=off");
	spawn();
	cr_assert_eq(call(post_fork_fn, 0, NULL), 0, "%s", st.last_error);
	expect_gpus(0xf);
}

Test(spank_plugin, outside_slurmstepd_nothing_is_bound)
{
	init_ok(NULL);
	st.ctx = S_CTX_LOCAL;
	spawn();
	cr_assert_eq(call(post_fork_fn, 0, NULL), 0);
	expect_gpus(0xf);
}

Test(spank_plugin, a_failure_stops_the_task_and_tells_the_user)
{
	char seen[1024] = "";
	const char *want = "qosdeny: job %u step 0 task 0: GPU binding failed, "
			   "task not started: SLURM_STEP_GPUS=9: GPU index 9, "
			   "but this node has 4 GPUs (GPUs from %s/gres.conf)";
	char expected[1024];
	ssize_t n;

	snprintf(expected, sizeof(expected), want, st.job, dir);
	init_ok(NULL);
	spawn();
	st.env[0] = "SLURM_STEP_GPUS=9";
	cr_assert_lt(call(post_fork_fn, 0, NULL), 0);
	cr_assert_str_eq(st.last_error, expected);
	/* The same line on the task's stderr. */
	n = read(err_r, seen, sizeof(seen) - 1);
	cr_assert_gt(n, 0);
	seen[n] = '\0';
	cr_assert_str_eq(seen, strcat(expected, "\n"));
	cr_assert_not(cgroup_exists("devices"));
	cr_assert_not(cgroup_exists(NULL));
}

/*
 * A node as AutoDetect leaves it (gres.conf without File=: qosdeny falls
 * back to /dev/nvidia[0-9]* in minor order), laid out in a mount namespace
 * of this test's own: /dev/nvidia0 and 1, and the driver's view of them in
 * /proc/driver/nvidia/gpus, the GPU on the first bus holding minor `first`.
 */
static void autodetect_node(int first)
{
	const char *bus[] = {"0000:3b:00.0", "0000:5e:00.0"};
	char p[128];
	FILE *f;

	struct stat sb;

	if (stat("/proc/driver", &sb))
		cr_skip_test("no /proc/driver to lay the driver's view over");
	cr_assert_eq(unshare(CLONE_NEWNS), 0, "unshare: %s", strerror(errno));
	cr_assert_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	cr_assert_eq(mount("qd", "/dev", "tmpfs", 0, "mode=755"), 0, "%s",
		     strerror(errno));
	cr_assert_eq(mknod("/dev/null", S_IFCHR | 0666, makedev(1, 3)), 0);
	cr_assert_eq(mount("qd", "/proc/driver", "tmpfs", 0, "mode=755"), 0,
		     "%s", strerror(errno));
	cr_assert_eq(mkdir("/proc/driver/nvidia", 0755), 0);
	cr_assert_eq(mkdir("/proc/driver/nvidia/gpus", 0755), 0);
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "/dev/nvidia%d", i);
		cr_assert_eq(mknod(p, S_IFCHR | 0666, makedev(195, i)), 0);
		snprintf(p, sizeof(p), "/proc/driver/nvidia/gpus/%s", bus[i]);
		cr_assert_eq(mkdir(p, 0755), 0);
		strcat(p, "/information");
		f = fopen(p, "w");
		cr_assert_not_null(f);
		fprintf(f, "Model: \t\t A100\nDevice Minor: \t %d\n",
			i ? 1 - first : first);
		fclose(f);
	}
	write_in("gres.conf", "AutoDetect=nvml\n");
}

/* The fallback binds only where minor order is Slurm's bus order. */
Test(spank_plugin, autodetect_out_of_bus_order_refuses_binding)
{
	autodetect_node(1);
	init_ok(NULL);
	spawn();
	st.env[0] = "SLURM_STEP_GPUS=0";
	cr_assert_lt(call(post_fork_fn, 0, NULL), 0);
	cr_expect(strstr(st.last_error,
			 "SLURM_STEP_GPUS=0: AutoDetect: GPU 0000:3b:00.0 is "
			 "/dev/nvidia1 but GPU 0000:5e:00.0, after it in PCI "
			 "bus order, is /dev/nvidia0"),
		  "%s", st.last_error);
	cr_expect_not(cgroup_exists("devices"));
}

Test(spank_plugin, autodetect_in_bus_order_binds)
{
	autodetect_node(0);
	init_ok(NULL);
	spawn();
	st.env[0] = "SLURM_STEP_GPUS=1";
	cr_assert_eq(call(post_fork_fn, 0, NULL), 0, "%s", st.last_error);
	/* The node's GPUs are 195:0 and 195:1, the test's own nvidia0 and
	 * nvidia1: 0 denied; 2 and 3 are no GPU of this node's. */
	cr_assert(cgroup_exists("devices"));
	expect_gpus((1u << 1) | (1u << 2) | (1u << 3));
}

Test(spank_plugin, a_missing_gpu_file_stops_the_task)
{
	char opt[128];

	snprintf(opt, sizeof(opt), "gpu_devices=%s/nvidia[0-4]", dir);
	init_ok(opt);
	spawn();
	cr_assert_lt(call(post_fork_fn, 0, NULL), 0);
	cr_assert(strstr(st.last_error, "nvidia4: No such file or directory"),
		  "%s", st.last_error);
}

Test(spank_plugin, exit_removes_what_task_exit_could_not)
{
	init_ok("cgroup=v1");
	spawn();
	st.env[0] = "SLURM_STEP_GPUS=0";
	cr_assert_eq(call(post_fork_fn, 0, NULL), 0, "%s", st.last_error);
	/* Still running: task_exit must leave its cgroup in place. */
	cr_assert_eq(call(task_exit_fn, 0, NULL), 0);
	cr_assert(cgroup_exists("devices"));
	expect_gpus(1u << 0);
	cr_assert_eq(call(exit_fn, 0, NULL), 0);
	cr_assert_not(cgroup_exists("devices"));
}
