/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny flush [--spool DIR]: sends this node's spooled usage records to
 * Redis now (qosdeny(1)). Without --spool, the spool of every slurmd
 * on this host: the spool= option, else qosdeny under SlurmdSpoolDir, with
 * Slurm's %n and %h (one directory per slurmd when several share a host)
 * matching every such directory present. Open records of jobs that ended
 * without their epilog are closed at their end first (spool_orphan.h),
 * and sent with the rest.
 */
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "commands.h"
#include "job_end_ask.h"
#include "node_counts.h"
#include "redis_usage.h"
#include "site_opts.h"
#include "site_policy.h"
#include "spool.h"
#include "spool_alive.h"
#include "spool_orphan.h"

/* The longest flush waits on slurmctld and slurmdbd for the ends of
 * orphaned records, all spools together. */
#define ASK_BUDGET_MS 20000

struct flush_ctx {
	struct qd_redis *r;
	uint64_t half_life_s;
	bool failed;
};

static int send_record(const struct qd_usage_record *rec, void *arg, char *err,
		       size_t errlen)
{
	struct flush_ctx *f = arg;

	return qd_redis_apply(f->r, rec, f->half_life_s, err, errlen);
}

static void report(const char *msg, void *arg)
{
	struct flush_ctx *f = arg;

	f->failed = true;
	fprintf(stderr, "qosdeny: flush: %s\n", msg);
}

/* A warning (the sentinels are down, the primary found before still
 * works): said, but no failure. */
static void warn(const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "qosdeny: flush: %s\n", msg);
}

/* A closed orphan is news, not a failure: the record goes with the rest. */
static void orphan_note(bool failed, const char *msg, void *arg)
{
	struct flush_ctx *f = arg;

	f->failed |= failed;
	fprintf(stderr, "qosdeny: flush: %s\n", msg);
}

/* The spool path with %n and %h as '*' and %% as '%', for glob(3). */
static int spool_pattern(const struct qd_site *s, const struct qd_spank_opts *o,
			 char *out, size_t len)
{
	char path[PATH_MAX + 16];
	size_t n = 0;

	if (o->spool[0])
		snprintf(path, sizeof(path), "%s", o->spool);
	else
		snprintf(path, sizeof(path), "%s/qosdeny", s->slurmd_spool_dir);
	for (const char *p = path; *p; p++) {
		char c = *p;

		if (c == '%' && (p[1] == 'n' || p[1] == 'h' || p[1] == '%')) {
			c = p[1] == '%' ? '%' : '*';
			p++;
		}
		if (n + 1 >= len)
			return -1;
		out[n++] = c;
	}
	out[n] = '\0';
	return 0;
}

static void add(struct qd_spool_stats *sum, const struct qd_spool_stats *st)
{
	sum->sent += st->sent;
	sum->already += st->already;
	sum->open += st->open;
	sum->left += st->left;
	sum->bad += st->bad;
	sum->aside += st->aside;
}

/* "left" is what stays in the spool: records of jobs still running here,
 * records that could not be sent or read, and those set aside as too old
 * to send (spool.h QD_SPOOL_REPLAY_MAX_S). */
static void print_summary(const struct qd_spool_stats *sum)
{
	size_t left = sum->open + sum->left + sum->bad + sum->aside;

	printf("qosdeny: flush: %zu sent, %zu already counted, %zu left",
	       sum->sent, sum->already, left);
	if (left)
		printf(" (%zu of running jobs, %zu not sent, %zu undecodable",
		       sum->open, sum->left, sum->bad);
	if (sum->aside)
		printf(", %zu too old to send: qosdeny doctor --node",
		       sum->aside);
	if (left)
		putchar(')');
	putchar('\n');
}

static int flush(const char *spool)
{
	struct qd_spool_stats sum = {0};
	char err[QD_SITE_ERR_MAX > QD_ERR_MAX ? QD_SITE_ERR_MAX : QD_ERR_MAX];
	char pattern[PATH_MAX];
	struct qd_redis_config cfg;
	struct qd_policy *policy = NULL;
	struct flush_ctx f = {0};
	struct qd_site site;
	struct qd_spank_opts opts;
	struct qd_job_end_asker asker;
	struct qd_orphan_bounds b = {0};
	glob_t g = {0};
	int rv = 1;

	if (qd_site_load(&site, err, sizeof(err)) ||
	    qd_site_spank_opts(&site, &opts, err, sizeof(err)) ||
	    qd_site_policy(&site, &policy, err, sizeof(err)))
		goto fail;
	if (spool) {
		snprintf(pattern, sizeof(pattern), "%s", spool);
		g.gl_pathc = 1;
	} else if (spool_pattern(&site, &opts, pattern, sizeof(pattern))) {
		snprintf(err, sizeof(err), "spool path too long");
		goto fail;
	} else if (glob(pattern, GLOB_ONLYDIR, NULL, &g) == GLOB_NOSPACE) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	qd_spank_opts_redis_config(&opts, &cfg);
	cfg.warn = warn;
	f.r = qd_redis_new(&cfg, err, sizeof(err));
	if (!f.r)
		goto fail;
	f.half_life_s = qd_site_half_life(policy);
	b.boot_time = qd_boot_time();
	qd_job_end_asker(&asker, ASK_BUDGET_MS);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct qd_spool_stats st;
		const char *dir = spool ? spool : g.gl_pathv[i];
		struct qd_spool_list l;

		/* A spool that cannot be listed: the replay reports it. */
		b.now = time(NULL);
		/* A slurmd that still beats bounds nothing yet. */
		b.last_alive = qd_spool_last_beat(dir);
		if (b.now - b.last_alive <= 2 * QD_ALIVE_INTERVAL_S)
			b.last_alive = 0;
		if (!qd_spool_list(dir, &l, err, sizeof(err))) {
			qd_spool_close_orphans(dir, &l, &b, qd_job_end_ask,
					       &asker, orphan_note, &f);
			qd_spool_list_free(&l);
		}
		qd_spool_replay(dir, time(NULL), send_record, &f, report, &f,
				&st);
		/* For the node's metrics, as the epilogs count theirs. */
		qd_node_counts_add(dir, QD_NC_SENT, st.sent);
		add(&sum, &st);
	}
	print_summary(&sum);
	rv = f.failed || sum.aside ? 1 : 0;
	goto done;
fail:
	fprintf(stderr, "qosdeny: flush: %s\n", err);
done:
	if (!spool)
		globfree(&g);
	qd_redis_free(f.r);
	qd_policy_free(policy);
	return rv;
}

int qd_cmd_flush(int argc, char **argv)
{
	const char *spool = NULL;

	for (int i = 1; i < argc; i++) {
		bool missing;
		const char *v =
		    qd_option_value(argc, argv, &i, "--spool", &missing);

		if (v && *v) {
			spool = v;
			continue;
		}
		if (v || missing)
			return qd_usage_error("flush: --spool needs a "
					      "directory");
		return qd_bad_argument("flush", argv[i]);
	}
	return flush(spool);
}
