/*
 * qosdeny share [-P] [--cluster NAME] [--redis HOST:PORT|unix:PATH]: GPU
 * fair share (contract section 7). Shares from slurmdbd (else qosdeny.conf),
 * usage from Redis decayed to now, arithmetic and layout in
 * shared/fairshare.
 */
#include <stdio.h>
#include <string.h>

#include "redis_usage.h"
#include "tool.h"

struct share_args {
	bool parsable;
	const char *cluster;
	const char *redis;
};

static int parse_args(int argc, char **argv, struct share_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *v;
		bool missing;

		if (!strcmp(argv[i], "-P")) {
			a->parsable = true;
			continue;
		}
		v = qd_option_value(argc, argv, &i, "--cluster", &missing);
		if (v || missing) {
			if (missing || !qd_usage_name_ok(v))
				return qd_usage_error(
				    "share: --cluster needs a cluster name");
			a->cluster = v;
			continue;
		}
		v = qd_option_value(argc, argv, &i, "--redis", &missing);
		if (v || missing) {
			if (missing || !*v)
				return qd_usage_error(
				    "share: --redis needs HOST:PORT or "
				    "unix:PATH");
			a->redis = v;
			continue;
		}
		return qd_bad_argument("share", argv[i]);
	}
	return 0;
}

struct usage_ctx {
	struct qd_fs_table *t;
	bool add; /* rows for usage without an association (no slurmdbd) */
};

static int take_usage(enum qd_usage_kind kind, const char *account,
		      const char *user, double usage, void *arg)
{
	struct usage_ctx *u = arg;
	const char *who = kind == QD_USAGE_ASSOC ? user : NULL;
	struct qd_fs_row *r = u->add ? qd_fs_add(u->t, account, who, NULL)
				     : qd_fs_find(u->t, account, who);

	/* With slurmdbd, usage of a deleted association is not shown. */
	if (!r)
		return u->add ? -1 : 0;
	r->usage = usage;
	return 0;
}

static int share(const struct share_args *a, struct qd_fs_table *t)
{
	char err[QD_SITE_ERR_MAX > QD_ERR_MAX ? QD_SITE_ERR_MAX : QD_ERR_MAX];
	struct qd_redis_config cfg = {0};
	struct qd_policy *policy = NULL;
	struct qd_redis *r = NULL;
	struct usage_ctx u = {t, false};
	const char *cluster;
	struct qd_site site;
	int rv = 1;

	if (qd_site_load(&site, err, sizeof(err)) ||
	    qd_site_policy(&site, &policy, err, sizeof(err)))
		goto fail;
	cluster = a->cluster ? a->cluster : qd_site_cluster(&site);
	if (!cluster) {
		snprintf(err, sizeof(err),
			 "no cluster name: give --cluster NAME, or set "
			 "ClusterName in %s",
			 site.slurm_conf);
		goto fail;
	}
	if (qd_shares_from_slurmdb(&site, cluster, t)) {
		fprintf(stderr,
			"qosdeny: share: slurmdbd not reachable, shares from "
			"%s\n",
			site.qosdeny_conf);
		qd_fs_free(t);
		u.add = true;
		if (qd_shares_from_policy(policy, t))
			goto oom;
	}
	cfg.addr = a->redis ? a->redis : site.redis[0] ? site.redis : NULL;
	cfg.password_file = site.password_file[0] ? site.password_file : NULL;
	cfg.timeout_ms = site.timeout_ms;
	r = qd_redis_new(&cfg, err, sizeof(err));
	if (!r || qd_redis_read_usage(r, cluster, qd_site_half_life(policy),
				      take_usage, &u, err, sizeof(err)))
		goto fail;
	if (qd_fs_compute(t))
		goto oom;
	if (qd_fs_print(stdout, t, a->parsable) || fflush(stdout)) {
		snprintf(err, sizeof(err), "writing the output failed");
		goto fail;
	}
	rv = 0;
	goto done;
oom:
	snprintf(err, sizeof(err), "out of memory");
fail:
	fprintf(stderr, "qosdeny: share: %s\n", err);
done:
	qd_redis_free(r);
	qd_policy_free(policy);
	return rv;
}

int qd_cmd_share(int argc, char **argv)
{
	struct share_args a = {0};
	struct qd_fs_table t = {0};
	int rv;

	rv = parse_args(argc, argv, &a);
	if (rv)
		return rv;
	rv = share(&a, &t);
	qd_fs_free(&t);
	return rv;
}
