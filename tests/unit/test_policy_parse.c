/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "policy.h"

static const char contract_example[] =
    "# global settings\n"
    "Enforce=yes                  # yes: deny. no: accept, but log every "
    "job that would have been denied\n"
    "ExemptUsers=root,slurm       # never checked (default: none)\n"
    "UsageHalfLife=7-0            # decay of the GPU usage kept in Redis; "
    "Slurm time syntax\n"
    "\n"
    "# one record per QoS whose limits should reject at submit time "
    "instead of pending\n"
    "QOS=interactive Flags=DenyOnMaxPerJob,DenyOnMaxPerUser,DenyOnGrp\n"
    "QOS=research    Flags=DenyOnMaxPerJob  MaxTRESPerJob=gres/gpu=8\n"
    "QOS=limited     Flags=DenyOnMaxPerUser "
    "MaxTRESPerUser=cpu=32,gres/gpu:a100=2\n";

static struct qd_policy *parse_ok(const char *text)
{
	char err[QD_ERR_MAX] = "";
	struct qd_policy *p = qd_policy_parse("t.conf", text, err, sizeof(err));

	cr_assert_not_null(p, "rejected: %s", err);
	return p;
}

static void parse_fails(const char *text, const char *want)
{
	char err[QD_ERR_MAX] = "";
	struct qd_policy *p = qd_policy_parse("t.conf", text, err, sizeof(err));

	cr_assert_null(p, "accepted: %s", text);
	cr_assert_str_eq(err, want);
}

Test(policy, contract_example)
{
	struct qd_policy *p = parse_ok(contract_example);
	const struct qd_qos_rule *r;

	cr_assert(p->enforce);
	cr_assert_eq(p->n_exempt, 2);
	cr_assert_str_eq(p->exempt_users[0], "root");
	cr_assert_str_eq(p->exempt_users[1], "slurm");
	cr_assert_eq(p->usage_half_life_s, 7 * 86400);
	cr_assert_eq(p->n_rules, 3);
	cr_assert_eq(p->n_shares, 0);

	r = qd_policy_rule(p, "interactive");
	cr_assert_not_null(r);
	cr_assert_eq(r->flags, QD_DENY_ON_MAX_PER_JOB |
				   QD_DENY_ON_MAX_PER_USER | QD_DENY_ON_GRP);
	cr_assert_eq(r->line, 7);
	cr_assert_not(r->max_per_job.set[QD_TRES_GPU]);

	r = qd_policy_rule(p, "research");
	cr_assert_eq(r->flags, QD_DENY_ON_MAX_PER_JOB);
	cr_assert_eq(r->line, 8);
	cr_assert_eq(qd_tres_get(&r->max_per_job, QD_TRES_GPU, 0), 8);
	cr_assert_not(r->max_per_job.set[QD_TRES_CPU]);
	cr_assert_not(r->max_per_user.set[QD_TRES_GPU]);

	r = qd_policy_rule(p, "limited");
	cr_assert_eq(r->flags, QD_DENY_ON_MAX_PER_USER);
	cr_assert_eq(qd_tres_get(&r->max_per_user, QD_TRES_CPU, 0), 32);
	cr_assert_eq(qd_tres_get_typed(&r->max_per_user, "a100", 0), 2);
	cr_assert_not(r->grp.set[QD_TRES_CPU]);

	cr_assert_null(qd_policy_rule(p, "normal"));
	qd_policy_free(p);
}

Test(policy, defaults)
{
	struct qd_policy *p = parse_ok("# nothing but a comment\n\n   \n");

	cr_assert(p->enforce);
	cr_assert_eq(p->n_exempt, 0);
	cr_assert_eq(p->usage_half_life_s, 604800);
	cr_assert_eq(p->n_rules, 0);
	cr_assert_not(qd_policy_is_exempt(p, "root"));
	qd_policy_free(p);
	p = parse_ok("");
	cr_assert_eq(p->n_rules, 0);
	qd_policy_free(p);
}

Test(policy, globals_together_on_one_line)
{
	struct qd_policy *p =
	    parse_ok("Enforce=no ExemptUsers=alice UsageHalfLife=1:30:00");

	cr_assert_not(p->enforce);
	cr_assert(qd_policy_is_exempt(p, "alice"));
	cr_assert_eq(p->usage_half_life_s, 5400);
	qd_policy_free(p);
}

