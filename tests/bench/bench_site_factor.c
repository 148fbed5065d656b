/* SPDX-License-Identifier: GPL-2.0-or-later
 * make bench: site_factor/qosdeny's arithmetic, in process.
 *
 * (a) The background refresh's table work for 10,000 user associations
 *     (1,000 accounts x 10 users, plus the accounts' own associations):
 *     the association tree into a fair-share table (qd_fs_add_assoc,
 *     accounts first, as refresh.c's add_shares), usage added as
 *     qd_fs_read_usage adds it (each row of a per-cluster table found in
 *     the tree's by name), qd_fs_compute and qd_factor_table_build. Redis
 *     and slurmctld's locks are not included.
 * (b) site_factor_p_update's loop: under the table's mutex, one
 *     qd_factor_lookup per pending job, walking a linked list of job
 *     records of 1 KiB each (slurmctld's job_list is a linked list of
 *     job_record_t, which are larger still), the jobs' associations spread
 *     at random over the 10,000 user associations. of_which_walk: the same
 *     walk storing a constant, without the lookup.
 * (c) site_factor_p_set: lock, one lookup, unlock.
 *
 * Shares: accounts 1-1,000, users 1-100 (at random, fixed seed); usage:
 * decayed GPU-seconds spread over four orders of magnitude, a tenth of the
 * users without any. Medians of repeated runs.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "factor_table.h"
#include "fairshare.h"

#define ACCOUNTS      1000
#define USERS_PER_ACC 10
#define USERS	      (ACCOUNTS * USERS_PER_ACC)
#define ASSOCS	      (ACCOUNTS + USERS)
#define WEIGHT	      10000
#define NICE_OFFSET   0x80000000u
#define BUILD_RUNS    21
#define PASS_RUNS     21
#define SET_CALLS     2000000

struct job {
	struct job *next;
	uint32_t assoc_id;
	uint32_t state; /* 0: pending */
	uint32_t site_factor;
	char rest[1024 - sizeof(void *) - 3 * sizeof(uint32_t)];
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct qd_factor_table *table;
static struct qd_assoc_ref refs[ASSOCS];
static uint32_t shares[ASSOCS];
static double usage[ASSOCS];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), dbl_cmp);
	return v[n / 2];
}

/* The associations as assoc_mgr lists them: ids from 2 (1 is root), each
 * account's own association before its users'. */
static void make_assocs(void)
{
	size_t k = 0;

	srand(42);
	for (unsigned a = 0; a < ACCOUNTS; a++) {
		double acc_usage = 0;
		size_t acc = k;

		refs[k].id = 2 + k;
		snprintf(refs[k].account, QD_NAME_MAX, "acct%04u", a);
		refs[k].user[0] = '\0';
		shares[k] = 1 + rand() % 1000;
		k++;
		for (unsigned u = 0; u < USERS_PER_ACC; u++, k++) {
			refs[k].id = 2 + k;
			snprintf(refs[k].account, QD_NAME_MAX, "acct%04u", a);
			snprintf(refs[k].user, QD_NAME_MAX, "user%05u",
				 a * USERS_PER_ACC + u);
			shares[k] = 1 + rand() % 100;
			if (rand() % 10)
				usage[k] = (1 + rand() % 1000) *
					   (double)(1u << (rand() % 14));
			acc_usage += usage[k];
		}
		/* An account's usage is every job run under it. */
		usage[acc] = acc_usage;
	}
}

struct build_times {
	double tree, usage, compute, table, total;
};

/* What refresh.c does with the associations and Redis's usage. */
static struct qd_factor_table *build(struct build_times *bt)
{
	struct qd_fs_table t = {0}, one = {0};
	struct qd_factor_table *ft;
	double t0 = now_ns(), t1, t2, t3, t4;

	for (int users = 0; users < 2; users++)
		for (size_t i = 0; i < ASSOCS; i++)
			if (!refs[i].user[0] == !users &&
			    qd_fs_add_assoc(&t, refs[i].account,
					    users ? refs[i].user : NULL, NULL,
					    shares[i]))
				abort();
	t1 = now_ns();
	/* qd_fs_read_usage: one cluster's usage into a table of its own,
	 * then each of its rows found in the tree's. */
	for (size_t i = 0; i < ASSOCS; i++) {
		struct qd_fs_row *r;

		if (!usage[i])
			continue;
		r = qd_fs_add(&one, refs[i].account, refs[i].user, NULL);
		if (!r)
			abort();
		r->usage = usage[i];
	}
	for (size_t i = 0; i < one.n; i++) {
		struct qd_fs_row *r =
		    qd_fs_find(&t, one.rows[i].account, one.rows[i].user);

		if (r)
			r->usage += one.rows[i].usage;
	}
	t2 = now_ns();
	if (qd_fs_compute(&t))
		abort();
	t3 = now_ns();
	ft = qd_factor_table_build(&t, refs, ASSOCS, WEIGHT);
	if (!ft)
		abort();
	t4 = now_ns();
	qd_fs_free(&one);
	qd_fs_free(&t);
	bt->tree = t1 - t0;
	bt->usage = t2 - t1;
	bt->compute = t3 - t2;
	bt->table = t4 - t3;
	bt->total = t4 - t0;
	return ft;
}

/* Pending jobs in a list, in the order a queue fills (random owners). */
static struct job *make_jobs(unsigned n)
{
	struct job *head = NULL;

