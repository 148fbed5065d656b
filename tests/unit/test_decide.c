/* SPDX-License-Identifier: GPL-2.0-or-later
 * job_submit/qosdeny's decision (decide.h) on Slurm's own records: QoS,
 * associations, users and partitions as slurmctld holds them, qosdeny.conf
 * parsed from text. slurmctld's globals and assoc_mgr's lookups, which the
 * plugin finds in slurmctld, are defined here over those records; the rest
 * of Slurm's calls are libslurm's. What is checked is docs/how-it-decides.md
 * ("Which QoS", "What is in use", "Checks").
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "decide.h"
#include "slurm_compat.h"

/* slurmctld's and assoc_mgr's, as the plugin sees them there. */
__typeof__(accounting_enforce) accounting_enforce;
__typeof__(acct_db_conn) acct_db_conn;
__typeof__(default_part_loc) default_part_loc;
__typeof__(node_record_table_ptr) node_record_table_ptr;
__typeof__(node_record_count) node_record_count;
__typeof__(g_tres_count) g_tres_count;
__typeof__(assoc_mgr_tres_array) assoc_mgr_tres_array;

/* assoc_mgr's TRES, in its order: a position is an index here. */
enum { T_CPU, T_MEM, T_NODE, T_GPU, T_A100, N_TRES };

static slurmdb_tres_rec_t tres[N_TRES] = {
    {.id = 1, .type = "cpu"},
    {.id = 2, .type = "mem"},
    {.id = 4, .type = "node"},
    {.id = 1001, .type = "gres", .name = "gpu"},
    {.id = 1002, .type = "gres", .name = "gpu:a100"},
};
static slurmdb_tres_rec_t *tres_ptrs[N_TRES];

/* A QoS's database limits and running usage, as assoc_mgr keeps them. */
struct qos {
	slurmdb_qos_rec_t rec;
	slurmdb_qos_usage_t usage;
	uint64_t per_job[N_TRES], per_user[N_TRES], grp[N_TRES];
	uint64_t used[N_TRES];
};

enum { Q_NORMAL, Q_INTERACTIVE, Q_GPUPART, Q_GPUPART2, N_QOS };
static const char *const qos_names[N_QOS] = {"normal", "interactive", "gpupart",
					     "gpupart2"};
static struct qos qos[N_QOS];

#define ALICE 1000
#define BOB   1001

static slurmdb_user_rec_t users[] = {
    {.uid = ALICE, .name = "alice", .default_acct = "physics"},
    {.uid = BOB, .name = "bob", .default_acct = "physics"},
};

static slurmdb_assoc_usage_t assoc_usage[2];
static slurmdb_assoc_rec_t assocs[2] = {
    {.id = 10, .uid = ALICE, .user = "alice", .acct = "physics"},
    {.id = 11, .uid = BOB, .user = "bob", .acct = "physics"},
};

/* "gpu" and "gpu2" have a QoS of their own, "cpu" (the default) none. */
static part_record_t parts[3] = {
    {.name = "cpu"},
    {.name = "gpu"},
    {.name = "gpu2"},
};

int assoc_mgr_fill_in_user(void *db_conn, slurmdb_user_rec_t *user, int enforce,
			   slurmdb_user_rec_t **user_pptr, bool locked)
{
	(void)db_conn, (void)enforce, (void)locked;
	for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
		if (users[i].uid != user->uid)
			continue;
		user->name = users[i].name;
		user->default_acct = users[i].default_acct;
		if (user_pptr)
			*user_pptr = &users[i];
		return SLURM_SUCCESS;
	}
	return SLURM_ERROR;
}

int assoc_mgr_fill_in_assoc(void *db_conn, slurmdb_assoc_rec_t *assoc,
			    int enforce, slurmdb_assoc_rec_t **assoc_pptr,
			    bool locked)
{
	(void)db_conn, (void)enforce, (void)locked;
	for (size_t i = 0; i < sizeof(assocs) / sizeof(assocs[0]); i++) {
		if (assocs[i].uid != assoc->uid || !assoc->acct ||
		    strcmp(assocs[i].acct, assoc->acct))
			continue;
		*assoc_pptr = &assocs[i];
		return SLURM_SUCCESS;
	}
	return SLURM_ERROR;
}

/* As Slurm's, for what these records have: the association's
 * DefaultQOS, else normal (docs/how-it-decides.md, "Which QoS"). */
