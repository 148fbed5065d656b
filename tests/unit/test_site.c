/* SPDX-License-Identifier: GPL-2.0-or-later
 * What `qosdeny limits` reads from slurm.conf: PrivateData,
 * AccountingStorageEnforce and the partitions' QOS=; and the spank_qosdeny.so
 * line of plugstack.conf, read by the plugin's own parser for the tool and
 * the site factor (qosdeny(1), PLUGSTACK.CONF OPTIONS).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site.h"
#include "site_opts.h"

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

/* The line as the tool and the site factor read it; 0, or -1 with err. */
static int line_opts(const char *line, struct qd_spank_opts *o)
{
	char path[sizeof(dir) + 32];

	plugstack(line);
	snprintf(path, sizeof(path), "%s/slurm.conf", dir);
	fclose(fopen(path, "w"));
	cr_assert_eq(qd_site_load_from(&s, path, err, sizeof(err)), 0, "%s",
		     err);
	return qd_site_spank_opts(&s, o, err, sizeof(err));
}

/* The replicated store's options reach the tool and the site factor
 * (docs/high-availability.md). */
Test(site, redis_options_of_the_spank_line)
{
	struct qd_spank_opts o;
	struct qd_redis_config cfg;

	cr_assert_eq(line_opts("required spank_qosdeny.so "
			       "redis=sentinel:a:1,b:2/qd "
			       "redis_user=qd-share redis_replicas=2 "
			       "redis_password_file=/etc/slurm/qd.pass\n",
			       &o),
		     0, "%s", err);
	qd_spank_opts_redis_config(&o, &cfg);
	cr_expect_str_eq(cfg.addr, "sentinel:a:1,b:2/qd");
	cr_expect_str_eq(cfg.user, "qd-share");
	cr_expect(cfg.replicas_given);
	cr_expect_eq(cfg.replicas, 2);
	cr_expect_str_eq(cfg.password_file, "/etc/slurm/qd.pass");
	cr_expect_null(cfg.tls_ca);

	cr_assert_eq(line_opts("required spank_qosdeny.so\n", &o), 0, "%s",
		     err);
	qd_spank_opts_redis_config(&o, &cfg);
	cr_expect_str_eq(cfg.addr, QD_REDIS_DEFAULT_ADDR);
	cr_expect_null(cfg.user);
	cr_expect_not(cfg.replicas_given);
}

/* The cluster usage records name: cluster=, else slurm.conf's ClusterName. */
Test(site, cluster_of_the_line_or_slurm_conf)
{
	struct qd_spank_opts o;

	plugstack("required spank_qosdeny.so cluster=other\n");
	load("ClusterName=c\n");
	cr_assert_eq(qd_site_spank_opts(&s, &o, err, sizeof(err)), 0, "%s",
		     err);
	cr_expect_str_eq(qd_site_cluster(&s, &o), "other");
	plugstack("required spank_qosdeny.so\n");
	load("ClusterName=c\n");
	cr_assert_eq(qd_site_spank_opts(&s, &o, err, sizeof(err)), 0, "%s",
		     err);
	cr_expect_str_eq(qd_site_cluster(&s, &o), "c");
	load("SlurmUser=slurm\n");
	cr_assert_eq(qd_site_spank_opts(&s, &o, err, sizeof(err)), 0, "%s",
		     err);
	cr_expect_null(qd_site_cluster(&s, &o));
}

/* What the plugin refuses in its line, the tool and the site factor refuse
 * too, in the plugin's words after the line's place: an unknown option, a
 * repeated one, a value out of its domain. */
Test(site, a_line_the_plugin_refuses_is_refused_in_its_words)
{
	static const char *const lines[] = {
	    "redis=127.0.0.1:6379 timeout=5",
	    "timeout_ms=250 timeout_ms=300",
	    "cluster=a/b",
	    "spool=relative/dir",
	    "redis=nohost:",
	    "cgroup=v3",
	};
	struct qd_spank_opts o;
	char line[256], want[1024], why[512], buf[256], *argv[8], *save = NULL;
	int argc;

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		snprintf(buf, sizeof(buf), "%s", lines[i]);
		argc = 0;
		for (char *w = strtok_r(buf, " ", &save); w;
		     w = strtok_r(NULL, " ", &save))
			argv[argc++] = w;
		qd_spank_opts_init(&o);
		cr_assert_eq(
		    qd_spank_opts_parse(&o, argc, argv, why, sizeof(why)), -1,
		    "the plugin takes '%s'", lines[i]);
		snprintf(line, sizeof(line), "required spank_qosdeny.so %s\n",
			 lines[i]);
		cr_expect_eq(line_opts(line, &o), -1, "the tool takes '%s'",
			     lines[i]);
		snprintf(want, sizeof(want), "%s/plugstack.conf:1: %s", dir,
			 why + strlen("qosdeny: "));
		cr_expect_str_eq(err, want);
	}
}

/* Each number of the line has its bounds, the plugin's: timeout_ms from 1,
 * replicas up to QD_REDIS_REPLICAS_MAX; the value read when within them. */
Test(site, numbers_of_the_line_within_their_bounds)
{
	struct qd_spank_opts o;

	cr_expect_eq(
	    line_opts("required spank_qosdeny.so redis_replicas=x\n", &o), -1);
	cr_expect(strstr(err, "plugstack.conf:1: redis_replicas=x: expected 0 "
			      "to "),
		  "%s", err);
	cr_expect_eq(line_opts("required spank_qosdeny.so timeout_ms=0\n", &o),
		     -1);
	cr_expect(strstr(err, "plugstack.conf:1: timeout_ms=0: expected "
			      "milliseconds, 1 to 600000"),
		  "%s", err);
	cr_expect_eq(
	    line_opts("required spank_qosdeny.so timeout_ms=600001\n", &o), -1);
	cr_expect(strstr(err, "timeout_ms=600001: expected milliseconds"), "%s",
		  err);
	cr_expect_eq(
	    line_opts("required spank_qosdeny.so redis_replicas=-1\n", &o), -1);
	cr_expect(strstr(err, "redis_replicas=-1: expected 0 to "), "%s", err);
	cr_assert_eq(line_opts("required spank_qosdeny.so timeout_ms=250 "
			       "redis_replicas=0\n",
			       &o),
		     0, "%s", err);
	cr_expect_eq(o.timeout_ms, 250);
	cr_expect_eq(o.redis_replicas, 0);
}