	for (unsigned i = 0; i < n; i++) {
		struct job *j = calloc(1, sizeof(*j));
		unsigned user = rand() % USERS;

		if (!j)
			abort();
		/* user u of account a is association 2 + a * 11 + 1 + u */
		j->assoc_id = 2 + (user / USERS_PER_ACC) * (USERS_PER_ACC + 1) +
			      1 + user % USERS_PER_ACC;
		j->next = head;
		head = j;
	}
	return head;
}

static void free_jobs(struct job *j)
{
	while (j) {
		struct job *next = j->next;

		free(j);
		j = next;
	}
}

/* site_factor_p_update. lookup 0: the walk alone. */
static double update_pass(struct job *jobs, int lookup)
{
	double t0 = now_ns();

	pthread_mutex_lock(&table_lock);
	for (struct job *j = jobs; j; j = j->next)
		if (!j->state)
			j->site_factor =
			    (lookup ? qd_factor_lookup(table, j->assoc_id)
				    : WEIGHT) +
			    NICE_OFFSET;
	pthread_mutex_unlock(&table_lock);
	return now_ns() - t0;
}

static int check_jobs(const struct job *jobs)
{
	for (; jobs; jobs = jobs->next)
		if (jobs->site_factor - NICE_OFFSET > WEIGHT)
			return -1;
	return 0;
}

int main(void)
{
	static const unsigned queues[] = {1000, 10000, 100000};
	double tree[BUILD_RUNS], use[BUILD_RUNS], comp[BUILD_RUNS],
	    tab[BUILD_RUNS], total[BUILD_RUNS];
	double pass[PASS_RUNS], walk[PASS_RUNS];
	volatile uint32_t sink = 0;
	unsigned below = 0;
	double t0, set_ns;

	make_assocs();
	for (int r = 0; r < BUILD_RUNS; r++) {
		struct build_times bt;
		struct qd_factor_table *ft = build(&bt);

		tree[r] = bt.tree / 1e6;
		use[r] = bt.usage / 1e6;
		comp[r] = bt.compute / 1e6;
		tab[r] = bt.table / 1e6;
		total[r] = bt.total / 1e6;
		free(table);
		table = ft;
	}
	for (size_t i = 0; i < table->n; i++)
		below += table->e[i].factor < WEIGHT;

	printf("# site_factor/qosdeny in process "
	       "(tests/bench/bench_site_factor.c)\n");
	printf("# %d accounts x %d users: %d associations (%d user, %d "
	       "account), weight %d\n",
	       ACCOUNTS, USERS_PER_ACC, ASSOCS, USERS, ACCOUNTS, WEIGHT);
	printf("# (a) the refresh's table work, ms, median of %d: tree = "
	       "qd_fs_add_assoc x %d,\n",
	       BUILD_RUNS, ASSOCS);
	printf("# usage = usage rows matched by name, compute = "
	       "qd_fs_compute, table =\n");
	printf("# qd_factor_table_build (no Redis, no slurmctld locks); %u "
	       "of %zu factors below the weight\n",
	       below, table->n);
	printf("%-8s %-8s %-8s %-8s %-8s\n", "tree", "usage", "compute",
	       "table", "total");
	printf("%-8.2f %-8.2f %-8.2f %-8.2f %-8.2f\n", median(tree, BUILD_RUNS),
	       median(use, BUILD_RUNS), median(comp, BUILD_RUNS),
	       median(tab, BUILD_RUNS), median(total, BUILD_RUNS));

	printf("#\n# (b) site_factor_p_update: one lookup per pending job "
	       "(direct index by assoc_id, %zu entries)\n",
	       table->n);
	printf("# under the mutex, over a linked list of 1 KiB job records; "
	       "median of %d passes;\n",
	       PASS_RUNS);
	printf("# of_which_walk: the same walk without the lookup\n");
	printf("%-13s %-12s %-12s %s\n", "pending_jobs", "ms_per_pass",
	       "ns_per_job", "of_which_walk_ns");
	for (size_t q = 0; q < sizeof(queues) / sizeof(queues[0]); q++) {
		struct job *jobs = make_jobs(queues[q]);
		double ms;

		for (int r = 0; r < PASS_RUNS; r++) {
			pass[r] = update_pass(jobs, 1);
			walk[r] = update_pass(jobs, 0);
		}
		update_pass(jobs, 1);
		if (check_jobs(jobs)) {
			fprintf(stderr, "bench: a factor above the weight\n");
			return 1;
		}
		ms = median(pass, PASS_RUNS) / 1e6;
		printf("%-13u %-12.3f %-12.1f %.1f\n", queues[q], ms,
		       ms * 1e6 / queues[q],
		       median(walk, PASS_RUNS) / queues[q]);
		free_jobs(jobs);
	}

	t0 = now_ns();
	for (unsigned i = 0; i < SET_CALLS; i++) {
		pthread_mutex_lock(&table_lock);
		sink += qd_factor_lookup(table, 2 + (i * 7919u) % ASSOCS);
		pthread_mutex_unlock(&table_lock);
	}
	set_ns = (now_ns() - t0) / SET_CALLS;
	(void)sink;
	printf("#\n# (c) site_factor_p_set: lock, one lookup, unlock; mean "
	       "of %d calls\n",
	       SET_CALLS);
	printf("%-13s %s\n", "call", "ns_per_call");
	printf("%-13s %.1f\n", "p_set", set_ns);
	free(table);
	return 0;
}
