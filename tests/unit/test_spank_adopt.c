/* SPDX-License-Identifier: GPL-2.0-or-later
 * The records behind pam_qosdeny.so (node/adopt.c): written whole, read
 * back only when root's and writable by root alone, the node found for a
 * job, refusals kept.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "adopt.h"

static char dir[64];
static char err[PATH_MAX + 512];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/qd-adopt.XXXXXX");
	cr_assert(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "teardown: %s failed\n", cmd);
}

TestSuite(adopt, .init = setup, .fini = teardown);

Test(adopt, record_round_trip)
{
	struct qd_adopt_rec r = {.mode = QD_CG_V2, .prog_id = 42}, back;
	char text[PATH_MAX + 1024], buf[PATH_MAX + 1024];

	snprintf(r.dir, sizeof(r.dir), "/sys/fs/cgroup/qosdeny_7_extern_1");
	cr_assert_eq(qd_adopt_format(&r, text, sizeof(text)), 0);
	cr_assert_eq(
	    qd_adopt_write(dir, "n1", 7, "adopt", text, err, sizeof(err)), 0,
	    "%s", err);
	cr_assert_eq(qd_adopt_read(dir, "n1", 7, "adopt", buf, sizeof(buf), err,
				   sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(qd_adopt_parse(buf, &back, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(back.mode, QD_CG_V2);
	cr_assert_eq(back.prog_id, 42);
	cr_assert_str_eq(back.dir, r.dir);
	cr_assert_eq(back.refuse[0], '\0');
}

Test(adopt, refusal_kept)
{
	struct qd_adopt_rec r = {.mode = QD_CG_V1}, back;
	char text[1024];

	snprintf(r.refuse, sizeof(r.refuse), "no GPUs recorded");
	cr_assert_eq(qd_adopt_format(&r, text, sizeof(text)), 0);
	cr_assert_eq(qd_adopt_parse(text, &back, err, sizeof(err)), 0);
	cr_assert_str_eq(back.refuse, "no GPUs recorded");
}

/* The extern step's directory on Slurm's cgroup/v2, in every kind of
 * record; a record from before step= still reads, with none. */