void assoc_mgr_get_default_qos_info(slurmdb_assoc_rec_t *assoc_ptr,
				    slurmdb_qos_rec_t *qos_rec)
{
	if (qos_rec->name || qos_rec->id)
		return;
	if (assoc_ptr && assoc_ptr->def_qos_id)
		qos_rec->id = assoc_ptr->def_qos_id;
	else
		qos_rec->name = "normal";
}

int assoc_mgr_fill_in_qos(void *db_conn, slurmdb_qos_rec_t *key, int enforce,
			  slurmdb_qos_rec_t **qos_pptr, bool locked)
{
	(void)db_conn, (void)enforce, (void)locked;
	for (int i = 0; i < N_QOS; i++)
		if (key->name ? !strcasecmp(qos[i].rec.name, key->name)
			      : qos[i].rec.id == key->id) {
			*qos_pptr = &qos[i].rec;
			return SLURM_SUCCESS;
		}
	return SLURM_ERROR;
}

part_record_t *find_part_record(char *name)
{
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (!strcmp(parts[i].name, name))
			return &parts[i];
	return NULL;
}

static void no_limits(uint64_t *arr)
{
	for (int t = 0; t < N_TRES; t++)
		arr[t] = INFINITE64;
}

/* Running usage: everyone's in the QoS, and this user's share of it. */
static void in_use(struct qos *q, uint32_t uid, int t, uint64_t mine,
		   uint64_t all)
{
	slurmdb_used_limits_t *u = xmalloc(sizeof(*u));

	u->uid = uid;
	u->tres = xcalloc(N_TRES, sizeof(*u->tres));
	u->tres[t] = mine;
	list_append(q->usage.user_limit_list, u);
	q->used[t] = all;
}

static void free_used_limits(void *x)
{
	slurmdb_used_limits_t *u = x;

	xfree(u->tres);
	xfree(u);
}

static void setup(void)
{
	for (int t = 0; t < N_TRES; t++)
		tres_ptrs[t] = &tres[t];
	assoc_mgr_tres_array = tres_ptrs;
	g_tres_count = N_TRES;
	memset(qos, 0, sizeof(qos));
	for (int i = 0; i < N_QOS; i++) {
		struct qos *q = &qos[i];

		q->rec.id = i + 1;
		q->rec.name = (char *)qos_names[i];
		no_limits(q->per_job);
		no_limits(q->per_user);
		no_limits(q->grp);
		q->rec.max_tres_pj_ctld = q->per_job;
		q->rec.max_tres_pu_ctld = q->per_user;
		q->rec.grp_tres_ctld = q->grp;
		q->usage.grp_used_tres = q->used;
		q->usage.user_limit_list = list_create(free_used_limits);
		q->rec.usage = &q->usage;
	}
	for (int i = 0; i < 2; i++) {
		assoc_usage[i].valid_qos = bit_alloc(N_QOS + 1);
		assocs[i].usage = &assoc_usage[i];
		assocs[i].def_qos_id = 0;
	}
	parts[1].qos_ptr = &qos[Q_GPUPART].rec;
	parts[2].qos_ptr = &qos[Q_GPUPART2].rec;
	default_part_loc = &parts[0];
	accounting_enforce = 0;
}

static void teardown(void)
{
	for (int i = 0; i < N_QOS; i++)
		list_destroy(qos[i].usage.user_limit_list);
	for (int i = 0; i < 2; i++)
		bit_free(assoc_usage[i].valid_qos);
}

TestSuite(decide, .init = setup, .fini = teardown);

static struct qd_policy *policy(const char *text)
{
	char err[QD_ERR_MAX];
	struct qd_policy *p =
	    qd_policy_parse("qosdeny.conf", text, err, sizeof(err));

	cr_assert_not_null(p, "%s", err);
	return p;
}

static struct qd_tres gpus(uint64_t n)
{
	struct qd_tres t;

	qd_tres_init(&t);
	qd_tres_set(&t, QD_TRES_GPU, n);
	return t;
}

/* The job's QoS as job_submit() finds them, then its decision; msg is
 * left "-" when the job is accepted. */
