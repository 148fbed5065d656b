/* SPDX-License-Identifier: GPL-2.0-or-later
 * One GPU usage record: one job on one node (docs/gpu-and-usage.md, "Usage
 * reporting"), as the SPANK plugin spools it and the Redis script applies it.
 *
 * Text encoding, one line, fields in this order, single blanks between:
 *
 *   qosdeny-usage/3 cluster=C job=J node=N user=U account=A qos=Q
 *       partition=P restart=R job_start=T start=S end=E gpus=G
 *       gpu_seconds=GS\n
 *
 * restart and job_start say which run of the job the record belongs to
 * (a requeued job keeps its id): R is SLURM_JOB_RESTART_COUNT, empty when
 * unknown; T is SLURM_JOB_START_TIME, which slurmd gives from 24.11 on, 0
 * when unknown. G and GS are in GPUs, to a thousandth (a job holding part
 * of a GPU): "2", "0.5", "1.25", "0.125"; at most three digits after the
 * point, none of them a trailing zero.
 *
 * Earlier releases' records still decode: version 2 (whole GPUs, names
 * without escapes) and version 1 (also without restart and job_start, the
 * run unknown).
 *
 * Names are stored names (names.h: 1 to 63 characters of [A-Za-z0-9._@+$-]
 * and %XX escapes of other bytes; account, qos and partition may be empty:
 * a job without an account, where Slurm has no accounting, is reported
 * under its user alone), so they can stand in Redis keys and file names
 * between ':' and '/' separators. Other numbers are decimal without sign or
 * leading zeros. A record is "open" (end=0, gpu_seconds=0) from the job's
 * start on the node until it is closed at its end; a closed one has end >=
 * start and gpu_seconds = gpus * (end - start). Spool files and Redis values
 * are untrusted input: the decoder accepts nothing else.
 */
#ifndef QD_USAGE_RECORD_H
#define QD_USAGE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "names.h"
#include "policy.h"

#define QD_RECORD_MAX	  1024 /* longest encoding, newline included */
#define QD_RECORD_ID_MAX  (4 * QD_NAME_MAX)
#define QD_RECORD_ERR_MAX 256

struct qd_usage_record {
	char cluster[QD_NAME_MAX];
	uint32_t job_id; /* the job's own id: array task and het component
			    ids already resolved by the producer */
	char node[QD_NAME_MAX];
	char user[QD_NAME_MAX];
	char account[QD_NAME_MAX];   /* may be "" */
	char qos[QD_NAME_MAX];	     /* may be "" */
	char partition[QD_NAME_MAX]; /* may be "" */
	int64_t start;		     /* Unix time the allocation began here */
	int64_t end;		     /* Unix time it ended; 0 while open */
	uint32_t mgpus;		     /* GPUs allocated on this node, in
					thousandths */
	uint64_t mgpu_seconds;	     /* mgpus * (end - start): thousandths of
					GPU-seconds; 0 while open */
	uint32_t restart;	     /* the run: SLURM_JOB_RESTART_COUNT, or
					QD_RESTART_UNKNOWN */
	int64_t job_start; /* the run's start by slurmctld; 0: unknown */
};

#define QD_RESTART_UNKNOWN UINT32_MAX

/*
 * Whether a and b can be the same run of the same job on the same node:
 * same cluster, job id and node, and no known restart count or job start
 * time that differs (one that is unknown on either side matches).
 */
bool qd_usage_record_same_run(const struct qd_usage_record *a,
			      const struct qd_usage_record *b);

/* Thousandths as a record writes them ("2", "0.5"). Returns buf. */
const char *qd_milli_text(uint64_t milli, char *buf, size_t len);

/* The len bytes at s as qd_milli_text writes them, at most max: 0, or -1
 * when they are not that text. */
int qd_milli_parse(const char *s, size_t len, uint64_t max, uint64_t *out);

/*
 * Closes an open record at end: sets end and gpu_seconds. An end before the
 * start (clock stepped back) counts as 0 seconds. Returns 0, or -1 when the
 * record is already closed or the product overflows.
 */
int qd_usage_record_close(struct qd_usage_record *r, int64_t end);

bool qd_usage_record_is_open(const struct qd_usage_record *r);

/* Checks every field as the decoder would. Returns 0, or -1 with err. */
int qd_usage_record_check(const struct qd_usage_record *r, char *err,
			  size_t errlen);

/*
 * Encodes a record that passes qd_usage_record_check into buf (NUL
 * terminated). Returns the length, newline included, or -1 with err.
 */
int qd_usage_record_encode(const struct qd_usage_record *r, char *buf,
			   size_t len, char *err, size_t errlen);

/*
 * The record's text without its newline, for a log line an administrator
 * can rebuild a lost record from; "(why not)" when it does not encode.
 * Returns buf.
 */
const char *qd_usage_record_text(const struct qd_usage_record *r, char *buf,
				 size_t len);

/*
 * Decodes exactly one encoded record: len bytes, the last one the only
 * newline. Returns 0, or -1 with err: "usage record: <what>" naming the
 * field and, sanitised, the offending text. r is zeroed on failure.
 */
int qd_usage_record_decode(const char *buf, size_t len,
			   struct qd_usage_record *r, char *err, size_t errlen);

/*
 * The record's identity, "CLUSTER/JOB/NODE/START": what makes a record
 * count once. The start time is part of it so that a requeued job, which
 * keeps its job id, counts again for its new run on the same node, and a
 * job id that Slurm reuses after wrapping is a new record. An open record
 * and its closed form share the id, so the producer must close the record
 * it opened (read back from the spool) rather than build a new one.
 * Returns the length, or -1 when len is too small.
 */
int qd_usage_record_id(const struct qd_usage_record *r, char *buf, size_t len);

#endif
