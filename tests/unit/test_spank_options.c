/*
 * plugstack.conf arguments (contract section 5): every option, the defaults,
 * and a "qosdeny: " error naming whatever is unknown or malformed.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "options.h"

static struct qd_spank_opts o;
static char err[512];

#define ARGS(...)                                                              \
	(char *const[])                                                        \
	{                                                                      \
		__VA_ARGS__                                                    \
	}
#define NARGS(...) (int)(sizeof(ARGS(__VA_ARGS__)) / sizeof(char *))

static void parse_ok(int argc, char *const argv[])
{
	qd_spank_opts_init(&o);
	err[0] = '\0';
	cr_assert_eq(qd_spank_opts_parse(&o, argc, argv, err, sizeof(err)), 0,
		     "%s", err);
}

#define OK(...) parse_ok(NARGS(__VA_ARGS__), ARGS(__VA_ARGS__))

/* word after a valid option, so that its own error is the one reported */
static void bad(const char *word, const char *want)
{
	char *const argv[] = {strncmp(word, "cgroup", 6) ? "cgroup=auto"
							 : "cluster=c",
			      (char *)word};

	qd_spank_opts_init(&o);
	cr_assert_eq(qd_spank_opts_parse(&o, 2, argv, err, sizeof(err)), -1,
		     "'%s' accepted", word);
	cr_assert(!strncmp(err, "qosdeny: ", 9), "%s", err);
	cr_assert(strstr(err, want), "'%s' does not say '%s'", err, want);
}

Test(spank_options, defaults)
{
	parse_ok(0, NULL);
	cr_assert_str_eq(o.redis_host, "127.0.0.1");
	cr_assert_eq(o.redis_port, 6379);
	cr_assert_str_eq(o.redis_unix, "");
	cr_assert_str_eq(o.redis_password_file, "");
	cr_assert_str_eq(o.cluster, "");
	cr_assert_str_eq(o.spool, "");
	cr_assert_eq(o.timeout_ms, 500);
	cr_assert_eq(o.cgroup, QD_CG_AUTO);
	cr_assert_str_eq(o.gpu_devices, "");
}

Test(spank_options, the_contract_line)
{
	OK("redis=127.0.0.1:6379",
	   "redis_password_file=/etc/slurm/qosdeny-redis.pass");
	cr_assert_str_eq(o.redis_host, "127.0.0.1");
	cr_assert_eq(o.redis_port, 6379);
	cr_assert_str_eq(o.redis_password_file,
			 "/etc/slurm/qosdeny-redis.pass");
}

Test(spank_options, every_option)
{
	OK("redis=redis.example.org:7000", "cluster=qd-test_2",
	   "spool=/var/spool/slurmd/qd", "timeout_ms=1500", "cgroup=v2",
	   "gpu_devices=/dev/nvidia[0-3]");
	cr_assert_str_eq(o.redis_host, "redis.example.org");
	cr_assert_eq(o.redis_port, 7000);
	cr_assert_str_eq(o.cluster, "qd-test_2");
	cr_assert_str_eq(o.spool, "/var/spool/slurmd/qd");
	cr_assert_eq(o.timeout_ms, 1500);
	cr_assert_eq(o.cgroup, QD_CG_V2);
	cr_assert_str_eq(o.gpu_devices, "/dev/nvidia[0-3]");
}

Test(spank_options, redis_forms)
{
	OK("redis=unix:/run/redis/redis.sock");
	cr_assert_str_eq(o.redis_unix, "/run/redis/redis.sock");
	cr_assert_str_eq(o.redis_host, "");
	OK("redis=[::1]:6380");
	cr_assert_str_eq(o.redis_host, "::1");
	cr_assert_eq(o.redis_port, 6380);
	cr_assert_str_eq(o.redis_unix, "");
}

Test(spank_options, cgroup_modes)
{
	OK("cgroup=v1");
	cr_assert_eq(o.cgroup, QD_CG_V1);
	OK("cgroup=off");
	cr_assert_eq(o.cgroup, QD_CG_OFF);
	OK("cgroup=auto");
	cr_assert_eq(o.cgroup, QD_CG_AUTO);
}

Test(spank_options, unknown_options_are_named)
{
	bad("verbose", "unknown option 'verbose' in plugstack.conf");
	bad("redis_host=x", "unknown option 'redis_host=x'");
	bad("Redis=127.0.0.1:6379", "unknown option 'Redis=127.0.0.1:6379'");
	bad("=1", "unknown option '=1'");
}

Test(spank_options, values_are_required)
{
	bad("redis", "option 'redis' needs a value");
	bad("cluster=", "option 'cluster=' needs a value");
}

Test(spank_options, repeated_options_are_errors)
{
	char *const argv[] = {"timeout_ms=5", "cgroup=v1", "timeout_ms=5"};

	qd_spank_opts_init(&o);
	cr_assert_eq(qd_spank_opts_parse(&o, 3, argv, err, sizeof(err)), -1);
	cr_assert_str_eq(err, "qosdeny: option 'timeout_ms' given twice");
}

Test(spank_options, malformed_values_are_named)
{
	bad("redis=localhost", "redis=localhost: expected HOST:PORT");
	bad("redis=localhost:0", "redis=localhost:0: expected");
	bad("redis=localhost:65536", "redis=localhost:65536: expected");
	bad("redis=:6379", "redis=:6379: expected");
	bad("redis=a:b:6379", "redis=a:b:6379: expected");
	bad("redis=[::1]6379", "redis=[::1]6379: expected");
	bad("redis=unix:run/redis.sock",
	    "redis=unix:run/redis.sock: expected an absolute path");
	bad("redis_password_file=pass",
	    "redis_password_file=pass: expected an absolute path");
	bad("spool=spool", "spool=spool: expected an absolute path");
	bad("cluster=a b", "cluster=a b: a cluster name is");
	bad("cluster=x/y", "cluster=x/y: a cluster name is");
	bad("timeout_ms=0", "timeout_ms=0: expected milliseconds, 1 to 600000");
	bad("timeout_ms=600001", "timeout_ms=600001: expected");
	bad("timeout_ms=5s", "timeout_ms=5s: expected");
	bad("timeout_ms=-1", "timeout_ms=-1: expected");
	bad("cgroup=v3", "cgroup=v3: expected auto, v1, v2 or off");
	bad("cgroup=V1", "cgroup=V1: expected");
}