static bool decide(const char *conf, const struct qd_job_view *job,
		   uint64_t n_gpus, char *msg, size_t len)
{
	struct qd_policy *pol = policy(conf);
	size_t room = qd_job_qos_room(job), n;
	slurmdb_qos_rec_t *q[8];
	slurmdb_assoc_rec_t *assoc;
	struct qd_who who = {0};
	struct qd_tres req = gpus(n_gpus);
	struct qd_verdict v;
	bool denied;

	cr_assert_leq(room, 8);
	n = qd_job_qos(job, &who, &assoc, q, room);
	snprintf(msg, len, "-");
	denied = !qd_policy_is_exempt(pol, who.user) &&
		 qd_decide(pol, &req, job, q, n, &v);
	if (denied)
		qd_verdict_format(&v, msg, len);
	qd_policy_free(pol);
	return denied;
}

#define DECIDE(conf, job, n) decide(conf, job, n, msg, sizeof(msg))

Test(decide, per_job_cap_denies_above_and_accepts_at_it)
{
	struct qd_job_view job = {.uid = ALICE, .qos = "interactive"};
	const char *conf = "QOS=interactive Flags=DenyOnMaxPerJob\n";
	char msg[512];

	qos[Q_INTERACTIVE].per_job[T_GPU] = 2;
	cr_assert(DECIDE(conf, &job, 3));
	cr_expect_str_eq(msg, "qosdeny: DenyOnMaxPerJob: QOS interactive: "
			      "gres/gpu requested 3, MaxTRESPerJob limit 2");
	cr_expect_not(DECIDE(conf, &job, 2));
	cr_expect_str_eq(msg, "-", "an accepted job's msg is left alone");
}

/* qosdeny.conf's limit is laid over the database's (qosdeny.conf(5)). */
Test(decide, file_limit_overrides_database_limit)
{
	struct qd_job_view job = {.uid = ALICE, .qos = "interactive"};
	char msg[512];

	qos[Q_INTERACTIVE].per_job[T_GPU] = 8;
	cr_assert(DECIDE("QOS=interactive Flags=DenyOnMaxPerJob "
			 "MaxTRESPerJob=gres/gpu=1\n",
			 &job, 2));
	cr_expect_str_eq(msg, "qosdeny: DenyOnMaxPerJob: QOS interactive: "
			      "gres/gpu requested 2, MaxTRESPerJob limit 1");
}

/* The user's running usage is theirs alone: alice's jobs do not count
 * against bob. */
Test(decide, per_user_cap_counts_the_users_running_jobs)
{
	struct qd_job_view alice = {.uid = ALICE, .qos = "interactive"};
	struct qd_job_view bob = {.uid = BOB, .qos = "interactive"};
	const char *conf = "QOS=interactive Flags=DenyOnMaxPerUser\n";
	char msg[512];

	qos[Q_INTERACTIVE].per_user[T_GPU] = 4;
	in_use(&qos[Q_INTERACTIVE], ALICE, T_GPU, 3, 3);
	cr_assert(DECIDE(conf, &alice, 2));
	cr_expect_str_eq(msg,
			 "qosdeny: DenyOnMaxPerUser: QOS interactive: gres/gpu "
			 "requested 2, in use 3, MaxTRESPerUser limit 4");
	cr_expect_not(DECIDE(conf, &alice, 1), "3 + 1 is the limit");
	cr_expect_not(DECIDE(conf, &bob, 4), "bob has nothing running");
}

Test(decide, group_cap_counts_everyones_running_jobs)
{
	struct qd_job_view bob = {.uid = BOB, .qos = "interactive"};
	const char *conf = "QOS=interactive Flags=DenyOnGrp\n";
	char msg[512];

	qos[Q_INTERACTIVE].grp[T_GPU] = 8;
	in_use(&qos[Q_INTERACTIVE], ALICE, T_GPU, 7, 7);
	cr_assert(DECIDE(conf, &bob, 2));
	cr_expect_str_eq(msg, "qosdeny: DenyOnGrp: QOS interactive: gres/gpu "
			      "requested 2, in use 7, GrpTRES limit 8");
	cr_expect_not(DECIDE(conf, &bob, 1));
}

