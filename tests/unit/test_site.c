/*
 * What `qosdeny limits` reads from slurm.conf (shared/common/site.c):
 * PrivateData, AccountingStorageEnforce and the partitions' QOS=, and the
 * Redis options of the spank_qosdeny.so line.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "site.h"
#include "site_redis.h"

static char dir[] = "/tmp/qd-site.XXXXXX";
static struct qd_site s;
static char err[QD_SITE_ERR_MAX];

static void load(const char *conf)
{
	char path[sizeof(dir) + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(conf, f);
	fclose(f);
	setenv("SLURM_CONF", path, 1);
	cr_assert_eq(qd_site_load(&s, err, sizeof(err)), 0, "%s", err);
}

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[sizeof(dir) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(site, .init = setup, .fini = teardown);

Test(site, nothing_set_hides_nothing)
{
	load("ClusterName=c\n");
	cr_expect_not(qd_site_private_users(&s));
	cr_expect_not(qd_site_enforces_qos(&s));
	cr_expect_not(qd_site_is_partition_qos(&s, "normal"));
	cr_expect_str_eq(s.slurm_user, "");
}

Test(site, private_data_users_or_usage)
{
	load("PrivateData=jobs,Users\n");
	cr_expect(qd_site_private_users(&s));
	load("privatedata=usage # a comment\n");
	cr_expect(qd_site_private_users(&s));
	load("PrivateData=jobs,nodes,usersx\n");
	cr_expect_not(qd_site_private_users(&s), "a whole word only");
}

Test(site, enforce_qos)
{
	load("AccountingStorageEnforce=associations,limits,qos\n");
	cr_expect(qd_site_enforces_qos(&s));
	load("AccountingStorageEnforce=all\n");
	cr_expect(qd_site_enforces_qos(&s));
	load("AccountingStorageEnforce=associations,limits\n");
	cr_expect_not(qd_site_enforces_qos(&s));
}

Test(site, partition_qos_and_slurm_user)
{
	load("SlurmUser=slurm\n"
	     "PartitionName=gpu Nodes=n1 QOS=pq-gpu State=UP\n"
	     "PartitionName=short Nodes=n2 State=UP QOS=pq-short\n");
	cr_expect_str_eq(s.slurm_user, "slurm");
	cr_expect(qd_site_is_partition_qos(&s, "pq-gpu"));
	cr_expect(qd_site_is_partition_qos(&s, "PQ-SHORT"));
	cr_expect_not(qd_site_is_partition_qos(&s, "pq"));
}

static void plugstack(const char *line)
{
	char path[sizeof(dir) + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/plugstack.conf", dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(line, f);
	fclose(f);
}

/* The replicated store's options reach the tool and the site factor
 * (README "High availability"). */
Test(site, redis_options_of_the_spank_line)
{
	struct qd_redis_config cfg;

	plugstack("required spank_qosdeny.so redis=sentinel:a:1,b:2/qd "
		  "redis_user=qd-share redis_replicas=2 "
		  "redis_password_file=/etc/slurm/qd.pass\n");
	load("ClusterName=c\n");
	qd_site_redis_config(&s, NULL, &cfg);
	cr_expect_str_eq(cfg.addr, "sentinel:a:1,b:2/qd");
	cr_expect_str_eq(cfg.user, "qd-share");
	cr_expect(cfg.replicas_given);
	cr_expect_eq(cfg.replicas, 2);
	cr_expect_str_eq(cfg.password_file, "/etc/slurm/qd.pass");
	cr_expect_null(cfg.tls_ca);
	qd_site_redis_config(&s, "127.0.0.1:1", &cfg);
	cr_expect_str_eq(cfg.addr, "127.0.0.1:1");

	plugstack("required spank_qosdeny.so\n");
	load("ClusterName=c\n");
	qd_site_redis_config(&s, NULL, &cfg);
	cr_expect_null(cfg.addr);
	cr_expect_null(cfg.user);
	cr_expect_not(cfg.replicas_given);
}

Test(site, bad_redis_replicas_is_named)
{
	char path[sizeof(dir) + 32];

	plugstack("required spank_qosdeny.so redis_replicas=x\n");
	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	fclose(fopen(path, "w"));
	cr_assert_eq(qd_site_load_from(&s, path, err, sizeof(err)), -1);
	cr_expect(strstr(err, "plugstack.conf:1: invalid redis_replicas 'x'"),
		  "%s", err);
}

/* Each number of the line has its bounds: timeout_ms from 1, replicas up to
 * QD_REDIS_REPLICAS_MAX; the value read when within them. */
Test(site, numbers_of_the_line_within_their_bounds)
{
	char path[sizeof(dir) + 32];

	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	fclose(fopen(path, "w"));
	plugstack("required spank_qosdeny.so timeout_ms=0\n");
	cr_assert_eq(qd_site_load_from(&s, path, err, sizeof(err)), -1);
	cr_expect(strstr(err, "plugstack.conf:1: invalid timeout_ms '0'"), "%s",
		  err);
	plugstack("required spank_qosdeny.so timeout_ms=600001\n");
	cr_assert_eq(qd_site_load_from(&s, path, err, sizeof(err)), -1);
	cr_expect(strstr(err, "invalid timeout_ms '600001'"), "%s", err);
	plugstack("required spank_qosdeny.so redis_replicas=-1\n");
	cr_assert_eq(qd_site_load_from(&s, path, err, sizeof(err)), -1);
	cr_expect(strstr(err, "invalid redis_replicas '-1'"), "%s", err);
	plugstack(
	    "required spank_qosdeny.so timeout_ms=250 redis_replicas=0\n");
	cr_assert_eq(qd_site_load_from(&s, path, err, sizeof(err)), 0, "%s",
		     err);
	cr_expect_eq(s.timeout_ms, 250);
	cr_expect_eq(s.redis_replicas, 0);
}
