/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny doctor's pure parts: its lines (tools/doctor/doctor_output.c) and
 * the readers of Slurm's text (tools/doctor/doctor_text.c). The checks
 * themselves run on the test cluster (tests/integration/t_doctor.sh).
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <string.h>

#include "doctor.h"

static void redirect(void)
{
	cr_redirect_stdout();
}

Test(doctor_output, parsable_header_once_and_fix_only_when_not_ok,
     .init = redirect)
{
	struct qd_doctor d = {.parsable = true};

	qd_doctor_line(&d, QD_DOC_OK, "redis", "answers", "ignored");
	qd_doctor_line(&d, QD_DOC_WARN, "prolog-flags", "no Alloc",
		       "set PrologFlags=Alloc");
	qd_doctor_linef(&d, QD_DOC_FAIL, "plugstack", "fix it", "%s:%d: bad",
			"/etc/slurm/plugstack.conf", 3);
	fflush(stdout);
	cr_assert_stdout_eq_str(
	    "Status|Check|Detail|Fix\n"
	    "ok|redis|answers|\n"
	    "warn|prolog-flags|no Alloc|set PrologFlags=Alloc\n"
	    "FAIL|plugstack|/etc/slurm/plugstack.conf:3: bad|fix it\n");
	cr_assert_eq(d.n_warn, 1);
	cr_assert_eq(d.n_fail, 1);
	cr_assert_eq(qd_doctor_exit(&d), 1);
}

Test(doctor_output, separators_in_texts_become_blanks, .init = redirect)
{
	struct qd_doctor d = {.parsable = true};

	qd_doctor_line(&d, QD_DOC_WARN, "a|b", "x|y\nz", "f|g");
	fflush(stdout);
	cr_assert_stdout_eq_str("Status|Check|Detail|Fix\n"
				"warn|a b|x y z|f g\n");
}

Test(doctor_output, aligned_with_the_fix_below, .init = redirect)
{
	struct qd_doctor d = {0};

	qd_doctor_line(&d, QD_DOC_OK, "spool", "writable", NULL);
	qd_doctor_line(&d, QD_DOC_WARN, "prolog-flags", "no Alloc",
		       "set PrologFlags=Alloc");
	fflush(stdout);
	cr_assert_stdout_eq_str("ok    spool                writable\n"
				"warn  prolog-flags         no Alloc\n"
				"                           fix: set "
				"PrologFlags=Alloc\n");
	cr_assert_eq(qd_doctor_exit(&d), 0);
}

Test(doctor_text, conf_value_last_one_case_insensitive_comments_skipped)
{
	char v[64];

	qd_doctor_conf_value(
	    "CgroupPlugin=cgroup/v1\n"
	    "# CgroupPlugin=cgroup/v2\n"
	    "ConstrainDevices=yes cgroupplugin=cgroup/v2 # x\n",
	    "CgroupPlugin", v, sizeof(v));
	cr_assert_str_eq(v, "cgroup/v2");
	qd_doctor_conf_value("CgroupPluginX=a\nIgnoreSystemd=yes\n",
			     "CgroupPlugin", v, sizeof(v));
	cr_assert_str_eq(v, "");
	qd_doctor_conf_value("", "CgroupPlugin", v, sizeof(v));
	cr_assert_str_eq(v, "");
}

Test(doctor_text, list_has_with_and_without_prefix)
{
	cr_assert(qd_doctor_list_has("lua,qosdeny", "job_submit/", "qosdeny"));
	cr_assert(
	    qd_doctor_list_has("job_submit/qosdeny", "job_submit/", "qosdeny"));
	cr_assert_not(
	    qd_doctor_list_has("qosdenyx,lua", "job_submit/", "qosdeny"));
	cr_assert_not(qd_doctor_list_has("", "job_submit/", "qosdeny"));
	cr_assert(qd_doctor_list_has("associations,limits,qos", "", "qos"));
	cr_assert_not(qd_doctor_list_has("gres/gpu:a100", "", "gres/gpu"));
}

/* Where Slurm puts a task in a cgroup2 cgroup of its own (binding in place,
 * node/cgroup.h), from the node's settings alone. */
