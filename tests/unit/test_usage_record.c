/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "usage_record.h"

static const char alice_line[] =
    "qosdeny-usage/3 cluster=qd job=42 node=node-1 user=alice "
    "account=research qos=interactive partition=gpu restart=1 "
    "job_start=1699999990 start=1700000000 end=1700003600 gpus=2 "
    "gpu_seconds=7200\n";

static struct qd_usage_record alice(void)
{
	struct qd_usage_record r = {
	    .cluster = "qd",
	    .job_id = 42,
	    .node = "node-1",
	    .user = "alice",
	    .account = "research",
	    .qos = "interactive",
	    .partition = "gpu",
	    .start = 1700000000,
	    .mgpus = 2000,
	    .restart = 1,
	    .job_start = 1699999990,
	};

	cr_assert_eq(qd_usage_record_close(&r, 1700003600), 0);
	return r;
}

static int decode_str(const char *s, struct qd_usage_record *r, char *err)
{
	return qd_usage_record_decode(s, strlen(s), r, err, QD_RECORD_ERR_MAX);
}

Test(usage_record, encode_exact_text)
{
	struct qd_usage_record r = alice();
	char buf[QD_RECORD_MAX], err[QD_RECORD_ERR_MAX] = "";
	int n = qd_usage_record_encode(&r, buf, sizeof(buf), err, sizeof(err));

	cr_assert_eq(n, (int)strlen(alice_line), "%s", err);
	cr_expect_str_eq(buf, alice_line);
}

