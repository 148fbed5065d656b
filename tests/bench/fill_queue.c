/* SPDX-License-Identifier: GPL-2.0-or-later
 * fill_queue: submit COUNT jobs to slurmctld through libslurm's public API,
 * one RPC after the other from one process, as fast as slurmctld answers.
 * sbatch spends ~50 ms per job starting up and reading its options; this
 * spends only the RPC, so a benchmark can queue 20,000 held jobs in
 * seconds. Runs as another user with --user (root only): the munge
 * credential names the process's uid, so it switches before the first RPC.
 *
 *   fill_queue --count 20000 --user alice --gres gpu:1 --hold
 *
 * --alloc sends REQUEST_RESOURCE_ALLOCATION (salloc's RPC) without waiting
 * for the allocation; --test-only sends REQUEST_JOB_WILL_RUN (sbatch
 * --test-only). A summary line goes to stdout; exit 0 when every request
 * was accepted.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "../helpers/slurm_ids.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum mode { M_BATCH, M_ALLOC, M_TEST };

struct opts {
	unsigned long count;
	const char *user, *account, *qos, *partition, *name, *wrap;
	const char *gres, *gpus, *gpus_per_node, *gpus_per_task;
	uint32_t nodes, ntasks;
	int hold, keep_going, verbose;
	enum mode mode;
};

struct stats {
	unsigned long ok, rejected;
	double *lat_us; /* one per request sent */
	int first_err;
};

static void usage(FILE *f)
{
	fputs("usage: fill_queue [--count K] [--user NAME] [--account A] "
	      "[--qos Q]\n"
	      "         [--partition P] [--job-name N] [--gres LIST] "
	      "[--gpus LIST]\n"
	      "         [--gpus-per-node LIST] [--gpus-per-task LIST] "
	      "[--nodes N]\n"
	      "         [--ntasks N] [--hold] [--alloc | --test-only] "
	      "[--wrap CMD]\n"
	      "         [--keep-going] [--verbose]\n",
	      f);
}

static int parse_u32(const char *what, const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v >= UINT32_MAX - 1) {
		fprintf(stderr,
			"fill_queue: %s: '%s' is not a positive count\n", what,
			s);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	enum {
		O_GRES = 256,
		O_GPN,
		O_GPT,
		O_NTASKS,
		O_ALLOC,
		O_TEST,
		O_WRAP,
		O_KEEP
	};
	static const struct option lo[] = {
	    {"count", required_argument, NULL, 'k'},
	    {"user", required_argument, NULL, 'u'},
	    {"account", required_argument, NULL, 'A'},
	    {"qos", required_argument, NULL, 'q'},
	    {"partition", required_argument, NULL, 'p'},
	    {"job-name", required_argument, NULL, 'J'},
	    {"gres", required_argument, NULL, O_GRES},
	    {"gpus", required_argument, NULL, 'G'},
	    {"gpus-per-node", required_argument, NULL, O_GPN},
	    {"gpus-per-task", required_argument, NULL, O_GPT},
	    {"nodes", required_argument, NULL, 'N'},
	    {"ntasks", required_argument, NULL, O_NTASKS},
	    {"hold", no_argument, NULL, 'H'},
	    {"alloc", no_argument, NULL, O_ALLOC},
	    {"test-only", no_argument, NULL, O_TEST},
	    {"wrap", required_argument, NULL, O_WRAP},
	    {"keep-going", no_argument, NULL, O_KEEP},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0}};
	uint32_t count = 1;
	int c;

	*o = (struct opts){.name = "fill_queue", .wrap = "true"};
	while ((c = getopt_long(argc, argv, "k:u:A:q:p:J:G:N:Hvh", lo, NULL)) !=
	       -1) {
		switch (c) {
		case 'k':
			if (parse_u32("--count", optarg, &count))
				return -1;
			break;
		case 'u':
			o->user = optarg;
			break;
		case 'A':
			o->account = optarg;
			break;
		case 'q':
			o->qos = optarg;
			break;
		case 'p':
			o->partition = optarg;
			break;
		case 'J':
			o->name = optarg;
			break;
		case O_GRES:
			o->gres = optarg;
			break;
		case 'G':
			o->gpus = optarg;
			break;
		case O_GPN:
			o->gpus_per_node = optarg;
			break;
		case O_GPT:
			o->gpus_per_task = optarg;
			break;
		case 'N':
			if (parse_u32("--nodes", optarg, &o->nodes))
				return -1;
			break;
		case O_NTASKS:
			if (parse_u32("--ntasks", optarg, &o->ntasks))
				return -1;
			break;
		case 'H':
			o->hold = 1;
			break;
		case O_ALLOC:
			o->mode = M_ALLOC;
			break;
		case O_TEST:
			o->mode = M_TEST;
			break;
		case O_WRAP:
			o->wrap = optarg;
			break;
		case O_KEEP:
			o->keep_going = 1;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "fill_queue: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return -1;
	}
	o->count = count;
	return 0;
}