/* A limit without its flag is Slurm's to enforce (it holds the job). */
Test(decide, limits_without_their_flag_are_not_checked)
{
	struct qd_job_view job = {.uid = ALICE, .qos = "interactive"};
	char msg[512];

	qos[Q_INTERACTIVE].per_job[T_GPU] = 1;
	qos[Q_INTERACTIVE].per_user[T_GPU] = 1;
	qos[Q_INTERACTIVE].grp[T_GPU] = 100;
	cr_expect_not(DECIDE("QOS=interactive Flags=DenyOnGrp\n", &job, 4));
	cr_expect_str_eq(msg, "-");
	cr_assert(DECIDE("QOS=interactive Flags=DenyOnMaxPerUser\n", &job, 4));
	cr_expect_str_eq(msg, "qosdeny: DenyOnMaxPerUser: QOS interactive: "
			      "gres/gpu requested 4, in use 0, MaxTRESPerUser "
			      "limit 1");
}

/* All three flags: per job is checked first (docs/how-it-decides.md,
 * "Checks"). */
Test(decide, first_failing_check_is_reported)
{
	struct qd_job_view job = {.uid = ALICE, .qos = "interactive"};
	char msg[512];

	qos[Q_INTERACTIVE].per_job[T_GPU] = 2;
	qos[Q_INTERACTIVE].per_user[T_GPU] = 2;
	qos[Q_INTERACTIVE].grp[T_GPU] = 2;
	cr_assert(DECIDE("QOS=interactive Flags=DenyOnMaxPerJob,"
			 "DenyOnMaxPerUser,DenyOnGrp\n",
			 &job, 3));
	cr_expect_str_eq(msg, "qosdeny: DenyOnMaxPerJob: QOS interactive: "
			      "gres/gpu requested 3, MaxTRESPerJob limit 2");
}

Test(decide, qos_without_a_record_is_left_alone)
{
	struct qd_job_view job = {.uid = ALICE, .qos = "normal"};
	char msg[512];

	qos[Q_NORMAL].per_job[T_GPU] = 1;
	cr_expect_not(
	    DECIDE("QOS=interactive Flags=DenyOnMaxPerJob\n", &job, 4));
}

Test(decide, exempt_user_is_never_denied)
{
	struct qd_job_view job = {.uid = ALICE, .qos = "interactive"};
	char msg[512];

	qos[Q_INTERACTIVE].per_job[T_GPU] = 1;
	cr_expect_not(DECIDE("ExemptUsers=alice\n"
			     "QOS=interactive Flags=DenyOnMaxPerJob\n",
			     &job, 4));
	cr_expect_str_eq(msg, "-");
}

/* No --qos: the association's DefaultQOS. */
Test(decide, job_without_qos_gets_its_associations_default)
{
	struct qd_job_view job = {.uid = ALICE};
	char msg[512];

	qos[Q_INTERACTIVE].per_job[T_GPU] = 1;
	assocs[0].def_qos_id = qos[Q_INTERACTIVE].rec.id;
	cr_assert(DECIDE("QOS=interactive Flags=DenyOnMaxPerJob\n", &job, 2));
	cr_expect_str_eq(msg, "qosdeny: DenyOnMaxPerJob: QOS interactive: "
			      "gres/gpu requested 2, MaxTRESPerJob limit 1");
}

/* The partition's QoS is checked after the job's own. */
Test(decide, partition_qos_denies)
{
	struct qd_job_view job = {
	    .uid = ALICE, .qos = "normal", .partition = "gpu"};
	char msg[512];

	qos[Q_GPUPART].per_job[T_GPU] = 4;
	cr_assert(DECIDE("QOS=gpupart Flags=DenyOnMaxPerJob\n", &job, 5));
	cr_expect_str_eq(msg, "qosdeny: DenyOnMaxPerJob: QOS gpupart: "
			      "gres/gpu requested 5, MaxTRESPerJob limit 4");
}

/* A job listing several partitions runs in one: denied only when every
 * listed partition's QoS denies, the first one's line reported. */
Test(decide, partition_list_denies_only_when_every_partition_does)
{
	struct qd_job_view job = {.uid = ALICE, .qos = "normal"};
	const char *conf = "QOS=gpupart Flags=DenyOnMaxPerJob\n"
			   "QOS=gpupart2 Flags=DenyOnMaxPerJob\n";
	char msg[512];

	qos[Q_GPUPART].per_job[T_GPU] = 4;
	qos[Q_GPUPART2].per_job[T_GPU] = 2;
	job.partition = "gpu,cpu";
	cr_expect_not(DECIDE(conf, &job, 5), "cpu has no QoS to deny it");
	job.partition = "gpu2,gpu";
	cr_assert(DECIDE(conf, &job, 5));
	cr_expect_str_eq(msg, "qosdeny: DenyOnMaxPerJob: QOS gpupart2: "
			      "gres/gpu requested 5, MaxTRESPerJob limit 2");
	cr_expect_not(DECIDE(conf, &job, 3), "gpu takes 3");
}