Test(policy, case_insensitive_keys_flags_and_values)
{
	struct qd_policy *p =
	    parse_ok("enforce=NO\nexemptusers=Bob\nusagehalflife=2-0\n"
		     "qos=Interactive FLAGS=denyonmaxperjob,DENYONGRP "
		     "maxtresperjob=GRES/GPU=4 grptres=Cpu=64 "
		     "MAXTRESPERUSER=mem=1g\n");
	const struct qd_qos_rule *r = qd_policy_rule(p, "INTERACTIVE");

	cr_assert_not(p->enforce);
	cr_assert_eq(p->usage_half_life_s, 2 * 86400);
	cr_assert_not_null(r);
	cr_assert_str_eq(r->name, "Interactive");
	cr_assert_eq(r->flags, QD_DENY_ON_MAX_PER_JOB | QD_DENY_ON_GRP);
	cr_assert_eq(qd_tres_get(&r->max_per_job, QD_TRES_GPU, 0), 4);
	cr_assert_eq(qd_tres_get(&r->grp, QD_TRES_CPU, 0), 64);
	cr_assert_eq(qd_tres_get(&r->max_per_user, QD_TRES_MEM, 0), 1024);
	qd_policy_free(p);
}

Test(policy, exempt_users_compare_exactly)
{
	struct qd_policy *p = parse_ok("ExemptUsers=Bob,root\n");

	cr_assert(qd_policy_is_exempt(p, "Bob"));
	cr_assert(qd_policy_is_exempt(p, "root"));
	cr_assert_not(qd_policy_is_exempt(p, "bob"));
	cr_assert_not(qd_policy_is_exempt(p, "roo"));
	qd_policy_free(p);
}

Test(policy, enforce_yes_after_default)
{
	struct qd_policy *p = parse_ok("Enforce=Yes\n");

	cr_assert(p->enforce);
	qd_policy_free(p);
}

Test(policy, comments_end_at_line_end)
{
	struct qd_policy *p =
	    parse_ok("QOS=a Flags=DenyOnGrp#MaxTRESPerJob=cpu=1\n"
		     "   # QOS=b Flags=DenyOnGrp\n"
		     "QOS=c Flags=DenyOnGrp # trailing words = here\n");

	cr_assert_eq(p->n_rules, 2);
	cr_assert_not(qd_policy_rule(p, "a")->max_per_job.set[QD_TRES_CPU]);
	cr_assert_null(qd_policy_rule(p, "b"));
	cr_assert_eq(qd_policy_rule(p, "c")->line, 3);
	qd_policy_free(p);
}

Test(policy, continuation_lines)
{
	struct qd_policy *p = parse_ok("# head\n"
				       "QOS=gpu \\\n"
				       "    Flags=DenyOnMaxPerJob \\\n"
				       "    MaxTRESPerJob=cpu=8,\\\n"
				       "gres/gpu=2   \\   \n"
				       "\n"
				       "QOS=next Flags=DenyOnGrp\n");
	const struct qd_qos_rule *r = qd_policy_rule(p, "gpu");

	cr_assert_not_null(r);
	cr_assert_eq(r->line, 2);
	cr_assert_eq(r->flags, QD_DENY_ON_MAX_PER_JOB);
	cr_assert_eq(qd_tres_get(&r->max_per_job, QD_TRES_CPU, 0), 8);
	cr_assert_eq(qd_tres_get(&r->max_per_job, QD_TRES_GPU, 0), 2);
	cr_assert_eq(qd_policy_rule(p, "next")->line, 7);
	qd_policy_free(p);
}

Test(policy, backslash_inside_a_comment_continues_nothing)
{
	struct qd_policy *p = parse_ok("QOS=a Flags=DenyOnGrp # note \\\n"
				       "QOS=b Flags=DenyOnGrp\n");

	cr_assert_eq(p->n_rules, 2);
	qd_policy_free(p);
}

Test(policy, continuation_on_the_last_line)
{
	struct qd_policy *p = parse_ok("QOS=a Flags=DenyOnGrp \\");

	cr_assert_eq(p->n_rules, 1);
	qd_policy_free(p);
}

Test(policy, crlf_line_endings)
{
	struct qd_policy *p =
	    parse_ok("Enforce=no\r\nQOS=a Flags=DenyOnGrp\r\n");

	cr_assert_not(p->enforce);
	cr_assert_not_null(qd_policy_rule(p, "a"));
	qd_policy_free(p);
}

Test(policy, share_records)
{
	struct qd_policy *p = parse_ok("Account=research Shares=500\n"
				       "User=alice Account=research Shares=1\n"
				       "Account=batch User=bob Shares=3\n");

	cr_assert_eq(p->n_shares, 3);
	cr_assert_str_eq(p->shares[0].account, "research");
	cr_assert_str_eq(p->shares[0].user, "");
	cr_assert_eq(p->shares[0].shares, 500);
	cr_assert_eq(p->shares[0].line, 1);
	cr_assert_str_eq(p->shares[1].account, "research");
	cr_assert_str_eq(p->shares[1].user, "alice");
	cr_assert_eq(p->shares[1].shares, 1);
	cr_assert_str_eq(p->shares[2].account, "batch");
	cr_assert_str_eq(p->shares[2].user, "bob");
	cr_assert_eq(p->shares[2].shares, 3);
	cr_assert_eq(p->shares[2].line, 3);
	cr_assert_eq(p->n_rules, 0);
	qd_policy_free(p);
}