Test(doctor_text, slurm_task_cgroups_from_the_settings)
{
	cr_assert(qd_doctor_slurm_task_cgroups("cgroup/v2", "proctrack/cgroup",
					       "task/none",
					       "jobacct_gather/none"));
	cr_assert(qd_doctor_slurm_task_cgroups(
	    "cgroup/v2", "proctrack/linuxproc", "task/affinity,task/cgroup",
	    "jobacct_gather/none"));
	cr_assert(qd_doctor_slurm_task_cgroups(
	    "cgroup/v2", "proctrack/linuxproc", "affinity,cgroup", ""));
	cr_assert(
	    qd_doctor_slurm_task_cgroups("cgroup/v2", "proctrack/linuxproc",
					 "task/none", "jobacct_gather/cgroup"));
	/* No plugin of Slurm's makes a step cgroup: qosdeny owns the cgroup. */
	cr_assert_not(qd_doctor_slurm_task_cgroups(
	    "cgroup/v2", "proctrack/linuxproc", "task/affinity",
	    "jobacct_gather/linux"));
	/* cgroup/v1's cgroups are no cgroup2 cgroups, whatever tracks. */
	cr_assert_not(qd_doctor_slurm_task_cgroups(
	    "cgroup/v1", "proctrack/cgroup", "task/cgroup",
	    "jobacct_gather/cgroup"));
	cr_assert_not(qd_doctor_slurm_task_cgroups("none", "proctrack/cgroup",
						   "task/cgroup", ""));
}

/* A /proc/net/tcp or tcp6 line as this host's kernel writes it
 * (little-endian words), appended to buf: a socket at LOCAL (HEX:PORT) in
 * STATE (0A: listening), owned by uid. */
static void sock_line(char *buf, size_t len, const char *local,
		      const char *state, int uid)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n,
		 "   0: %s 00000000:0000 %s 00000000:00000000 00:00000000 "
		 "00000000 %5d        0 1059 1 0 100 0 0 10 0\n",
		 local, state, uid);
}

/* Who listens where a connection to the loopback's port 6379 (18EB)
 * would go. */
Test(doctor_text, loopback_listener_uid)
{
	char text[2048] = "  sl  local_address rem_address   st tx_queue "
			  "rx_queue tr tm->when retrnsmt   uid  timeout "
			  "inode\n";
	size_t head = strlen(text);

	/* 127.0.0.1:6379 by redis (uid 110), 10.0.0.5:6379 by 1001, and
	 * an established connection of 1002 from that port. */
	sock_line(text, sizeof(text), "0100007F:18EB", "0A", 110);
	sock_line(text, sizeof(text), "0500000A:18EB", "0A", 1001);
	sock_line(text, sizeof(text), "0100007F:18EB", "01", 1002);
	cr_expect_eq(qd_doctor_loopback_listener_uid(text, 6379), 110);
	cr_expect_eq(qd_doctor_loopback_listener_uid(text, 6380), -1);
	/* 0.0.0.0:6379 and 127.1.2.3:6379 reach it too. */
	text[head] = '\0';
	sock_line(text, sizeof(text), "00000000:18EB", "0A", 1001);
	cr_expect_eq(qd_doctor_loopback_listener_uid(text, 6379), 1001);
	text[head] = '\0';
	sock_line(text, sizeof(text), "0302017F:18EB", "0A", 1003);
	cr_expect_eq(qd_doctor_loopback_listener_uid(text, 6379), 1003);
	/* tcp6: ::1, ::ffff:127.0.0.1, not 2001:db8::1 (words in host
	 * order). */
	text[head] = '\0';
	sock_line(text, sizeof(text), "00000000000000000000000001000000:18EB",
		  "0A", 1004);
	sock_line(text, sizeof(text), "0000000000000000FFFF00000100007F:18EB",
		  "0A", 1005);
	sock_line(text, sizeof(text), "B80D0120000000000000000001000000:18EB",
		  "0A", 1006);
	cr_expect_eq(qd_doctor_loopback_listener_uid(text, 6379), 1005);
	cr_expect_eq(qd_doctor_loopback_listener_uid("", 6379), -1);
	cr_expect_eq(qd_doctor_loopback_listener_uid("0: x:18EB", 6379), -1);
}

Test(doctor_text, uid_min_from_login_defs)
{
	cr_expect_eq(qd_doctor_uid_min(NULL), 1000);
	cr_expect_eq(qd_doctor_uid_min("#UID_MIN 500\nSUB_UID_MIN 100000\n"),
		     1000);
	cr_expect_eq(qd_doctor_uid_min("UID_MIN\t\t\t 1000\n"), 1000);
	cr_expect_eq(qd_doctor_uid_min("UID_MIN 500\nUID_MAX 60000\n"), 500);
	cr_expect_eq(qd_doctor_uid_min("UID_MIN x\n"), 1000);
}
