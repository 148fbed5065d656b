/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny share [-P] [--cluster NAME[,NAME...]] [--redis HOST:PORT|unix:PATH]:
 * GPU fair share (docs/fair-share.md, qosdeny(1)). Shares from
 * slurmdbd (else qosdeny.conf), usage from Redis summed over the clusters
 * (decayed completed usage plus running jobs'), arithmetic and layout in
 * shared/usage/fairshare*.
 */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "fairshare_usage.h"
#include "redis_addr.h"
#include "shares.h"
#include "site_opts.h"
#include "site_policy.h"

#define MAX_CLUSTERS QD_FS_CLUSTERS_MAX

struct share_args {
	bool parsable;
	char names[MAX_CLUSTERS][QD_NAME_MAX]; /* --cluster */
	size_t n;
	const char *redis;
};

/* --cluster's comma-separated names: each valid, none twice. */
static int parse_clusters(const char *v, struct share_args *a)
{
	for (const char *p = v;; p++) {
		size_t len = strcspn(p, ",");

		if (a->n == MAX_CLUSTERS || len >= QD_NAME_MAX)
			return -1;
		memcpy(a->names[a->n], p, len);
		a->names[a->n][len] = '\0';
		if (!qd_usage_name_ok(a->names[a->n]))
			return -1;
		for (size_t i = 0; i < a->n; i++)
			if (!strcmp(a->names[i], a->names[a->n]))
				return -1;
		a->n++;
		p += len;
		if (!*p)
			return 0;
	}
}

static int parse_args(int argc, char **argv, struct share_args *a)
{
	struct qd_redis_addr addr;
	char why[256];

	for (int i = 1; i < argc; i++) {
		const char *v;
		bool missing;

		if (!strcmp(argv[i], "-P")) {
			a->parsable = true;
			continue;
		}
		v = qd_option_value(argc, argv, &i, "--cluster", &missing);
		if (v || missing) {
			if (missing || a->n || parse_clusters(v, a))
				return qd_usage_error(
				    "share: --cluster needs cluster names, "
				    "comma-separated, each once");
			continue;
		}
		v = qd_option_value(argc, argv, &i, "--redis", &missing);
		if (v || missing) {
			if (missing || !*v)
				return qd_usage_error(
				    "share: --redis needs HOST:PORT, "
				    "unix:PATH or "
				    "sentinel:HOST:PORT[,HOST:PORT...]/NAME");
			if (qd_redis_addr_parse(v, &addr, why, sizeof(why)))
				return qd_usage_error("share: --redis '%s': %s",
						      v, why);
			a->redis = v;
			continue;
		}
		return qd_bad_argument("share", argv[i]);
	}
	return 0;
}

/*
 * The clusters whose usage counts: --cluster, else qosdeny.conf's
 * FairShareClusters, else this one (self, NULL when unknown). Returns how
 * many, or 0 with err.
 */
static size_t clusters_of(const struct share_args *a,
			  const struct qd_policy *policy,
			  const struct qd_site *site, const char *self,
			  const char **out, char *err, size_t errlen)
{
	size_t n = 0;

	if (a->n) {
		for (; n < a->n; n++)
			out[n] = a->names[n];
	} else if (policy && policy->n_fs_clusters) {
		for (; n < policy->n_fs_clusters && n < MAX_CLUSTERS; n++)
			out[n] = policy->fs_clusters[n];
	} else if (self) {
		out[n++] = self;
	} else {
		snprintf(err, errlen,
			 "no cluster name: give --cluster NAME, or set "
			 "ClusterName in %s",
			 site->slurm_conf);
	}
	return n;
}

/* Shares are this cluster's associations when it is among those counted
 * (as the site factor ranks its jobs), else the first listed cluster's. */
static const char *shares_cluster(const char *self, const char *const *clusters,
				  size_t n)
{
	for (size_t i = 0; self && i < n; i++)
		if (!strcmp(clusters[i], self))
			return self;
	return clusters[0];
}

/* A warning (the sentinels are down, the primary found before still
 * works): said, and the table printed all the same. */
static void warn(const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "qosdeny: share: %s\n", msg);
}

static int share(const struct share_args *a, struct qd_fs_table *t)
{
	char err[QD_SITE_ERR_MAX > QD_ERR_MAX ? QD_SITE_ERR_MAX : QD_ERR_MAX];
	struct qd_redis_config cfg;
	struct qd_policy *policy = NULL;
	const char *clusters[MAX_CLUSTERS];
	struct qd_redis *r = NULL;
	struct qd_usage_skipped skipped = {0};
	bool add = false;
	struct qd_site site;
	struct qd_spank_opts opts;
	const char *self;
	size_t n;
	int rv = 1;

	if (qd_site_load(&site, err, sizeof(err)) ||
	    qd_site_spank_opts(&site, &opts, err, sizeof(err)) ||
	    qd_site_policy(&site, &policy, err, sizeof(err)))
		goto fail;
	self = qd_site_cluster(&site, &opts);
	n = clusters_of(a, policy, &site, self, clusters, err, sizeof(err));
	if (!n)
		goto fail;
	if (qd_shares_from_slurmdb(&site, shares_cluster(self, clusters, n),
				   t)) {
		fprintf(stderr,
			"qosdeny: share: slurmdbd not reachable, shares from "
			"%s\n",
			site.qosdeny_conf);
		qd_fs_free(t);
		/* With slurmdbd, usage of a deleted association is not
		 * shown; without, the usage is all there is to go by. */
		add = true;
		if (qd_shares_from_policy(policy, t))
			goto oom;
	}
	qd_spank_opts_redis_config(&opts, &cfg);
	if (a->redis)
		cfg.addr = a->redis;
	cfg.warn = warn;
	r = qd_redis_new(&cfg, err, sizeof(err));
	if (!r || qd_fs_read_usage(t, r, clusters, n, qd_site_half_life(policy),
				   add, &skipped, err, sizeof(err)))
		goto fail;
	if (skipped.n)
		fprintf(stderr, "qosdeny: share: %s\n",
			qd_usage_skipped_text(&skipped, err, sizeof(err)));
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
