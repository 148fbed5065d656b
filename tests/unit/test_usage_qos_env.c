/* SPDX-License-Identifier: GPL-2.0-or-later
 * The job's QoS in its SPANK environment: whatever the submitter put under
 * qosdeny's name is gone, the one entry job_submit/qosdeny sets is last,
 * and nothing leaks, out of memory too.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "usage_qos_env.h"

static int live;      /* allocations not released */
static int fail_from; /* the zalloc call that fails first; 0: none */
static int calls;

static void *zalloc(size_t size)
{
	void *p;

	if (fail_from && ++calls >= fail_from)
		return NULL;
	p = calloc(1, size);
	live += p != NULL;
	return p;
}

static void release(void *p)
{
	live -= p != NULL;
	free(p);
}

static const struct qd_env_alloc alloc = {zalloc, release};

static void setup(void)
{
	live = fail_from = calls = 0;
}

TestSuite(qos_env, .init = setup);

static char *dup(const char *s)
{
	char *p = zalloc(strlen(s) + 1);

	return strcpy(p, s);
}

/* An array as Slurm unpacks one: n entries and a NULL. */
static char **env_of(const char *const *v, uint32_t n)
{
	char **env = zalloc((n + 1) * sizeof(*env));

	for (uint32_t i = 0; i < n; i++)
		env[i] = v[i] ? dup(v[i]) : NULL;
	return env;
}

static void env_free(char **env, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		release(env[i]);
	release(env);
}

Test(qos_env, the_submitters_entries_under_our_name_go)
{
	static const char *const sent[] = {
	    "SPANK_QOSDENY_QOS=forged", "SPANK_MINE=1",
	    "QOSDENY_QOS=forged",	NULL,
	    "SPANK_QOSDENY_X=y",	"QOSDENYX=kept",
	    "OTHER_QOSDENY_QOS=kept",
	};
	uint32_t n = 7;
	char **env = env_of(sent, n);

	cr_assert_eq(qd_qos_env_set(&env, &n, "interactive", &alloc), 0);
	cr_assert_eq(n, 4);
	cr_expect_str_eq(env[0], "SPANK_MINE=1");
	cr_expect_str_eq(env[1], "QOSDENYX=kept");
	cr_expect_str_eq(env[2], "OTHER_QOSDENY_QOS=kept");
	cr_expect_str_eq(env[3], "SPANK_QOSDENY_QOS=interactive");
	cr_expect_null(env[4]);
	env_free(env, n);
	cr_expect_eq(live, 0, "%d allocations leaked", live);
}

Test(qos_env, set_twice_is_one_entry)
{
	char **env = NULL;
	uint32_t n = 0;

	cr_assert_eq(qd_qos_env_set(&env, &n, "normal", &alloc), 0);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(env[0], QD_QOS_ENV "=normal");
	cr_expect_null(env[1]);
	cr_assert_eq(qd_qos_env_set(&env, &n, "research", &alloc), 0);
	cr_assert_eq(n, 1);
	cr_expect_str_eq(env[0], QD_QOS_ENV "=research");
	cr_assert_eq(qd_qos_env_set(&env, &n, "", &alloc), 0);
	cr_expect_str_eq(env[0], QD_QOS_ENV "=", "unknown QoS: empty");
	env_free(env, n);
	cr_expect_eq(live, 0);
}

Test(qos_env, out_of_memory_still_removes_the_forged_entries)
{
	static const char *const sent[] = {"A=1", "SPANK_QOSDENY_QOS=forged",
					   "B=2"};

	for (int f = 1; f <= 2; f++) {
		uint32_t n = 3;
		char **env = env_of(sent, n);

		calls = 0;
		fail_from = f;
		cr_expect_eq(qd_qos_env_set(&env, &n, "normal", &alloc), -1);
		fail_from = 0;
		cr_assert_eq(n, 2);
		cr_expect_str_eq(env[0], "A=1");
		cr_expect_str_eq(env[1], "B=2");
		cr_expect_null(env[2]);
		env_free(env, n);
		cr_expect_eq(live, 0, "allocation %d failing leaks %d", f,
			     live);
	}
}

Test(qos_env, ours)
{
	cr_expect(qd_qos_env_ours("SPANK_QOSDENY_QOS=x"));
	cr_expect(qd_qos_env_ours("QOSDENY_QOS=x"));
	cr_expect(qd_qos_env_ours("SPANK_QOSDENY_ANYTHING"));
	cr_expect_not(qd_qos_env_ours("SPANK_QOSDENYQOS=x"));
	cr_expect_not(qd_qos_env_ours("SPANK_SPANK_QOSDENY_QOS=x"));
	cr_expect_not(qd_qos_env_ours("SLURM_JOB_QOS=x"));
}