/* A partition QoS that is also one of the job's own is looked at once;
 * under the job's other QoS it is still the partition's, and its limit
 * is in force there too (Slurm orders the partition's QoS first): a job
 * that may run under normal is denied by gpupart all the same. */
Test(decide, partition_qos_holds_under_every_job_qos)
{
	struct qd_job_view job = {
	    .uid = ALICE, .qos = "normal,gpupart", .partition = "gpu"};
	char msg[512];

	qos[Q_GPUPART].per_job[T_GPU] = 4;
	cr_assert(DECIDE("QOS=gpupart Flags=DenyOnMaxPerJob\n", &job, 5));
	cr_expect_str_eq(msg, "qosdeny: DenyOnMaxPerJob: QOS gpupart: "
			      "gres/gpu requested 5, MaxTRESPerJob limit 4");
	cr_expect_not(DECIDE("QOS=gpupart Flags=DenyOnMaxPerJob\n", &job, 4));
	job.qos = "gpupart";
	cr_assert(DECIDE("QOS=gpupart Flags=DenyOnMaxPerJob\n", &job, 5));
	cr_expect_str_eq(msg, "qosdeny: DenyOnMaxPerJob: QOS gpupart: "
			      "gres/gpu requested 5, MaxTRESPerJob limit 4");
}

/* The job's QoS and its partition's resolved as Slurm resolves them
 * (in_force.h): the partition's limit for a TRES is in force over the
 * job QoS's, unless the job's QoS has OverPartQOS; a limit in force that
 * belongs to a QoS without a record denies nothing. */
Test(decide, partition_qos_limit_in_force_over_the_jobs)
{
	struct qd_job_view job = {
	    .uid = ALICE, .qos = "interactive", .partition = "gpu"};
	const char *conf = "QOS=interactive Flags=DenyOnMaxPerJob\n"
			   "QOS=gpupart Flags=DenyOnMaxPerJob\n";
	char msg[512];

	qos[Q_GPUPART].per_job[T_GPU] = 8;
	qos[Q_INTERACTIVE].per_job[T_GPU] = 2;
	cr_expect_not(DECIDE(conf, &job, 4), "gpupart's 8 is in force: %s",
		      msg);
	cr_expect_not(
	    DECIDE("QOS=interactive Flags=DenyOnMaxPerJob\n", &job, 9),
	    "gpupart's 8 is in force, and gpupart has no record");
	cr_assert(DECIDE(conf, &job, 9));
	cr_expect_str_eq(msg, "qosdeny: DenyOnMaxPerJob: QOS gpupart: "
			      "gres/gpu requested 9, MaxTRESPerJob limit 8");
	qos[Q_INTERACTIVE].rec.flags |= QOS_FLAG_OVER_PART_QOS;
	cr_assert(DECIDE(conf, &job, 4));
	cr_expect_str_eq(msg, "qosdeny: DenyOnMaxPerJob: QOS interactive: "
			      "gres/gpu requested 4, MaxTRESPerJob limit 2");
	job.partition = "cpu";
	qos[Q_INTERACTIVE].rec.flags = 0;
	cr_expect(DECIDE(conf, &job, 4), "cpu has no QoS: interactive's 2");
}

/* A limit on the partition QoS's qosdeny.conf record, where its database
 * sets none, is laid over before the order: it is the partition QoS's, so
 * it decides over the job QoS's database limit, both ways. */
Test(decide, partition_qos_record_limit_in_force_over_the_jobs)
{
	struct qd_job_view job = {
	    .uid = ALICE, .qos = "interactive", .partition = "gpu"};
	const char *conf = "QOS=interactive Flags=DenyOnMaxPerJob\n"
			   "QOS=gpupart Flags=DenyOnMaxPerJob "
			   "MaxTRESPerJob=gres/gpu=8\n";
	char msg[512];

	qos[Q_INTERACTIVE].per_job[T_GPU] = 2;
	cr_expect_not(DECIDE(conf, &job, 4), "the record's 8 is in force: %s",
		      msg);
	cr_assert(DECIDE(conf, &job, 9));
	cr_expect_str_eq(msg, "qosdeny: DenyOnMaxPerJob: QOS gpupart: "
			      "gres/gpu requested 9, MaxTRESPerJob limit 8");
	qos[Q_INTERACTIVE].per_job[T_GPU] = 16;
	cr_assert(DECIDE(conf, &job, 9),
		  "the record's 8 over interactive's 16");
}

