/* SPDX-License-Identifier: GPL-2.0-or-later
 * make bench: the submit-time decision path, in process, in ns per decision.
 *
 * slurmctld keeps running usage per QoS as counters (grp_used_tres and one
 * used-limits record per user, found by walking a list), so a decision reads
 * two vectors whatever the number of jobs. This benchmark builds the same
 * shape: 1,000 users' records in a linked list, counters fed by 10, 1,000 or
 * 100,000 running jobs, then times what the plugin does per submission:
 * count the request from the job's fields, find the user's record, merge the
 * database limits with the policy's, run the three checks and, when denied,
 * format the message. Every other request asks for 5 GPUs, over the per-job
 * cap of 4, so half the decisions also format the denial message. The
 * lookup column is the list walk alone, the part that is Slurm's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "policy.h"
#include "request.h"

#define USERS	  1000
#define DECISIONS 2000000

struct user_usage {
	struct user_usage *next;
	unsigned uid;
	struct qd_tres used;
};

static const char *policy_text =
    "QOS=interactive Flags=DenyOnMaxPerJob,DenyOnMaxPerUser,DenyOnGrp\n";

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static struct user_usage *find_user(struct user_usage *head, unsigned uid)
{
	for (; head; head = head->next)
		if (head->uid == uid)
			return head;
	return NULL;
}

/* Spreads jobs of 1 GPU and 4 CPUs round-robin over the users. */
static struct user_usage *build_counters(unsigned jobs, struct qd_tres *all)
{
	struct user_usage *head = NULL;

	for (unsigned u = 0; u < USERS; u++) {
		struct user_usage *n = calloc(1, sizeof(*n));

		if (!n)
			abort();
		n->uid = u;
		qd_tres_init(&n->used);
		n->next = head;
		head = n;
	}
	qd_tres_init(all);
	for (unsigned j = 0; j < jobs; j++) {
		struct user_usage *n = find_user(head, j % USERS);

		qd_tres_set(&n->used, QD_TRES_GPU,
			    qd_tres_get(&n->used, QD_TRES_GPU, 0) + 1);
		qd_tres_set(&n->used, QD_TRES_CPU,
			    qd_tres_get(&n->used, QD_TRES_CPU, 0) + 4);
		qd_tres_set(all, QD_TRES_GPU,
			    qd_tres_get(all, QD_TRES_GPU, 0) + 1);
		qd_tres_set(all, QD_TRES_CPU,
			    qd_tres_get(all, QD_TRES_CPU, 0) + 4);
	}
	return head;
}

static void free_counters(struct user_usage *head)
{
	while (head) {
		struct user_usage *next = head->next;

		free(head);
		head = next;
	}
}

/* The user-record walk alone, as slurmctld's list_find_first does it. */
static double lookup_only(struct user_usage *users)
{
	volatile unsigned sink = 0;
	double t0 = now_ns();

	for (unsigned i = 0; i < DECISIONS; i++)
		sink += find_user(users, i % USERS)->uid;
	(void)sink;
	return (now_ns() - t0) / DECISIONS;
}

static double run(const struct qd_policy *pol, unsigned jobs, unsigned *denied,
		  double *lookup_ns)
{
	struct qd_tres all;
	struct user_usage *users = build_counters(jobs, &all);
	struct qd_limits db;
	const struct qd_job_request reqs[2] = {
	    {.num_tasks = 2,
	     .cpus_per_task = 4,
	     .tres_per_node = "gres:gpu:a100:2"},
	    {.num_tasks = 5, .tres_per_job = "gres:gpu:5"},
	};
	const struct qd_qos_rule *rule = qd_policy_rule(pol, "interactive");
	char msg[512], err[256];
	double t0, t1;

	qd_tres_init(&db.max_per_job);
	qd_tres_init(&db.max_per_user);
	qd_tres_init(&db.grp);
	qd_tres_set(&db.max_per_job, QD_TRES_GPU, 4);
	qd_tres_set(&db.max_per_user, QD_TRES_GPU, 2 + jobs / USERS);
	qd_tres_set(&db.grp, QD_TRES_GPU, jobs + 1000);
	*denied = 0;
	t0 = now_ns();
	for (unsigned i = 0; i < DECISIONS; i++) {
		struct qd_tres req;
		struct qd_limits lim;
		struct qd_usage used = {0};
		struct qd_verdict v;
		struct user_usage *me = find_user(users, i % USERS);

		if (qd_request_count(&reqs[i & 1], &req, err, sizeof(err)))
			abort();
		used.user = me->used;
		used.all = all;
		qd_limits_merge(&lim, &db, rule);
		if (qd_check(rule, &lim, &used, &req, &v)) {
			qd_verdict_format(&v, msg, sizeof(msg));
			(*denied)++;
		}
	}
	t1 = now_ns();
	*lookup_ns = lookup_only(users);
	free_counters(users);
	return (t1 - t0) / DECISIONS;
}

int main(void)
{
	static const unsigned jobs[] = {10, 1000, 100000};
	char err[QD_ERR_MAX];
	struct qd_policy *pol =
	    qd_policy_parse("bench", policy_text, err, sizeof(err));

	if (!pol) {
		fprintf(stderr, "bench: %s\n", err);
		return 1;
	}
	printf("# qosdeny decision path, %d decisions per row, %d users\n",
	       DECISIONS, USERS);
	printf("%-14s %-16s %-16s %s\n", "running_jobs", "ns_per_decision",
	       "of_which_lookup", "denied_share");
	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		unsigned denied;
		double lookup_ns;
		double ns = run(pol, jobs[i], &denied, &lookup_ns);

		printf("%-14u %-16.0f %-16.0f %.2f\n", jobs[i], ns, lookup_ns,
		       (double)denied / DECISIONS);
	}
	qd_policy_free(pol);
	return 0;
}