Test(policy, same_user_in_two_accounts)
{
	struct qd_policy *p = parse_ok("User=alice Account=a Shares=1\n"
				       "User=alice Account=b Shares=2\n");

	cr_assert_eq(p->n_shares, 2);
	qd_policy_free(p);
}

Test(policy, longest_names_fit)
{
	char text[256];
	struct qd_policy *p;

	snprintf(text, sizeof(text), "QOS=%0*d Flags=DenyOnGrp\n",
		 QD_NAME_MAX - 1, 0);
	p = parse_ok(text);
	cr_assert_eq(strlen(p->rules[0].name), QD_NAME_MAX - 1);
	qd_policy_free(p);
}

/* Held in place: parameters are copied into the test's process. */
struct bad_case {
	char text[160];
	char err[200];
};

ParameterizedTestParameters(policy, errors)
{
	static struct bad_case cases[] = {
	    {"Foo=1\n", "t.conf:1: unknown key 'Foo=1'"},
	    {"\n\nQOS=a Flags=DenyOnGrp Colour=red\n",
	     "t.conf:3: unknown key 'Colour=red'"},
	    {"Enforce\n", "t.conf:1: missing value 'Enforce'"},
	    {"Enforce=\n", "t.conf:1: missing value 'Enforce='"},
	    {"QOS= Flags=DenyOnGrp\n", "t.conf:1: missing value 'QOS='"},
	    {"QOS=a Flags=\n", "t.conf:1: missing value 'Flags='"},
	    {"Enforce=maybe\n",
	     "t.conf:1: Enforce must be yes or no 'Enforce=maybe'"},
	    {"Enforce=true\n",
	     "t.conf:1: Enforce must be yes or no 'Enforce=true'"},
	    {"UsageHalfLife=7d\n",
	     "t.conf:1: invalid time (Slurm syntax, e.g. 7-0 for 7 days) "
	     "'UsageHalfLife=7d'"},
	    {"UsageHalfLife=UNLIMITED\n",
	     "t.conf:1: invalid time (Slurm syntax, e.g. 7-0 for 7 days) "
	     "'UsageHalfLife=UNLIMITED'"},
	    {"UsageHalfLife=0\n", "t.conf:1: UsageHalfLife must be more "
				  "than 0 'UsageHalfLife=0'"},
	    {"Flags=DenyOnGrp\n",
	     "t.conf:1: key not allowed on a global line 'Flags=DenyOnGrp'"},
	    {"Shares=1\n",
	     "t.conf:1: key not allowed on a global line 'Shares=1'"},
	    {"QOS=a Flags=DenyOnGrp Enforce=no\n",
	     "t.conf:1: key not allowed in a QOS record 'Enforce=no'"},
	    {"Enforce=no QOS=a Flags=DenyOnGrp\n",
	     "t.conf:1: key not allowed in a QOS record 'Enforce=no'"},
	    {"QOS=a Flags=DenyOnGrp Shares=1\n",
	     "t.conf:1: key not allowed in a QOS record 'Shares=1'"},
	    {"Account=a Shares=1 Flags=DenyOnGrp\n",
	     "t.conf:1: key not allowed in an Account record "
	     "'Flags=DenyOnGrp'"},
	    {"User=u Account=a Shares=1 GrpTRES=cpu=1\n",
	     "t.conf:1: key not allowed in a User record 'GrpTRES=cpu=1'"},
	    {"QOS=a Flags=DenyOnGrp Flags=DenyOnGrp\n",
	     "t.conf:1: repeated key (first on line 1) 'Flags=DenyOnGrp'"},
	    {"QOS=a Flags=DenyOnGrp \\\n qos=b\n",
	     "t.conf:2: repeated key (first on line 1) 'qos=b'"},
	    {"Enforce=yes\n\nenforce=no\n",
	     "t.conf:3: repeated key (first on line 1) 'enforce=no'"},
	    {"ExemptUsers=a ExemptUsers=b\n",
	     "t.conf:1: repeated key (first on line 1) 'ExemptUsers=b'"},
	    {"QOS=a Flags=DenyOnGrp,DenyOnFoo\n",
	     "t.conf:1: unknown flag 'DenyOnFoo'"},
	    {"QOS=a Flags=DenyOnGrpX\n", "t.conf:1: unknown flag 'DenyOnGrpX'"},
	    {"QOS=a Flags=DenyOnGrp,\n",
	     "t.conf:1: empty flag in 'Flags=DenyOnGrp,'"},
	    {"QOS=a Flags=DenyOnGrp MaxTRESPerJob=gres/gpu=abc\n",
	     "t.conf:1: MaxTRESPerJob: invalid TRES count 'gres/gpu=abc'"},
	    {"QOS=a Flags=DenyOnGrp GrpTRES=license/x=1\n",
	     "t.conf:1: GrpTRES: unknown TRES 'license/x=1'"},
	    {"QOS=a Flags=DenyOnGrp maxtresperuser=cpu=1,cpu=2\n",
	     "t.conf:1: MaxTRESPerUser: TRES 'cpu' given twice"},
	    {"QOS=a \\\n  Flags=DenyOnGrp \\\n  GrpTRES=cpu=1,,mem=1\n",
	     "t.conf:3: GrpTRES: empty TRES item in 'cpu=1,,mem=1'"},
	    {"QOS=a\n", "t.conf:1: QOS record without Flags 'QOS=a'"},
	    {"QOS=a MaxTRESPerJob=cpu=1\n",
	     "t.conf:1: QOS record without Flags 'QOS=a'"},
	    {"# c\nQOS=research Flags=DenyOnGrp\n\nqos=RESEARCH "
	     "Flags=DenyOnMaxPerJob\n",
	     "t.conf:4: duplicate QOS record (first on line 2) "
	     "'qos=RESEARCH'"},
	    {"QOS=a Flags=DenyOnGrp\nFlags=DenyOnGrp \\\n  QOS=a\n",
	     "t.conf:3: duplicate QOS record (first on line 1) 'QOS=a'"},
	    {"ExemptUsers=root,,slurm\n",
	     "t.conf:1: empty user name in 'ExemptUsers=root,,slurm'"},
	    {"ExemptUsers=root,\n",
	     "t.conf:1: empty user name in 'ExemptUsers=root,'"},
	    {"Account=a\n",
	     "t.conf:1: Account record without Shares 'Account=a'"},
	    {"User=u Shares=1\n",
	     "t.conf:1: User record without Account 'User=u'"},
	    {"User=u Account=a\n",
	     "t.conf:1: User record without Shares 'User=u'"},
	    {"Account=a Shares=0\n",
	     "t.conf:1: Shares must be a positive integer 'Shares=0'"},
	    {"Account=a Shares=-1\n",
	     "t.conf:1: Shares must be a positive integer 'Shares=-1'"},
	    {"Account=a Shares=1.5\n",
	     "t.conf:1: Shares must be a positive integer 'Shares=1.5'"},
	    {"Account=a Shares=4294967296\n",
	     "t.conf:1: Shares must be a positive integer "
	     "'Shares=4294967296'"},
	    {"Account=a Shares=1\nAccount=A Shares=2\n",
	     "t.conf:2: duplicate Account record (first on line 1) "
	     "'Account=A'"},
	    {"User=u Account=a Shares=1\nAccount=a User=u Shares=2\n",
	     "t.conf:2: duplicate User record in account a (first on line "
	     "1) 'User=u'"},
	    {"Enforce = yes\n", "t.conf:1: missing value 'Enforce'"},
	    {"=yes\n", "t.conf:1: unknown key '=yes'"},
	};
	return cr_make_param_array(struct bad_case, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_case *c, policy, errors)
{
	parse_fails(c->text, c->err);
}

Test(policy, name_too_long)
{
	char text[256], want[256];

	snprintf(text, sizeof(text), "QOS=%0*d Flags=DenyOnGrp\n", QD_NAME_MAX,
		 0);
	snprintf(want, sizeof(want),
		 "t.conf:1: name too long (at most 63 characters) 'QOS=%0*d'",
		 QD_NAME_MAX, 0);
	parse_fails(text, want);
	snprintf(text, sizeof(text), "ExemptUsers=root,%0*d\n", QD_NAME_MAX, 0);
	snprintf(want, sizeof(want),
		 "t.conf:1: name too long (at most 63 characters) '%0*d'",
		 QD_NAME_MAX, 0);
	parse_fails(text, want);
	snprintf(text, sizeof(text), "User=u Account=%0*d Shares=1\n",
		 QD_NAME_MAX, 0);
	snprintf(want, sizeof(want),
		 "t.conf:1: name too long (at most 63 characters) "
		 "'Account=%0*d'",
		 QD_NAME_MAX, 0);
	parse_fails(text, want);
}

Test(policy, error_names_the_path)
{
	char err[QD_ERR_MAX];

	cr_assert_null(qd_policy_parse("/etc/slurm/qosdeny.conf", "Foo=1\n",
				       err, sizeof(err)));
	cr_assert_str_eq(err, "/etc/slurm/qosdeny.conf:1: unknown key 'Foo=1'");
}

/* Files under a fresh directory, removed after each test. */
static char dir[64];
static char path[128];

static void make_dir(void)
{
	strcpy(dir, "/tmp/qd_policy_XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/qosdeny.conf", dir);
}

static void remove_dir(void)
{
	unlink(path);
	rmdir(dir);
}

static void write_file(const char *text, time_t mtime)
{
	struct timespec times[2] = {{mtime, 0}, {mtime, 0}};
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(utimensat(AT_FDCWD, path, times, 0), 0);
}

TestSuite(policy_file, .init = make_dir, .fini = remove_dir);

Test(policy_file, load_reads_the_file)
{
	char err[QD_ERR_MAX];
	struct qd_policy *p;

	write_file(contract_example, 1000);
	p = qd_policy_load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_assert_eq(p->n_rules, 3);
	qd_policy_free(p);
}

Test(policy_file, load_errors_name_the_path)
{
	char err[QD_ERR_MAX], want[256];

	cr_assert_null(qd_policy_load(path, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	cr_assert_str_eq(err, want);

	cr_assert_null(qd_policy_load(dir, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: Is a directory", dir);
	cr_assert_str_eq(err, want);

	write_file("Enforce=no\nBad=1\n", 1000);
	cr_assert_null(qd_policy_load(path, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s:2: unknown key 'Bad=1'", path);
	cr_assert_str_eq(err, want);
}

/* A FIFO with no writer: refused at once, never opened to wait for one
 * (Criterion's timeout fails a test that blocks). */
Test(policy_file, a_fifo_is_refused_without_blocking, .timeout = 10)
{
	char err[QD_ERR_MAX], want[256];

	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_null(qd_policy_load(path, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: not a regular file", path);
	cr_assert_str_eq(err, want);
}

Test(policy_file, load_rejects_nul_bytes)
{
	char err[QD_ERR_MAX], want[256];
	int fd = open(path, O_WRONLY | O_CREAT, 0600);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "Enforce=no\n\0Bad=1\n", 18), 18);
	close(fd);
	cr_assert_null(qd_policy_load(path, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: not a text file (NUL byte)", path);
	cr_assert_str_eq(err, want);
}

Test(policy_file, load_reads_large_files)
{
	size_t n = 2000, len = 0;
	char *text = malloc(n * 40), err[QD_ERR_MAX];
	struct qd_policy *p;

	for (size_t i = 0; i < n; i++)
		len += sprintf(text + len, "QOS=q%zu Flags=DenyOnGrp\n", i);
	write_file(text, 1000);
	free(text);
	p = qd_policy_load(path, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	cr_assert_eq(p->n_rules, n);
	cr_assert_eq(qd_policy_rule(p, "q1999")->line, 2000);
	qd_policy_free(p);
}

static struct qd_policy_file pf;

static enum qd_refresh refresh(char *err)
{
	strcpy(err, "");
	return qd_policy_file_refresh(&pf, err, QD_ERR_MAX);
}

static struct qd_policy *first_load(const char *text)
{
	char err[QD_ERR_MAX];

	memset(&pf, 0, sizeof(pf));
	strcpy(pf.path, path);
	write_file(text, 1000);
	cr_assert_eq(refresh(err), QD_REFRESH_RELOADED, "%s", err);
	cr_assert_not_null(pf.current);
	return pf.current;
}

Test(policy_file, unchanged_file_is_not_reread)
{
	char err[QD_ERR_MAX];
	struct qd_policy *p = first_load("QOS=a Flags=DenyOnGrp\n");

	cr_assert_eq(refresh(err), QD_REFRESH_SAME);
	cr_assert_eq(pf.current, p);
	/* Same size, inode and mtime: a refresh must not even read it. */
	write_file("QOS=b Flags=DenyOnGrp\n", 1000);
	cr_assert_eq(refresh(err), QD_REFRESH_SAME);
	cr_assert_not_null(qd_policy_rule(pf.current, "a"));
	qd_policy_file_release(&pf);
	cr_assert_null(pf.current);
}

Test(policy_file, changed_mtime_reloads)
{
	char err[QD_ERR_MAX];

	first_load("QOS=a Flags=DenyOnGrp\n");
	write_file("QOS=b Flags=DenyOnGrp\n", 1001);
	cr_assert_eq(refresh(err), QD_REFRESH_RELOADED, "%s", err);
	cr_assert_null(qd_policy_rule(pf.current, "a"));
	cr_assert_not_null(qd_policy_rule(pf.current, "b"));
	cr_assert_eq(refresh(err), QD_REFRESH_SAME);
	qd_policy_file_release(&pf);
}

/* qd_policy_file_changed: the new policy and its text go to the caller
 * (job_submit/qosdeny's watcher swaps them in under its lock); the policy
 * in force is not touched, the signature is. */
Test(policy_file, changed_leaves_the_swap_to_the_caller)
{
	char err[QD_ERR_MAX], *text = NULL;
	struct qd_policy *p = first_load("QOS=a Flags=DenyOnGrp\n"), *got;

	write_file("QOS=b Flags=DenyOnGrp\n", 1001);
	cr_assert_eq(qd_policy_file_changed(&pf, &got, &text, err, sizeof(err)),
		     QD_REFRESH_RELOADED, "%s", err);
	cr_assert_eq(pf.current, p);
	cr_assert_not_null(qd_policy_rule(got, "b"));
	cr_assert_str_eq(text, "QOS=b Flags=DenyOnGrp\n");
	cr_assert_eq(qd_policy_file_changed(&pf, &got, &text, err, sizeof(err)),
		     QD_REFRESH_SAME);
	qd_policy_file_set(&pf, got, text);
	cr_assert_not_null(qd_policy_rule(pf.current, "b"));
	qd_policy_file_release(&pf);
}

Test(policy_file, changed_size_reloads)
{
	char err[QD_ERR_MAX];

	first_load("QOS=a Flags=DenyOnGrp\n");
	write_file("QOS=a Flags=DenyOnGrp\nQOS=bb Flags=DenyOnGrp\n", 1000);
	cr_assert_eq(refresh(err), QD_REFRESH_RELOADED, "%s", err);
	cr_assert_eq(pf.current->n_rules, 2);
	qd_policy_file_release(&pf);
}

Test(policy_file, replaced_file_reloads)
{
	char err[QD_ERR_MAX], tmp[160];
	FILE *f;

	first_load("QOS=a Flags=DenyOnGrp\n");
	/* An editor's save: same size and mtime, but a new inode. */
	snprintf(tmp, sizeof(tmp), "%s/new", dir);
	f = fopen(tmp, "w");
	fputs("QOS=b Flags=DenyOnGrp\n", f);
	fclose(f);
	cr_assert_eq(utimensat(AT_FDCWD, tmp,
			       (struct timespec[2]){{1000, 0}, {1000, 0}}, 0),
		     0);
	cr_assert_eq(rename(tmp, path), 0);
	cr_assert_eq(refresh(err), QD_REFRESH_RELOADED, "%s", err);
	cr_assert_not_null(qd_policy_rule(pf.current, "b"));
	qd_policy_file_release(&pf);
}

Test(policy_file, broken_reload_keeps_the_old_policy_and_reports_once)
{
	char err[QD_ERR_MAX], want[256];
	struct qd_policy *p = first_load("QOS=a Flags=DenyOnGrp\n");

	write_file("QOS=a Flags=DenyOnGrp\nQOS=b Flags=Nope\n", 1001);
	cr_assert_eq(refresh(err), QD_REFRESH_FAILED);
	snprintf(want, sizeof(want), "%s:2: unknown flag 'Nope'", path);
	cr_assert_str_eq(err, want);
	cr_assert_eq(pf.current, p);
	cr_assert_not_null(qd_policy_rule(pf.current, "a"));
	cr_assert_eq(refresh(err), QD_REFRESH_SAME);
	cr_assert_eq(pf.current, p);

	write_file("QOS=c Flags=DenyOnGrp\n", 1002);
	cr_assert_eq(refresh(err), QD_REFRESH_RELOADED, "%s", err);
	cr_assert_not_null(qd_policy_rule(pf.current, "c"));
	qd_policy_file_release(&pf);
}

Test(policy_file, removed_file_keeps_the_old_policy)
{
	char err[QD_ERR_MAX], want[256];
	struct qd_policy *p = first_load("QOS=a Flags=DenyOnGrp\n");

	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(refresh(err), QD_REFRESH_FAILED);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	cr_assert_str_eq(err, want);
	cr_assert_eq(pf.current, p);
	cr_assert_eq(refresh(err), QD_REFRESH_SAME);

	write_file("QOS=back Flags=DenyOnGrp\n", 1000);
	cr_assert_eq(refresh(err), QD_REFRESH_RELOADED, "%s", err);
	cr_assert_not_null(qd_policy_rule(pf.current, "back"));
	qd_policy_file_release(&pf);
}

/* The site factor runs without a qosdeny.conf, refreshing every interval: a
 * missing or broken file with no policy in force is reported once too, until
 * it changes. */
Test(policy_file, without_a_policy_a_failure_is_reported_once)
{
	char err[QD_ERR_MAX], want[256];

	memset(&pf, 0, sizeof(pf));
	strcpy(pf.path, path);
	cr_assert_eq(refresh(err), QD_REFRESH_FAILED);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	cr_assert_str_eq(err, want);
	cr_assert_eq(refresh(err), QD_REFRESH_SAME);
	write_file("Bad=1\n", 1000);
	cr_assert_eq(refresh(err), QD_REFRESH_FAILED);
	cr_assert_eq(refresh(err), QD_REFRESH_SAME);
	cr_assert_null(pf.current);
	write_file("Enforce=no\n", 1000);
	cr_assert_eq(refresh(err), QD_REFRESH_RELOADED, "%s", err);
	cr_assert_not(pf.current->enforce);
	cr_assert_str_eq(pf.text, "Enforce=no\n");
	qd_policy_file_release(&pf);
	cr_assert_null(pf.text);
}

/* qosdeny check: every bad record is reported, in file order. */
struct collected {
	int n;
	char errs[4][QD_ERR_MAX];
};

static void collect_err(const char *err, void *arg)
{
	struct collected *c = arg;

	if (c->n < 4)
		snprintf(c->errs[c->n], QD_ERR_MAX, "%s", err);
	c->n++;
}

Test(policy_check, reports_every_bad_record_in_order)
{
	struct collected c = {0};
	int n = qd_policy_check("f.conf",
				"Enforce=maybe\n"
				"QOS=a Flags=DenyOnGrp\n"
				"QOS=b Flags=DenyOnNothing\n"
				"QOS=a Flags=DenyOnGrp\n",
				collect_err, &c);

	cr_assert_eq(n, 3);
	cr_assert_eq(c.n, 3);
	cr_assert_str_eq(c.errs[0],
			 "f.conf:1: Enforce must be yes or no 'Enforce=maybe'");
	cr_assert_str_eq(c.errs[1], "f.conf:3: unknown flag 'DenyOnNothing'");
	cr_assert(strstr(c.errs[2], "f.conf:4: duplicate QOS record"));
}

Test(policy_check, valid_file_reports_nothing)
{
	struct collected c = {0};

	cr_assert_eq(qd_policy_check("f.conf", "QOS=a Flags=DenyOnGrp\n",
				     collect_err, &c),
		     0);
	cr_assert_eq(c.n, 0);
}

/* FairShareClusters= (docs/fair-share.md, "Several clusters"): the clusters
 * whose usage counts in fair share; none given, none listed. */
Test(policy, fair_share_clusters)
{
	struct qd_policy *p = parse_ok("FairShareClusters=gpu-a,gpu_b.2,C@3\n");

	cr_assert_eq(p->n_fs_clusters, 3);
	cr_expect_str_eq(p->fs_clusters[0], "gpu-a");
	cr_expect_str_eq(p->fs_clusters[1], "gpu_b.2");
	cr_expect_str_eq(p->fs_clusters[2], "C@3");
	qd_policy_free(p);

	p = parse_ok("Enforce=no fairshareclusters=one \\\n"
		     "  ExemptUsers=root\nQOS=a Flags=DenyOnGrp\n");
	cr_assert_eq(p->n_fs_clusters, 1);
	cr_expect_str_eq(p->fs_clusters[0], "one");
	cr_expect_not(p->enforce);
	cr_expect_eq(p->n_exempt, 1);
	cr_expect_eq(p->n_rules, 1);
	qd_policy_free(p);

	p = parse_ok(contract_example);
	cr_expect_eq(p->n_fs_clusters, 0);
	cr_expect_null(p->fs_clusters);
	qd_policy_free(p);
}

/* Names of 63 characters, the most, and the cluster names alike but for
 * case (Redis keys are case-sensitive, so are these). */
Test(policy, fair_share_clusters_longest_and_case)
{
	char text[256];
	struct qd_policy *p;

	snprintf(text, sizeof(text), "FairShareClusters=%0*d,a,A\n",
		 QD_NAME_MAX - 1, 7);
	p = parse_ok(text);
	cr_assert_eq(p->n_fs_clusters, 3);
	cr_expect_eq(strlen(p->fs_clusters[0]), 63);
	cr_expect_eq(p->fs_clusters[0][62], '7');
	cr_expect_str_eq(p->fs_clusters[1], "a");
	cr_expect_str_eq(p->fs_clusters[2], "A");
	qd_policy_free(p);
}

Test(policy, fair_share_clusters_errors)
{
	static const char *const cases[][2] = {
	    {"FairShareClusters=\n",
	     "t.conf:1: missing value 'FairShareClusters='"},
	    {"FairShareClusters=a,,b\n",
	     "t.conf:1: empty cluster name in 'FairShareClusters=a,,b'"},
	    {"FairShareClusters=,a\n",
	     "t.conf:1: empty cluster name in 'FairShareClusters=,a'"},
	    {"FairShareClusters=a,\n",
	     "t.conf:1: empty cluster name in 'FairShareClusters=a,'"},
	    {"FairShareClusters=a{b\n", "t.conf:1: invalid cluster name 'a{b'"},
	    {"FairShareClusters=ok,b:c,d\n",
	     "t.conf:1: invalid cluster name 'b:c'"},
	    {"FairShareClusters=a}\n", "t.conf:1: invalid cluster name 'a}'"},
	    {"FairShareClusters=a/b\n", "t.conf:1: invalid cluster name 'a/b'"},
	    {"FairShareClusters=a*\n", "t.conf:1: invalid cluster name 'a*'"},
	    {"FairShareClusters=a,b,a\n", "t.conf:1: cluster listed twice 'a'"},
	    {"FairShareClusters=x,y,z,y\n",
	     "t.conf:1: cluster listed twice 'y'"},
	    {"QOS=a Flags=DenyOnGrp FairShareClusters=x\n",
	     "t.conf:1: key not allowed in a QOS record "
	     "'FairShareClusters=x'"},
	    {"Account=a Shares=1 FairShareClusters=x\n",
	     "t.conf:1: key not allowed in an Account record "
	     "'FairShareClusters=x'"},
	    {"User=u Account=a Shares=1 FairShareClusters=x\n",
	     "t.conf:1: key not allowed in a User record "
	     "'FairShareClusters=x'"},
	    {"FairShareClusters=a\n# c\nFairShareClusters=b\n",
	     "t.conf:3: repeated key (first on line 1) 'FairShareClusters=b'"},
	    {"Enforce=yes \\\n  FairShareClusters=a,a\n",
	     "t.conf:2: cluster listed twice 'a'"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		parse_fails(cases[i][0], cases[i][1]);
}

Test(policy, fair_share_cluster_name_too_long)
{
	char text[256], want[256];

	snprintf(text, sizeof(text), "FairShareClusters=a,%0*d,b\n",
		 QD_NAME_MAX, 0);
	snprintf(want, sizeof(want),
		 "t.conf:1: name too long (at most 63 characters) '%0*d'",
		 QD_NAME_MAX, 0);
	parse_fails(text, want);
}

/* qosdeny check reports it with the other errors. */
Test(policy_check, fair_share_clusters_reported)
{
	struct collected c = {0};
	int n = qd_policy_check("f.conf",
				"FairShareClusters=a,a\n"
				"QOS=a Flags=DenyOnGrp FairShareClusters=b\n",
				collect_err, &c);

	cr_assert_eq(n, 2);
	cr_assert_str_eq(c.errs[0], "f.conf:1: cluster listed twice 'a'");
	cr_assert_str_eq(c.errs[1], "f.conf:2: key not allowed in a QOS "
				    "record 'FairShareClusters=b'");
}

/* At most QD_FS_CLUSTERS_MAX clusters: `qosdeny share` and the site factor
 * keep that many, so a longer list is refused rather than cut. */
Test(policy, fair_share_clusters_at_most_64)
{
	char text[1024] = "FairShareClusters=", want[128];
	struct qd_policy *p;

	cr_assert_eq(QD_FS_CLUSTERS_MAX, 64);
	for (int i = 0; i < 64; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "%sc%d", i ? "," : "", i);
	p = parse_ok(text);
	cr_assert_eq(p->n_fs_clusters, 64);
	cr_expect_str_eq(p->fs_clusters[63], "c63");
	qd_policy_free(p);
	strcat(text, ",c64,c65");
	snprintf(want, sizeof(want), "t.conf:1: more than 64 clusters 'c64'");
	parse_fails(text, want);
}

Test(policy, metrics_settings_default_to_none_every_30_s)
{
	struct qd_policy *p = parse_ok("Enforce=yes\n");

	cr_assert_str_eq(p->metrics_dir, "");
	cr_assert_eq(p->metrics_interval_s, 30);
	cr_assert_not(p->metrics_per_user);
	qd_policy_free(p);
}

Test(policy, metrics_settings)
{
	struct qd_policy *p = parse_ok("metrics_dir=/var/lib/node_exporter\n"
				       "Metrics_Interval=15 "
				       "METRICS_PER_USER=yes\n");

	cr_assert_str_eq(p->metrics_dir, "/var/lib/node_exporter");
	cr_assert_eq(p->metrics_interval_s, 15);
	cr_assert(p->metrics_per_user);
	qd_policy_free(p);
}

Test(policy, metrics_settings_errors)
{
	parse_fails("metrics_dir=var/lib\n",
		    "t.conf:1: metrics_dir must be an absolute path "
		    "'metrics_dir=var/lib'");
	parse_fails("\nmetrics_interval=0\n",
		    "t.conf:2: metrics_interval must be whole seconds, 1 to "
		    "86400 'metrics_interval=0'");
	parse_fails("metrics_interval=86401\n",
		    "t.conf:1: metrics_interval must be whole seconds, 1 to "
		    "86400 'metrics_interval=86401'");
	parse_fails("metrics_interval=99999999999999999999999\n",
		    "t.conf:1: metrics_interval must be whole seconds, 1 to "
		    "86400 'metrics_interval=99999999999999999999999'");
	parse_fails("metrics_interval=1m\n",
		    "t.conf:1: metrics_interval must be whole seconds, 1 to "
		    "86400 'metrics_interval=1m'");
	parse_fails("metrics_per_user=1\n",
		    "t.conf:1: metrics_per_user must be yes or no "
		    "'metrics_per_user=1'");
	parse_fails("QOS=a Flags=DenyOnGrp metrics_dir=/x\n",
		    "t.conf:1: key not allowed in a QOS record "
		    "'metrics_dir=/x'");
}