/* Becomes NAME for good (uid, gid, supplementary groups), as sbatch run
 * by that user would be. */
static int become(const char *name)
{
	struct passwd *pw = getpwnam(name);

	if (!pw) {
		fprintf(stderr, "fill_queue: --user %s: no such user\n", name);
		return -1;
	}
	if (initgroups(name, pw->pw_gid) || setgid(pw->pw_gid) ||
	    setuid(pw->pw_uid)) {
		fprintf(stderr, "fill_queue: --user %s: %s (run as root)\n",
			name, strerror(errno));
		return -1;
	}
	return 0;
}

/* "gpu:1,gpu:a100:2" -> "gres:gpu:1,gres:gpu:a100:2", as sbatch's
 * gres_prepend_tres_type does; a PREFIX of "gres:gpu:" turns --gpus' "2"
 * or "a100:2" into the same form. */
static char *tres_list(const char *prefix, const char *list)
{
	size_t n = 1, len;
	char *out, *p;

	for (const char *s = list; *s; s++)
		n += *s == ',';
	len = strlen(list) + n * strlen(prefix) + 1;
	out = malloc(len);
	if (!out) {
		fputs("fill_queue: out of memory\n", stderr);
		return NULL;
	}
	p = out;
	for (const char *s = list;;) {
		size_t item = strcspn(s, ",");
		int has = !strncmp(s, "gres:", 5) && !strcmp(prefix, "gres:");

		p += sprintf(p, "%s%s%.*s", p == out ? "" : ",",
			     has ? "" : prefix, (int)item, s);
		if (!s[item])
			break;
		s += item + 1;
	}
	return out;
}

static char *environ_min[] = {"PATH=/usr/bin:/bin", "SLURM_GET_USER_ENV=0",
			      NULL};