Test(adopt, the_extern_step_is_kept)
{
	struct qd_adopt_rec r = {.mode = QD_CG_OFF}, back;
	char text[2 * PATH_MAX + 1024];
	const char *step = "/sys/fs/cgroup/system.slice/"
			   "n1_slurmstepd.scope/s4CDM8EPVE3X00/step_extern";

	snprintf(r.step, sizeof(r.step), "%s", step);
	cr_assert_eq(qd_adopt_format(&r, text, sizeof(text)), 0);
	cr_assert_eq(qd_adopt_parse(text, &back, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_eq(back.mode, QD_CG_OFF);
	cr_assert_str_eq(back.step, step);
	r.mode = QD_CG_V2;
	r.slurm = 1;
	snprintf(r.dir, sizeof(r.dir), "%s/user/task_special", step);
	cr_assert_eq(qd_adopt_format(&r, text, sizeof(text)), 0);
	cr_assert_eq(qd_adopt_parse(text, &back, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_str_eq(back.step, step);
	cr_assert_str_eq(back.dir, r.dir);
	snprintf(r.refuse, sizeof(r.refuse), "no GPUs recorded");
	cr_assert_eq(qd_adopt_format(&r, text, sizeof(text)), 0);
	cr_assert_eq(qd_adopt_parse(text, &back, err, sizeof(err)), 0, "%s",
		     err);
	cr_assert_str_eq(back.step, step);
	cr_assert_eq(qd_adopt_parse("mode=v2\nslurm=1\nprog=0\ndir=/x\n", &back,
				    err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(back.step[0], '\0');
	cr_assert_neq(qd_adopt_parse("mode=off\nstep=relative\n", &back, err,
				     sizeof(err)),
		      0);
}

Test(adopt, bad_records_rejected)
{
	struct qd_adopt_rec back;

	cr_assert_neq(qd_adopt_parse("", &back, err, sizeof(err)), 0);
	cr_assert_neq(qd_adopt_parse("mode=v3\n", &back, err, sizeof(err)), 0);
	/* A confinement without its cgroup would confine nothing. */
	cr_assert_neq(qd_adopt_parse("mode=v1\n", &back, err, sizeof(err)), 0);
	cr_assert_neq(
	    qd_adopt_parse("mode=v2\ndir=/x\n", &back, err, sizeof(err)), 0);
	cr_assert_neq(qd_adopt_parse("mode=v1\ndir=/x\nuser=alice\n", &back,
				     err, sizeof(err)),
		      0);
}

Test(adopt, not_root_only_refused)
{
	char path[PATH_MAX], buf[64];

	if (geteuid() != 0)
		cr_skip_test("needs root (chown)");
	cr_assert_eq(qd_adopt_write(dir, "n1", 3, "adopt", "mode=off\n", err,
				    sizeof(err)),
		     0);
	snprintf(path, sizeof(path), "%s/n1/job_3.adopt", dir);
	cr_assert_eq(chmod(path, 0622), 0);
	cr_assert_neq(qd_adopt_read(dir, "n1", 3, "adopt", buf, sizeof(buf),
				    err, sizeof(err)),
		      0);
	cr_assert_eq(errno, EPERM);
	cr_assert_eq(chmod(path, 0600), 0);
	cr_assert_eq(chown(path, 65534, 0), 0);
	cr_assert_neq(qd_adopt_read(dir, "n1", 3, "adopt", buf, sizeof(buf),
				    err, sizeof(err)),
		      0);
	cr_assert_eq(chown(path, 0, 0), 0);
	cr_assert_eq(qd_adopt_read(dir, "n1", 3, "adopt", buf, sizeof(buf), err,
				   sizeof(err)),
		     0, "%s", err);
	cr_assert_str_eq(buf, "mode=off");
}

Test(adopt, node_found_when_unique)
{
	char node[64];

	cr_assert_neq(
	    qd_adopt_find_node(dir, 5, node, sizeof(node), err, sizeof(err)),
	    0);
	cr_assert_eq(qd_adopt_write(dir, "n2", 5, "adopt", "mode=off\n", err,
				    sizeof(err)),
		     0);
	cr_assert_eq(qd_adopt_write(dir, "n1", 6, "adopt", "mode=off\n", err,
				    sizeof(err)),
		     0);
	cr_assert_eq(
	    qd_adopt_find_node(dir, 5, node, sizeof(node), err, sizeof(err)), 0,
	    "%s", err);
	cr_assert_str_eq(node, "n2");
	cr_assert_eq(qd_adopt_write(dir, "n1", 5, "adopt", "mode=off\n", err,
				    sizeof(err)),
		     0);
	cr_assert_neq(
	    qd_adopt_find_node(dir, 5, node, sizeof(node), err, sizeof(err)),
	    0);
	cr_assert(strstr(err, "give nodename="), "%s", err);
	cr_assert_eq(qd_adopt_remove(dir, "n1", 5, "adopt", err, sizeof(err)),
		     0);
	cr_assert_eq(qd_adopt_remove(dir, "n1", 5, "adopt", err, sizeof(err)),
		     0, "already gone is fine");
}

Test(adopt, node_name_must_be_a_file_name)
{
	cr_assert_neq(qd_adopt_write(dir, "../etc", 1, "adopt", "mode=off\n",
				     err, sizeof(err)),
		      0);
	cr_assert_neq(qd_adopt_write(dir, "..", 1, "adopt", "mode=off\n", err,
				     sizeof(err)),
		      0);
}

/* A directory of records that anyone but root may write in is refused,
 * writing and reading: its writer could put another job's record in the
 * place of this one's. A missing one keeps ENOENT (no record yet). */
Test(adopt, directory_must_be_roots)
{
	char buf[256], sub[128];

	cr_assert_eq(qd_adopt_write(dir, "n1", 4, "adopt", "mode=off\n", err,
				    sizeof(err)),
		     0, "%s", err);
	snprintf(sub, sizeof(sub), "%s/n1", dir);
	cr_assert_eq(chmod(sub, 0777), 0);
	cr_expect_neq(qd_adopt_read(dir, "n1", 4, "adopt", buf, sizeof(buf),
				    err, sizeof(err)),
		      0);
	cr_expect_eq(errno, EPERM);
	cr_expect(strstr(err, "mode 0777: not a directory owned by root and "
			      "writable by root alone: refused"),
		  "%s", err);
	cr_expect_neq(qd_adopt_write(dir, "n1", 5, "adopt", "mode=off\n", err,
				     sizeof(err)),
		      0);
	cr_assert_eq(chmod(sub, 0755), 0);
	cr_assert_eq(chmod(dir, 0770), 0);
	cr_expect_neq(qd_adopt_read(dir, "n1", 4, "adopt", buf, sizeof(buf),
				    err, sizeof(err)),
		      0, "group-writable");
	cr_assert_eq(chmod(dir, 0700), 0);
	cr_expect_eq(qd_adopt_read(dir, "n1", 4, "adopt", buf, sizeof(buf), err,
				   sizeof(err)),
		     0, "%s", err);
	cr_expect_neq(qd_adopt_read(dir, "n9", 4, "adopt", buf, sizeof(buf),
				    err, sizeof(err)),
		      0);
	cr_expect_eq(errno, ENOENT);
}

/* The confinement's counts (node_counts.h) live in DIR/NODE: counted only
 * once slurmd's metrics thread made the file, on that node alone. */
Test(adopt, confinement_counted_per_node)
{
	struct qd_node_counts c;
	char sub[128];

	qd_adopt_count(dir, "n1", QD_NC_SSH_REFUSED);
	cr_assert_eq(
	    qd_adopt_counts_dir(dir, "n1", sub, sizeof(sub), err, sizeof(err)),
	    0, "%s", err);
	cr_assert_eq(qd_node_counts_create(sub, err, sizeof(err)), 0, "%s",
		     err);
	qd_adopt_count(dir, "n1", QD_NC_SSH_REFUSED);
	qd_adopt_count(dir, "n1", QD_NC_BIND_TASK);
	qd_adopt_count(dir, "n2", QD_NC_BIND_TASK);
	qd_adopt_count(dir, "..", QD_NC_BIND_TASK);
	cr_assert_eq(qd_node_counts_read(sub, &c, err, sizeof(err)), 0, "%s",
		     err);
	cr_expect_eq(c.v[QD_NC_SSH_REFUSED], 1, "none before the file");
	cr_expect_eq(c.v[QD_NC_BIND_TASK], 1, "n1's alone");
	cr_expect_neq(
	    qd_adopt_counts_dir(dir, "a/b", sub, sizeof(sub), err, sizeof(err)),
	    0);
}

/* A session refused before its node is known counts on the host's only
 * node; with two, on none. */
Test(adopt, sole_node)
{
	char node[64], sub[128];

	cr_expect_neq(qd_adopt_sole_node(dir, node, sizeof(node)), 0);
	cr_assert_eq(
	    qd_adopt_counts_dir(dir, "n1", sub, sizeof(sub), err, sizeof(err)),
	    0, "%s", err);
	cr_assert_eq(qd_adopt_sole_node(dir, node, sizeof(node)), 0);
	cr_expect_str_eq(node, "n1");
	cr_assert_eq(
	    qd_adopt_counts_dir(dir, "n2", sub, sizeof(sub), err, sizeof(err)),
	    0, "%s", err);
	cr_expect_neq(qd_adopt_sole_node(dir, node, sizeof(node)), 0);
}
