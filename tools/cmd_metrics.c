/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny metrics: what this host's daemons last wrote for Prometheus
 * (docs/metrics.md), as one text: the files of qosdeny.conf's metrics_dir
 * and of the spank_qosdeny.so line's, slurmctld's (qosdeny_ctld.prom)
 * first, then each slurmd's (qosdeny_node_NAME.prom) by name, each family
 * once.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "metrics_file.h"
#include "prom_merge.h"
#include "site_opts.h"
#include "site_policy.h"
#include "textfile.h"

/* More files than any host has slurmd: the rest are left out, and said. */
#define FILES_MAX 256

static bool is_node_file(const char *name)
{
	size_t len = strlen(name);

	return !strncmp(name, QD_METRICS_NODE_PREFIX,
			strlen(QD_METRICS_NODE_PREFIX)) &&
	       len >
		   strlen(QD_METRICS_NODE_PREFIX) + strlen(QD_METRICS_SUFFIX) &&
	       !strcmp(name + len - strlen(QD_METRICS_SUFFIX),
		       QD_METRICS_SUFFIX);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The file names to read in dir, in order, into names (malloc'd each);
 * returns how many, or -1 with errno when dir cannot be listed. */
static int list(const char *dir, char **names, size_t max, size_t *left_out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;
	bool ctld = false;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, QD_METRICS_CTLD_FILE)) {
			ctld = true;
			continue;
		}
		if (!is_node_file(e->d_name))
			continue;
		if (n + 1 >= max) {
			(*left_out)++;
			continue;
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	if (ctld) {
		memmove(names + 1, names, n * sizeof(*names));
		names[0] = strdup(QD_METRICS_CTLD_FILE);
		n++;
	}
	return (int)n;
}

/* The files of dirs[0..nd) to read, in order, into names (their paths,
 * malloc'd each); returns how many. */
static size_t paths(const char *const *dirs, size_t nd, char **names,
		    size_t max, size_t *left_out)
{
	size_t n = 0;

	for (size_t d = 0; d < nd; d++) {
		char *here[FILES_MAX];
		int k = list(dirs[d], here, FILES_MAX, left_out);

		if (k < 0) {
			fprintf(stderr, "qosdeny: metrics: %s: %m\n", dirs[d]);
			continue;
		}
		for (int i = 0; i < k; i++) {
			char path[4096];

			if (here[i] && n < max) {
				snprintf(path, sizeof(path), "%s/%s", dirs[d],
					 here[i]);
				names[n++] = strdup(path);
			} else if (here[i]) {
				(*left_out)++;
			}
			free(here[i]);
		}
	}
	return n;
}

static int print(const char *const *dirs, size_t nd)
{
	char *names[FILES_MAX], *texts[FILES_MAX], err[512];
	size_t left_out = 0, skipped = 0, nt = 0;
	size_t n = paths(dirs, nd, names, FILES_MAX, &left_out);
	struct qd_prom out = {0};
	int rv = 1;

	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		texts[nt] = qd_read_file(names[i], NULL, err, sizeof(err));
		if (texts[nt])
			nt++;
		else
			fprintf(stderr, "qosdeny: metrics: %s\n", err);
	}
	if (!nt) {
		fprintf(stderr,
			"qosdeny: metrics: nothing written in %s%s%s yet: "
			"each daemon writes its file there within "
			"metrics_interval of its start\n",
			dirs[0], nd > 1 ? " nor in " : "",
			nd > 1 ? dirs[1] : "");
		goto out;
	}
	if (qd_prom_merge((const char *const *)texts, nt, &out, &skipped)) {
		fprintf(stderr, "qosdeny: metrics: out of memory\n");
		goto out;
	}
	fwrite(out.text, 1, out.len, stdout);
	if (skipped)
		fprintf(stderr,
			"qosdeny: metrics: %zu line%s left out: not "
			"qosdeny's metrics\n",
			skipped, skipped == 1 ? "" : "s");
	if (left_out)
		fprintf(stderr,
			"qosdeny: metrics: %zu file%s left out: more than "
			"%d\n",
			left_out, left_out == 1 ? "" : "s", FILES_MAX);
	rv = fflush(stdout) ? 1 : 0;
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	for (size_t i = 0; i < nt; i++)
		free(texts[i]);
	qd_prom_free(&out);
	return rv;
}

int qd_cmd_metrics(int argc, char **argv)
{
	char err[QD_ERR_MAX + 256];
	struct qd_site site;
	struct qd_spank_opts opts;
	struct qd_policy *policy = NULL;
	const char *dirs[2];
	size_t nd = 0;
	int rv = 1;

	if (argc > 1)
		return qd_bad_argument("metrics", argv[1]);
	if (qd_site_load(&site, err, sizeof(err)) ||
	    qd_site_policy(&site, &policy, err, sizeof(err)) ||
	    qd_site_spank_opts(&site, &opts, err, sizeof(err))) {
		fprintf(stderr, "qosdeny: metrics: %s\n", err);
		qd_policy_free(policy);
		return 1;
	}
	if (policy && policy->metrics_dir[0])
		dirs[nd++] = policy->metrics_dir;
	if (opts.metrics_dir[0] && (!nd || strcmp(dirs[0], opts.metrics_dir)))
		dirs[nd++] = opts.metrics_dir;
	if (!nd)
		fprintf(stderr,
			"qosdeny: metrics: no metrics_dir is set, in %s nor on "
			"the spank_qosdeny.so line of %s: no metrics are "
			"written\n",
			site.qosdeny_conf, site.plugstack);
	else
		rv = print(dirs, nd);
	qd_policy_free(policy);
	return rv;
}