static int fill_desc(const struct opts *o, job_desc_msg_t *d, char **script)
{
	slurm_init_job_desc_msg(d);
	d->user_id = getuid();
	d->group_id = getgid();
	d->name = (char *)o->name;
	d->account = (char *)o->account;
	d->qos = (char *)o->qos;
	d->partition = (char *)o->partition;
	d->work_dir = "/tmp";
	if (o->nodes)
		d->min_nodes = o->nodes;
	if (o->ntasks)
		d->num_tasks = o->ntasks;
	if (o->hold)
		d->priority = 0; /* sbatch --hold sends exactly this */
	if ((o->gres && !(d->tres_per_node = tres_list("gres:", o->gres))) ||
	    (o->gpus && !(d->tres_per_job = tres_list("gres:gpu:", o->gpus))))
		return -1;
	if (o->gpus_per_node) {
		char *g = tres_list("gres:gpu:", o->gpus_per_node);
		char *both;

		if (!g)
			return -1;
		if (d->tres_per_node) {
			if (asprintf(&both, "%s,%s", g, d->tres_per_node) < 0) {
				free(g);
				return -1;
			}
			free(d->tres_per_node);
			free(g);
			g = both;
		}
		d->tres_per_node = g;
	}
	if (o->gpus_per_task &&
	    !(d->tres_per_task = tres_list("gres:gpu:", o->gpus_per_task)))
		return -1;
	if (o->mode != M_ALLOC) {
		if (asprintf(script, "#!/bin/sh\n%s\n", o->wrap) < 0)
			return -1;
		d->script = *script;
		d->environment = environ_min;
		d->env_size = 2;
	}
	return 0;
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* One request; 0 accepted, else Slurm's error number. */
static int one(const struct opts *o, job_desc_msg_t *d, uint32_t *job_id)
{
	submit_response_msg_t *sr = NULL;
	resource_allocation_response_msg_t *ar = NULL;
	int rc;

	*job_id = 0;
	switch (o->mode) {
	case M_BATCH:
		rc = slurm_submit_batch_job(d, &sr);
		if (!rc && sr) {
			*job_id = QD_RESP_JOB_ID(sr);
			rc = (int)sr->error_code;
		}
		slurm_free_submit_response_response_msg(sr);
		break;
	case M_ALLOC:
		rc = slurm_allocate_resources(d, &ar);
		if (!rc && ar) {
			*job_id = QD_RESP_JOB_ID(ar);
			rc = (int)ar->error_code;
		}
		slurm_free_resource_allocation_response_msg(ar);
		break;
	default:
		rc = slurm_job_will_run(d);
		break;
	}
	/* A held job is queued all the same: slurmctld answers with its id
	 * and this code, which sbatch reports as success. */
	if (rc == ESLURM_JOB_HELD && *job_id)
		return 0;
	return rc ? (errno ? errno : rc) : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median tells slurmctld's usual cost from the odd request that waited
 * for its state save or for another process on a busy machine. */
static void report(struct stats *st, double secs)
{
	unsigned long n = st->ok + st->rejected;
	double sum = 0;

	qsort(st->lat_us, n, sizeof(*st->lat_us), cmp_double);
	for (unsigned long i = 0; i < n; i++)
		sum += st->lat_us[i];
	printf("fill_queue: %lu accepted %lu rejected in %.3f s (%.0f/s), "
	       "client latency avg %.0f us p50 %.0f us max %.0f us\n",
	       st->ok, st->rejected, secs, secs > 0 ? (double)n / secs : 0.0,
	       n ? sum / (double)n : 0.0, n ? st->lat_us[n / 2] : 0.0,
	       n ? st->lat_us[n - 1] : 0.0);
}

int main(int argc, char **argv)
{
	struct opts o;
	struct stats st = {0};
	job_desc_msg_t d;
	char *script = NULL;
	double t0, t1;
	int rv = 2;

	if (parse_opts(argc, argv, &o))
		return 2;
	if (o.user && become(o.user))
		return 2;
	slurm_init(NULL);
	if (fill_desc(&o, &d, &script))
		goto fail;
	st.lat_us = calloc(o.count, sizeof(*st.lat_us));
	if (!st.lat_us) {
		fputs("fill_queue: out of memory\n", stderr);
		goto fail;
	}
	rv = 1;
	t0 = now_us();
	for (unsigned long i = 0; i < o.count; i++) {
		uint32_t id;
		double a = now_us();
		int err = one(&o, &d, &id);

		st.lat_us[i] = now_us() - a;
		if (err) {
			st.rejected++;
			if (!st.first_err) {
				st.first_err = err;
				fprintf(stderr, "fill_queue: request %lu: %s\n",
					i + 1, slurm_strerror(err));
			}
			if (!o.keep_going)
				break;
			continue;
		}
		st.ok++;
		if (o.verbose)
			printf("%u\n", id);
	}
	t1 = now_us();
	report(&st, (t1 - t0) / 1e6);
	if (!st.rejected)
		rv = 0;
fail:
	free(st.lat_us);
	free(d.tres_per_node);
	free(d.tres_per_job);
	free(d.tres_per_task);
	free(script);
	slurm_fini();
	return rv;
}