/* --qos=a,b (24.11): denied only when every listed QoS denies; the line
 * is the first one's, of equal priorities the first listed. */
Test(decide, qos_list_denies_only_when_every_qos_does)
{
	struct qd_job_view job = {.uid = ALICE};
	const char *conf = "QOS=interactive Flags=DenyOnMaxPerJob\n"
			   "QOS=normal Flags=DenyOnMaxPerJob\n";
	char msg[512];

	qos[Q_INTERACTIVE].per_job[T_GPU] = 1;
	qos[Q_NORMAL].per_job[T_GPU] = 3;
	job.qos = "interactive,normal";
	cr_expect_not(DECIDE(conf, &job, 2), "normal takes 2");
	cr_assert(DECIDE(conf, &job, 4));
	cr_expect_str_eq(msg, "qosdeny: DenyOnMaxPerJob: QOS interactive: "
			      "gres/gpu requested 4, MaxTRESPerJob limit 1");
	job.qos = "normal,interactive";
	cr_assert(DECIDE(conf, &job, 4));
	cr_expect_str_eq(msg, "qosdeny: DenyOnMaxPerJob: QOS normal: "
			      "gres/gpu requested 4, MaxTRESPerJob limit 3");
}

/* A het job's earlier components count as in use for its later ones
 * (decide.h: job->het), once accepted. */
Test(decide, het_components_add_up)
{
	struct qd_het_sum het;
	struct qd_job_view job = {
	    .uid = ALICE, .qos = "interactive", .het = &het};
	const char *conf = "QOS=interactive Flags=DenyOnMaxPerUser\n";
	char msg[512];

	qd_het_sum_reset(&het);
	qos[Q_INTERACTIVE].per_user[T_GPU] = 4;
	cr_expect_not(DECIDE(conf, &job, 3));
	cr_assert(DECIDE(conf, &job, 2));
	cr_expect_str_eq(msg,
			 "qosdeny: DenyOnMaxPerUser: QOS interactive: gres/gpu "
			 "requested 2, in use 3, MaxTRESPerUser limit 4");
	cr_expect_not(DECIDE(conf, &job, 1), "the denied component added none");
}

Test(decide, job_qos_in_listed_order_each_once_unknown_left_out)
{
	struct qd_job_view job = {
	    .uid = ALICE, .qos = "interactive,nosuch,normal,interactive"};
	slurmdb_qos_rec_t *q[4];
	slurmdb_assoc_rec_t *assoc;
	struct qd_who who;

	cr_assert_eq(qd_job_qos_room(&job), 4);
	cr_assert_eq(qd_job_qos(&job, &who, &assoc, q, 4), 2);
	cr_expect_eq(q[0], &qos[Q_INTERACTIVE].rec);
	cr_expect_eq(q[1], &qos[Q_NORMAL].rec);
	cr_expect_eq(assoc, &assocs[0]);
	cr_expect_str_eq(who.user, "alice");
	cr_expect_str_eq(who.account, "physics", "the user's default");
}

/* Slurm tries a job's QoS by Priority, highest first (job_mgr.c's
 * _get_qos_ptr_list); equal ones stay as listed. */