Test(usage_record, round_trip)
{
	struct qd_usage_record r = alice(), back;
	char buf[QD_RECORD_MAX], err[QD_RECORD_ERR_MAX] = "";
	int n = qd_usage_record_encode(&r, buf, sizeof(buf), err, sizeof(err));

	cr_assert_gt(n, 0);
	cr_assert_eq(qd_usage_record_decode(buf, n, &back, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_eq(memcmp(&r, &back, sizeof(r)), 0);
	cr_expect_eq(back.mgpu_seconds, 7200000);
}

/* At prolog the record is open; empty qos and partition are allowed. */
Test(usage_record, open_record)
{
	struct qd_usage_record r = alice(), back;
	char buf[QD_RECORD_MAX], err[QD_RECORD_ERR_MAX] = "";
	int n;

	r.end = 0;
	r.mgpu_seconds = 0;
	r.qos[0] = r.partition[0] = '\0';
	cr_assert(qd_usage_record_is_open(&r));
	n = qd_usage_record_encode(&r, buf, sizeof(buf), err, sizeof(err));
	cr_assert_gt(n, 0, "%s", err);
	cr_expect(strstr(buf, " qos= partition= restart=1 job_start=1699999990 "
			      "start=1700000000 end=0 gpus=2 gpu_seconds=0\n"));
	cr_assert_eq(qd_usage_record_decode(buf, n, &back, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect(qd_usage_record_is_open(&back));
	cr_expect_eq(qd_usage_record_close(&back, 1700000010), 0);
	cr_expect_eq(back.mgpu_seconds, 20000);
	cr_expect_eq(qd_usage_record_close(&back, 1700000020), -1,
		     "closed twice");
}

/* A clock stepped back: 0 seconds, not a record that cannot be decoded. */
/* A job without an account (Slurm without accounting): the record is made
 * with the account empty, and read back as such; the user stays required. */
Test(usage_record, empty_account)
{
	static const char line[] =
	    "qosdeny-usage/3 cluster=qd job=42 node=node-1 user=alice "
	    "account= qos=interactive partition=gpu restart=1 "
	    "job_start=1699999990 start=1700000000 end=1700003600 gpus=2 "
	    "gpu_seconds=7200\n";
	struct qd_usage_record r = alice(), back;
	char buf[QD_RECORD_MAX], err[QD_RECORD_ERR_MAX] = "";
	int n;

	memset(r.account, 0, sizeof(r.account));
	n = qd_usage_record_encode(&r, buf, sizeof(buf), err, sizeof(err));
	cr_assert_eq(n, (int)strlen(line), "%s", err);
	cr_expect_str_eq(buf, line);
	cr_assert_eq(qd_usage_record_decode(buf, n, &back, err, sizeof(err)), 0,
		     "%s", err);
	cr_expect_eq(memcmp(&r, &back, sizeof(r)), 0);
	cr_expect_str_eq(back.account, "");
	cr_expect_str_eq(back.user, "alice");
	r.user[0] = '\0';
	cr_expect_eq(
	    qd_usage_record_encode(&r, buf, sizeof(buf), err, sizeof(err)), -1);
	cr_expect_str_eq(err, "usage record: invalid user ''");
}

Test(usage_record, close_before_start)
{
	struct qd_usage_record r = alice();

	r.end = 0;
	r.mgpu_seconds = 0;
	cr_assert_eq(qd_usage_record_close(&r, 1600000000), 0);
	cr_expect_eq(r.end, r.start);
	cr_expect_eq(r.mgpu_seconds, 0);
}

Test(usage_record, close_overflow)
{
	struct qd_usage_record r = alice();

	r.end = 0;
	r.mgpu_seconds = 0;
	r.mgpus = UINT32_MAX;
	r.start = 1;
	cr_expect_eq(qd_usage_record_close(&r, INT64_MAX), -1);
	cr_expect(qd_usage_record_is_open(&r), "left untouched");
}

/* What an earlier release spooled still closes and sends after an
 * upgrade, under the same id, its run unknown. */
Test(usage_record, version_1_still_decodes)
{
	static const char v1[] =
	    "qosdeny-usage/1 cluster=qd job=42 node=node-1 user=alice "
	    "account=research qos=interactive partition=gpu start=1700000000 "
	    "end=0 gpus=2 gpu_seconds=0\n";
	struct qd_usage_record back, now = alice();
	char buf[QD_RECORD_MAX], err[QD_RECORD_ERR_MAX] = "", id[64];

	cr_assert_eq(decode_str(v1, &back, err), 0, "%s", err);
	cr_expect_eq(back.restart, QD_RESTART_UNKNOWN);
	cr_expect_eq(back.job_start, 0);
	cr_expect(qd_usage_record_same_run(&back, &now), "unknown matches");
	cr_assert_gt(qd_usage_record_id(&back, id, sizeof(id)), 0);
	cr_expect_str_eq(id, "qd/42/node-1/1700000000");
	cr_assert_eq(qd_usage_record_close(&back, 1700000100), 0);
	cr_assert_gt(
	    qd_usage_record_encode(&back, buf, sizeof(buf), err, sizeof(err)),
	    0);
	cr_expect(strstr(buf, " partition=gpu restart= job_start=0 start="),
		  "%s", buf);
	cr_assert_eq(decode_str(buf, &back, err), 0, "%s", err);
	cr_expect_eq(back.restart, QD_RESTART_UNKNOWN);
}

Test(usage_record, same_run)
{
	struct qd_usage_record a = alice(), b = alice();

	cr_expect(qd_usage_record_same_run(&a, &b));
	b.restart = 2;
	cr_expect_not(qd_usage_record_same_run(&a, &b), "another restart");
	b.restart = QD_RESTART_UNKNOWN;
	cr_expect(qd_usage_record_same_run(&a, &b));
	b.job_start = a.job_start + 1;
	cr_expect_not(qd_usage_record_same_run(&a, &b), "another start");
	b.job_start = 0;
	cr_expect(qd_usage_record_same_run(&a, &b));
	b.job_id = 43;
	cr_expect_not(qd_usage_record_same_run(&a, &b), "another job");
}

Test(usage_record, id)
{
	struct qd_usage_record r = alice();
	char id[QD_RECORD_ID_MAX];

	cr_assert_gt(qd_usage_record_id(&r, id, sizeof(id)), 0);
	cr_expect_str_eq(id, "qd/42/node-1/1700000000");
	cr_expect_eq(qd_usage_record_id(&r, id, 5), -1);
}

Test(usage_record, text_for_logs)
{
	struct qd_usage_record r = alice();
	char buf[QD_RECORD_MAX];

	cr_expect_eq(qd_usage_record_text(&r, buf, sizeof(buf)), buf);
	cr_expect_eq(strlen(buf), strlen(alice_line) - 1, "no newline");
	cr_expect_eq(strncmp(buf, alice_line, strlen(buf)), 0, "%s", buf);
	strcpy(r.user, "al ice");
	cr_expect(!strncmp(qd_usage_record_text(&r, buf, sizeof(buf)),
			   "(usage record: invalid user ", 28),
		  "%s", buf);
}

Test(usage_record, names)
{
	char longest[QD_NAME_MAX];

	cr_expect(qd_usage_name_ok("node-1.example.com"));
	cr_expect(qd_usage_name_ok("user@REALM+x$"));
	cr_expect_not(qd_usage_name_ok(""));
	cr_expect_not(qd_usage_name_ok("a:b"));
	cr_expect_not(qd_usage_name_ok("a/b"));
	cr_expect_not(qd_usage_name_ok("a b"));
	cr_expect_not(qd_usage_name_ok("a*"));
	cr_expect_not(qd_usage_name_ok("caf\xc3\xa9"));
	memset(longest, 'x', sizeof(longest) - 1);
	longest[sizeof(longest) - 1] = '\0';
	cr_expect(qd_usage_name_ok(longest));
}

Test(usage_record, encode_refuses_invalid)
{
	struct qd_usage_record r = alice();
	char buf[QD_RECORD_MAX], err[QD_RECORD_ERR_MAX] = "";

	strcpy(r.user, "al ice");
	cr_expect_eq(
	    qd_usage_record_encode(&r, buf, sizeof(buf), err, sizeof(err)), -1);
	cr_expect_str_eq(err, "usage record: invalid user 'al ice'");
	r = alice();
	r.mgpu_seconds += 1000;
	cr_expect_eq(
	    qd_usage_record_encode(&r, buf, sizeof(buf), err, sizeof(err)), -1);
	cr_expect_str_eq(err, "usage record: gpu_seconds 7201 is not gpus * "
			      "(end - start) = 7200");
	r = alice();
	cr_expect_eq(qd_usage_record_encode(&r, buf, 20, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "usage record: does not fit in 20 bytes");
}

static const struct {
	const char *text;
	const char *err;
} garbage[] = {
    {"", "usage record: not ended by a newline (truncated?)"},
    {"qosdeny-usage/1 cluster=qd job=42",
     "usage record: not ended by a newline (truncated?)"},
    {"qosdeny-usage/4 cluster=qd\n",
     "usage record: not a version 1, 2 or 3 record 'qosdeny-usage/4 "
     "cluster=qd'"},
    /* Thousandths only in version 3, one text per value. */
    {"qosdeny-usage/2 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= restart= job_start=0 start=1 end=3 gpus=0.5 "
     "gpu_seconds=1\n",
     "usage record: invalid gpus '0.5'"},
    {"qosdeny-usage/3 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= restart= job_start=0 start=1 end=3 gpus=0.50 "
     "gpu_seconds=1\n",
     "usage record: invalid gpus '0.50'"},
    {"qosdeny-usage/3 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= restart= job_start=0 start=1 end=3 gpus=1.0 "
     "gpu_seconds=2\n",
     "usage record: invalid gpus '1.0'"},
    {"qosdeny-usage/3 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= restart= job_start=0 start=1 end=3 gpus=.5 "
     "gpu_seconds=1\n",
     "usage record: invalid gpus '.5'"},
    {"qosdeny-usage/3 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= restart= job_start=0 start=1 end=3 gpus=0.0625 "
     "gpu_seconds=0.125\n",
     "usage record: invalid gpus '0.0625'"},
    {"qosdeny-usage/3 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= restart= job_start=0 start=1 end=3 gpus=0.5 "
     "gpu_seconds=1.\n",
     "usage record: invalid gpu_seconds '1.'"},
    {"qosdeny-usage/3 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= restart= job_start=0 start=1 end=4 gpus=0.25 "
     "gpu_seconds=0.7\n",
     "usage record: gpu_seconds 0.7 is not gpus * (end - start) = 0.75"},
    {"qosdeny-usage/3 cluster=qd job=1 node=n user=u account=a%3ab qos= "
     "partition= restart= job_start=0 start=1 end=3 gpus=1 "
     "gpu_seconds=2\n",
     "usage record: invalid account 'a%3ab'"},
    {"qosdeny-usage/3 cluster=qd job=1 node=n user=u account=a%41 qos= "
     "partition= restart= job_start=0 start=1 end=3 gpus=1 "
     "gpu_seconds=2\n",
     "usage record: invalid account 'a%41'"},
    {"qosdeny-usage/2 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= start=1 end=2 gpus=1 gpu_seconds=1\n",
     "usage record: expected 'restart=' at byte 73, found 'start=1 end=2 "
     "gpus=1 gpu_seconds=1'"},
    {"qosdeny-usage/2 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= restart=4294967295 job_start=0 start=1 end=2 gpus=1 "
     "gpu_seconds=1\n",
     "usage record: invalid restart '4294967295'"},
    {"hello\nworld\n", "usage record: more than one line, or a NUL byte"},
    {"qosdeny-usage/1 job=42 cluster=qd\n",
     "usage record: expected 'cluster=' at byte 16, found 'job=42 "
     "cluster=qd'"},
    {"qosdeny-usage/1 cluster=qd job=042 node=n user=u account=a qos= "
     "partition= start=1 end=2 gpus=1 gpu_seconds=1\n",
     "usage record: invalid job '042'"},
    {"qosdeny-usage/1 cluster=qd job=-1 node=n\n",
     "usage record: invalid job '-1'"},
    {"qosdeny-usage/1 cluster=qd job=4294967296 node=n\n",
     "usage record: invalid job '4294967296'"},
    {"qosdeny-usage/1 cluster=qd job=0 node=n user=u account=a qos= "
     "partition= start=1 end=2 gpus=1 gpu_seconds=1\n",
     "usage record: job id 0"},
    {"qosdeny-usage/1 cluster=q:d job=1\n",
     "usage record: invalid cluster 'q:d'"},
    {"qosdeny-usage/1 cluster=qd job=1 node=n user=\x1b[2J account=a\n",
     "usage record: invalid user '?[2J'"},
    {"qosdeny-usage/1 cluster=qd job=1 node=n user= account=a\n",
     "usage record: invalid user ''"},
    {"qosdeny-usage/1 cluster=qd job=1  node=n\n",
     "usage record: expected 'node=' at byte 33, found ' node=n'"},
    {"qosdeny-usage/1 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= start=1 end=2 gpus=1\n",
     "usage record: missing fields after 'gpus'"},
    {"qosdeny-usage/1 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= start=1 end=2 gpus=1 gpu_seconds=1 extra=1\n",
     "usage record: unexpected text after the last field ' extra=1'"},
    {"qosdeny-usage/1 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= start=1 end=2 gpus=1 gpu_seconds=1 \n",
     "usage record: unexpected text after the last field ' '"},
    {"qosdeny-usage/1 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= start=1 end=2 gpus=1 gpu_seconds=1\r\n",
     "usage record: invalid gpu_seconds '1?'"},
    {"qosdeny-usage/1 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= start=5 end=2 gpus=1 gpu_seconds=0\n",
     "usage record: end 2 before start 5"},
    {"qosdeny-usage/1 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= start=1 end=3 gpus=2 gpu_seconds=5\n",
     "usage record: gpu_seconds 5 is not gpus * (end - start) = 4"},
    {"qosdeny-usage/1 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= start=1 end=0 gpus=2 gpu_seconds=5\n",
     "usage record: open record (end=0) with gpu_seconds 5"},
    {"qosdeny-usage/1 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= start=0 end=0 gpus=2 gpu_seconds=0\n",
     "usage record: start 0 is not a time"},
    {"qosdeny-usage/1 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= start=9223372036854775808 end=0 gpus=2 gpu_seconds=0\n",
     "usage record: invalid start '9223372036854775808'"},
    {"qosdeny-usage/1 cluster=qd job=1 node=n user=u account=a qos= "
     "partition= start=1 end=2 gpus=1 gpu_seconds=18446744073709551616\n",
     "usage record: invalid gpu_seconds '18446744073709551616'"},
};

Test(usage_record, rejects_garbage)
{
	for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		struct qd_usage_record r;
		char err[QD_RECORD_ERR_MAX] = "";

		cr_expect_eq(decode_str(garbage[i].text, &r, err), -1,
			     "accepted #%zu", i);
		cr_expect_str_eq(err, garbage[i].err, "#%zu: %s", i, err);
		cr_expect_eq(r.job_id, 0, "zeroed on failure #%zu", i);
	}
}

Test(usage_record, rejects_nul_and_long_names)
{
	struct qd_usage_record r;
	char err[QD_RECORD_ERR_MAX] = "";
	char buf[QD_RECORD_MAX + 8];
	int n;

	memcpy(buf, alice_line, sizeof(alice_line));
	buf[20] = '\0';
	cr_expect_eq(qd_usage_record_decode(buf, strlen(alice_line), &r, err,
					    sizeof(err)),
		     -1);
	cr_expect_str_eq(err, "usage record: more than one line, or a NUL "
			      "byte");

	n = snprintf(buf, sizeof(buf), "qosdeny-usage/1 cluster=%064d job=1\n",
		     0);
	cr_expect_eq(qd_usage_record_decode(buf, n, &r, err, sizeof(err)), -1);
	cr_expect(strstr(err, "usage record: invalid cluster '0000"), "%s",
		  err);

	memset(buf, 'x', sizeof(buf));
	buf[sizeof(buf) - 1] = '\n';
	cr_expect_eq(
	    qd_usage_record_decode(buf, sizeof(buf), &r, err, sizeof(err)), -1);
	cr_expect_str_eq(err, "usage record: too long (1032 bytes, at most "
			      "1024)");
}

/* Every truncation of a valid record is refused: a torn write never decodes
 * into a different record. */
Test(usage_record, truncations)
{
	size_t len = strlen(alice_line);

	for (size_t n = 0; n + 1 < len; n++) {
		struct qd_usage_record r;
		char err[QD_RECORD_ERR_MAX];
		char buf[QD_RECORD_MAX];

		memcpy(buf, alice_line, n);
		buf[n] = '\n';
		cr_expect_eq(
		    qd_usage_record_decode(buf, n + 1, &r, err, sizeof(err)),
		    -1, "accepted a prefix of %zu bytes", n);
	}
}

/* Version 2, whole GPUs, is what the previous release spooled: it decodes
 * into thousandths and is written again as version 3. */
Test(usage_record, version_2_still_decodes)
{
	static const char v2[] =
	    "qosdeny-usage/2 cluster=qd job=42 node=node-1 user=alice "
	    "account=research qos=interactive partition=gpu restart=1 "
	    "job_start=1699999990 start=1700000000 end=1700003600 gpus=2 "
	    "gpu_seconds=7200\n";
	struct qd_usage_record back, want = alice();
	char buf[QD_RECORD_MAX], err[QD_RECORD_ERR_MAX] = "";

	cr_assert_eq(decode_str(v2, &back, err), 0, "%s", err);
	cr_expect_eq(memcmp(&back, &want, sizeof(back)), 0);
	cr_expect_eq(back.mgpus, 2000);
	cr_expect_eq(back.mgpu_seconds, 7200000);
	cr_assert_gt(
	    qd_usage_record_encode(&back, buf, sizeof(buf), err, sizeof(err)),
	    0);
	cr_expect_str_eq(buf, alice_line);
}

/* Part of a GPU (a shard's share): to a thousandth, one text per value. */
Test(usage_record, fractions_of_a_gpu)
{
	static const struct {
		uint32_t mgpus;
		int64_t secs;
		const char *text;
	} cases[] = {
	    {500, 8, "gpus=0.5 gpu_seconds=4\n"},
	    {250, 3, "gpus=0.25 gpu_seconds=0.75\n"},
	    {125, 1, "gpus=0.125 gpu_seconds=0.125\n"},
	    {1001, 10, "gpus=1.001 gpu_seconds=10.01\n"},
	    {1, 1, "gpus=0.001 gpu_seconds=0.001\n"},
	    {3000, 0, "gpus=3 gpu_seconds=0\n"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct qd_usage_record r = alice(), back;
		char buf[QD_RECORD_MAX], err[QD_RECORD_ERR_MAX] = "";
		int n;

		r.end = 0;
		r.mgpu_seconds = 0;
		r.mgpus = cases[i].mgpus;
		cr_assert_eq(qd_usage_record_close(&r, r.start + cases[i].secs),
			     0);
		n = qd_usage_record_encode(&r, buf, sizeof(buf), err,
					   sizeof(err));
		cr_assert_gt(n, 0, "%s", err);
		cr_expect(strstr(buf, cases[i].text), "#%zu: %s", i, buf);
		cr_assert_eq(decode_str(buf, &back, err), 0, "#%zu: %s", i,
			     err);
		cr_expect_eq(memcmp(&r, &back, sizeof(r)), 0, "#%zu", i);
	}
}

/* A name Slurm gives that a key could not hold as it is (an account typed
 * "a:b" where slurmctld keeps what is typed) is kept, escaped, and read
 * back as the same stored name: never dropped, never another name. */
Test(usage_record, escaped_names)
{
	struct qd_usage_record r = alice(), back;
	char buf[QD_RECORD_MAX], err[QD_RECORD_ERR_MAX] = "";
	int n;

	cr_assert_eq(qd_name_store("other lab:x/y", r.account), 0);
	cr_expect_str_eq(r.account, "other%20lab%3Ax%2Fy");
	n = qd_usage_record_encode(&r, buf, sizeof(buf), err, sizeof(err));
	cr_assert_gt(n, 0, "%s", err);
	cr_expect(strstr(buf, " account=other%20lab%3Ax%2Fy qos="), "%s", buf);
	cr_assert_eq(decode_str(buf, &back, err), 0, "%s", err);
	cr_expect_str_eq(back.account, "other%20lab%3Ax%2Fy");
}

Test(usage_record, name_store)
{
	char out[QD_NAME_MAX], longest[QD_NAME_MAX], over[QD_NAME_MAX + 1];

	cr_assert_eq(qd_name_store("research", out), 0);
	cr_expect_str_eq(out, "research", "a plain name is itself");
	cr_assert_eq(qd_name_store("caf\xc3\xa9 %", out), 0);
	cr_expect_str_eq(out, "caf%C3%A9%20%25");
	cr_expect(qd_usage_name_ok(out));
	cr_assert_eq(qd_name_store("x JobState=COMPLETED", out), 0);
	cr_expect_str_eq(out, "x%20JobState%3DCOMPLETED");
	cr_expect_eq(qd_name_store("", out), -1);
	memset(longest, 'x', sizeof(longest) - 1);
	longest[sizeof(longest) - 1] = '\0';
	cr_expect_eq(qd_name_store(longest, out), 0);
	cr_expect_str_eq(out, longest);
	memset(over, 'x', sizeof(over) - 1);
	over[sizeof(over) - 1] = '\0';
	cr_assert_eq(qd_name_store(over, out), 0, "64 characters");
	/* echo -n x...x (64) | sha1sum */
	cr_expect_str_eq(out, "~bb2fa3ee7afb9f54c6dfb5d021f14b1ffe40c163");
	cr_expect(qd_usage_name_ok(out));
	/* 61 characters and one escape: 64 stored, so hashed. */
	memset(longest, 'x', sizeof(longest) - 1);
	longest[61] = ':';
	longest[62] = '\0';
	cr_assert_eq(qd_name_store(longest, out), 0);
	cr_expect_eq(out[0], '~');
	cr_expect_eq(strlen(out), 41);
	longest[60] = ':';
	longest[61] = '\0';
	cr_expect_eq(qd_name_store(longest, out), 0);
	cr_expect_eq(strlen(out), 63);
	cr_expect_neq(out[0], '~');
	/* A name's own '~' is escaped: no escaped form looks hashed. */
	cr_assert_eq(
	    qd_name_store("~bb2fa3ee7afb9f54c6dfb5d021f14b1ffe40c163", out), 0);
	cr_expect_str_eq(out, "%7Ebb2fa3ee7afb9f54c6dfb5d021f14b1ffe40c163");
}

/* The hashed form: "~" and 40 lowercase hex digits, nothing else. */
Test(usage_record, hashed_names)
{
	char out[QD_NAME_MAX], name[300];

	cr_expect(
	    qd_usage_name_ok("~da39a3ee5e6b4b0d3255bfef95601890afd80709"));
	cr_expect_not(
	    qd_usage_name_ok("~DA39A3EE5E6B4B0D3255BFEF95601890AFD80709"),
	    "upper-case hex");
	cr_expect_not(
	    qd_usage_name_ok("~da39a3ee5e6b4b0d3255bfef95601890afd8070"),
	    "39 digits");
	cr_expect_not(
	    qd_usage_name_ok("~da39a3ee5e6b4b0d3255bfef95601890afd807090"),
	    "41 digits");
	cr_expect_not(
	    qd_usage_name_ok("~da39a3ee5e6b4b0d3255bfef95601890afd8070g"));
	cr_expect_not(qd_usage_name_ok("~"));
	/* 100 colons, 300 stored: one name, one hash, and another name
	 * another. */
	memset(name, ':', 100);
	name[100] = '\0';
	cr_assert_eq(qd_name_store(name, out), 0);
	/* printf ':%.0s' $(seq 100) | sha1sum */
	cr_expect_str_eq(out, "~0540285b3543afd8b4e40f195a59535d015289f1");
	name[99] = ';';
	cr_assert_eq(qd_name_store(name, out), 0);
	cr_expect_str_neq(out, "~0540285b3543afd8b4e40f195a59535d015289f1");
}

/* qd_name_shown and back: any length, and only what it writes. */
Test(usage_record, name_shown_and_unescaped)
{
	char *shown = qd_name_shown("caf\xc3\xa9 %:x"), out[16];

	cr_assert_not_null(shown);
	cr_expect_str_eq(shown, "caf%C3%A9%20%25%3Ax");
	cr_assert_eq(qd_name_unescape(shown, out, sizeof(out)), 0);
	cr_expect_str_eq(out, "caf\xc3\xa9 %:x");
	cr_expect_eq(qd_name_unescape(shown, out, 9), -1, "does not fit");
	free(shown);
	cr_expect_eq(qd_name_unescape("", out, sizeof(out)), -1);
	cr_expect_eq(qd_name_unescape("a b", out, sizeof(out)), -1);
	cr_expect_eq(qd_name_unescape("a%00", out, sizeof(out)), -1);
	cr_expect_eq(qd_name_unescape("a%3", out, sizeof(out)), -1);
	cr_expect_eq(qd_name_unescape("a%", out, sizeof(out)), -1);
	cr_expect_eq(qd_name_unescape("a%g0", out, sizeof(out)), -1);
}

/* Only qd_name_store's own escapes: one stored form per name. */
Test(usage_record, stored_names_are_canonical)
{
	cr_expect(qd_usage_name_ok("a%3Ab"));
	cr_expect(qd_usage_name_ok("%25"));
	cr_expect_not(qd_usage_name_ok("a%3ab"), "lower-case hex");
	cr_expect_not(qd_usage_name_ok("a%41"), "'A' needs no escape");
	cr_expect_not(qd_usage_name_ok("a%2"), "cut short");
	cr_expect_not(qd_usage_name_ok("a%"), "cut short");
	cr_expect_not(qd_usage_name_ok("a%00"), "NUL");
	cr_expect_not(qd_usage_name_ok("a%G0"));
}
