/* SPDX-License-Identifier: GPL-2.0-or-later
 * plugstack.conf arguments (qosdeny(1), PLUGSTACK.CONF OPTIONS): every option,
 * the defaults, and a "qosdeny: " error naming whatever is unknown or
 * malformed.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "spank_opts.h"

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
	cr_assert_str_eq(o.redis, "127.0.0.1:6379");
	cr_assert_str_eq(o.redis_password_file, "");
	cr_assert_str_eq(o.redis_user, "");
	cr_assert_eq(o.redis_replicas, -1);
	cr_assert_str_eq(o.redis_tls_ca, "");
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
	cr_assert_str_eq(o.redis, "127.0.0.1:6379");
	cr_assert_str_eq(o.redis_password_file,
			 "/etc/slurm/qosdeny-redis.pass");
}

Test(spank_options, every_option)
{
	OK("redis=redis.example.org:7000", "cluster=qd-test_2",
	   "spool=/var/spool/slurmd/qd", "timeout_ms=1500", "cgroup=v2",
	   "gpu_devices=/dev/nvidia[0-3]");
	cr_assert_str_eq(o.redis, "redis.example.org:7000");
	cr_assert_str_eq(o.cluster, "qd-test_2");
	cr_assert_str_eq(o.spool, "/var/spool/slurmd/qd");
	cr_assert_eq(o.timeout_ms, 1500);
	cr_assert_eq(o.cgroup, QD_CG_V2);
	cr_assert_str_eq(o.gpu_devices, "/dev/nvidia[0-3]");
}

Test(spank_options, redis_forms)
{
	OK("redis=unix:/run/redis/redis.sock");
	cr_assert_str_eq(o.redis, "unix:/run/redis/redis.sock");
	OK("redis=[::1]:6380");
	cr_assert_str_eq(o.redis, "[::1]:6380");
	OK("redis=sentinel:10.0.0.1:26379,[::1]:26380,s3.example.org:1/"
	   "qd-main");
	cr_assert_str_eq(o.redis, "sentinel:10.0.0.1:26379,[::1]:26380,"
				  "s3.example.org:1/qd-main");
	OK("redis=sentinel:s1:26379/m");
	cr_assert_str_eq(o.redis, "sentinel:s1:26379/m");
}

Test(spank_options, replicated_store_options)
{
	OK("redis_user=qd-node", "redis_replicas=2");
	cr_assert_str_eq(o.redis_user, "qd-node");
	cr_assert_eq(o.redis_replicas, 2);
	OK("redis_replicas=0");
	cr_assert_eq(o.redis_replicas, 0);
	bad("redis_replicas=-1", "redis_replicas=-1: expected 0 to 64");
	bad("redis_replicas=65", "redis_replicas=65: expected 0 to 64");
	bad("redis_user=a b", "redis_user=a b: a user name has no blanks");
}

Test(spank_options, tls_options)
{
	char *const argv[] = {"redis_tls_ca=/etc/ssl/qd-ca.pem",
			      "redis_tls_cert=/etc/ssl/qd.pem",
			      "redis_tls_key=/etc/ssl/qd.key"};

	qd_spank_opts_init(&o);
	if (qd_redis_tls_built()) {
		cr_assert_eq(qd_spank_opts_parse(&o, 3, argv, err, sizeof(err)),
			     0, "%s", err);
		cr_assert_str_eq(o.redis_tls_key, "/etc/ssl/qd.key");
		bad("redis_tls_ca=ca.pem",
		    "redis_tls_ca=ca.pem: expected an absolute path");
		return;
	}
	/* Refused, saying why, never ignored. */
	bad("redis_tls_ca=/etc/ssl/qd-ca.pem",
	    "redis_tls_ca=/etc/ssl/qd-ca.pem: this qosdeny was built without "
	    "TLS: its hiredis has no hiredis_ssl");
	bad("redis_tls_cert=/x", "redis_tls_cert=/x: this qosdeny was built");
}

Test(spank_options, sentinel_forms_are_strict)
{
	bad("redis=sentinel:s1:26379", "redis=sentinel:s1:26379: sentinel: "
				       "no '/NAME'");
	bad("redis=sentinel:s1:26379/", "master name '': expected 1 to 63");
	bad("redis=sentinel:s1:26379/a b", "master name 'a b'");
	bad("redis=sentinel:/m", "sentinel '': expected HOST:PORT");
	bad("redis=sentinel:s1:26379,,s2:1/m", "sentinel '': expected");
	bad("redis=sentinel:s1/m", "sentinel 's1': expected HOST:PORT");
	bad("redis=sentinel:s1:0/m", "sentinel 's1:0'");
	bad("redis=sentinel:a b:1/m", "sentinel 'a b:1'");
	bad("redis=sentinel:a:1,b:2,c:3,d:4,e:5,f:6,g:7,h:8,i:9,j:10,k:11,"
	    "l:12,m:13,n:14,o:15,p:16,q:17/m",
	    "more than 16 sentinels");
	bad("redis=unix:/"
	    "0123456789012345678901234567890123456789"
	    "0123456789012345678901234567890123456789"
	    "01234567890123456789012345678",
	    "socket path longer than 107 bytes");
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

Test(spank_options, metrics)
{
	parse_ok(0, NULL);
	cr_assert_str_eq(o.metrics_dir, "");
	cr_assert_eq(o.metrics_interval_s, 30);
	OK("metrics_dir=/var/lib/prometheus/node-exporter",
	   "metrics_interval=15");
	cr_assert_str_eq(o.metrics_dir, "/var/lib/prometheus/node-exporter");
	cr_assert_eq(o.metrics_interval_s, 15);
	bad("metrics_dir=relative", "metrics_dir=relative: expected an "
				    "absolute path");
	bad("metrics_interval=0", "expected seconds, 1 to 86400");
	bad("metrics_interval=86401", "expected seconds, 1 to 86400");
}