Test(decide, job_qos_in_slurms_order_highest_priority_first)
{
	struct qd_job_view job = {.uid = ALICE, .qos = "interactive,normal"};
	const char *conf = "QOS=interactive Flags=DenyOnMaxPerJob\n"
			   "QOS=normal Flags=DenyOnMaxPerJob\n";
	slurmdb_qos_rec_t *q[2];
	slurmdb_assoc_rec_t *assoc;
	struct qd_who who;
	char msg[512];

	qos[Q_NORMAL].rec.priority = 10;
	cr_assert_eq(qd_job_qos(&job, &who, &assoc, q, 2), 2);
	cr_expect_eq(q[0], &qos[Q_NORMAL].rec, "normal's priority is higher");
	cr_expect_eq(q[1], &qos[Q_INTERACTIVE].rec);
	qos[Q_INTERACTIVE].per_job[T_GPU] = 1;
	qos[Q_NORMAL].per_job[T_GPU] = 3;
	cr_assert(DECIDE(conf, &job, 4));
	cr_expect_str_eq(msg,
			 "qosdeny: DenyOnMaxPerJob: QOS normal: "
			 "gres/gpu requested 4, MaxTRESPerJob limit 3",
			 "the line of the QoS Slurm tries first");
	qos[Q_INTERACTIVE].rec.priority = 10;
	cr_assert_eq(qd_job_qos(&job, &who, &assoc, q, 2), 2);
	cr_expect_eq(q[0], &qos[Q_INTERACTIVE].rec, "equal: as listed");
}

/* "" (an update's --qos=) means the association's default. */
Test(decide, empty_qos_is_the_associations_default)
{
	struct qd_job_view job = {.uid = BOB, .account = "physics", .qos = ""};
	slurmdb_qos_rec_t *q[1];
	slurmdb_assoc_rec_t *assoc;
	struct qd_who who;

	assocs[1].def_qos_id = qos[Q_INTERACTIVE].rec.id;
	cr_assert_eq(qd_job_qos(&job, &who, &assoc, q, 1), 1);
	cr_expect_eq(q[0], &qos[Q_INTERACTIVE].rec);
	cr_expect_str_eq(who.user, "bob");
}

/* An update naming no QoS: the pending job's own (cur_qos). */
Test(decide, update_without_qos_keeps_the_jobs)
{
	slurmdb_qos_rec_t *cur[] = {&qos[Q_GPUPART].rec, &qos[Q_NORMAL].rec};
	struct qd_job_view job = {.uid = ALICE, .cur_qos = cur, .n_cur_qos = 2};
	slurmdb_qos_rec_t *q[2];
	slurmdb_assoc_rec_t *assoc;
	struct qd_who who;

	cr_assert_eq(qd_job_qos_room(&job), 2);
	cr_assert_eq(qd_job_qos(&job, &who, &assoc, q, 2), 2);
	cr_expect_eq(q[0], &qos[Q_GPUPART].rec);
	cr_expect_eq(q[1], &qos[Q_NORMAL].rec);
}

/* A uid slurmctld has no user for: named by number, no association. */
Test(decide, unknown_user_has_no_association)
{
	struct qd_job_view job = {.uid = 4242, .qos = "normal"};
	slurmdb_qos_rec_t *q[1];
	slurmdb_assoc_rec_t *assoc = &assocs[0];
	struct qd_who who;

	cr_assert_eq(qd_job_qos(&job, &who, &assoc, q, 1), 1);
	cr_expect_null(assoc);
	cr_expect_str_eq(who.user, "4242");
	cr_expect_str_eq(who.account, "");
}

/* AccountingStorageEnforce=qos: an update to a QoS the association may
 * not use is not Slurm's to allow, unless an operator asks. */
Test(decide, qos_allowed_follows_enforce_qos_and_operators)
{
	slurmdb_qos_rec_t *inter = &qos[Q_INTERACTIVE].rec;

	cr_expect(qd_qos_allowed(inter, &assocs[0], false, NULL));
	accounting_enforce = ACCOUNTING_ENFORCE_QOS;
	cr_expect_not(qd_qos_allowed(inter, &assocs[0], false, NULL));
	cr_expect(qd_qos_allowed(inter, &assocs[0], true, NULL));
	bit_set(assoc_usage[0].valid_qos, inter->id);
	cr_expect(qd_qos_allowed(inter, &assocs[0], false, NULL));
	cr_expect_not(qd_qos_allowed(NULL, &assocs[0], true, NULL));
}

/* Flags=RequiresReservation: allowed only with a reservation. */
Test(decide, qos_requiring_a_reservation)
{
	slurmdb_qos_rec_t *inter = &qos[Q_INTERACTIVE].rec;

	inter->flags |= QOS_FLAG_REQ_RESV;
	cr_expect_not(qd_qos_allowed(inter, &assocs[0], false, NULL));
	cr_expect_not(qd_qos_allowed(inter, &assocs[0], false, ""));
	cr_expect(qd_qos_allowed(inter, &assocs[0], false, "maint"));
}
