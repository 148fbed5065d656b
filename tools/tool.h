/*
 * The qosdeny command's parts: one file per command, main.c dispatches.
 *
 * Exit status: 0 success, 1 an error in what was asked (an invalid or
 * unreadable file, Redis unreachable, records left unsent), 2 a usage error.
 */
#ifndef QD_TOOL_H
#define QD_TOOL_H

#include "fairshare.h"
#include "site.h"

#define EXIT_USAGE 2

/* "qosdeny: MESSAGE" and a hint at --help on stderr; returns EXIT_USAGE. */
int qd_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* qd_usage_error for an argument COMMAND does not take: "COMMAND: unknown
 * option 'ARG'" for an option, else "COMMAND: unexpected argument 'ARG'". */
int qd_bad_argument(const char *command, const char *arg);

/*
 * The value of option NAME at argv[*i], given as "NAME VALUE" or
 * "NAME=VALUE"; advances *i past it. NULL when argv[*i] is not NAME; sets
 * *missing when NAME has no value.
 */
const char *qd_option_value(int argc, char **argv, int *i, const char *name,
			    bool *missing);

int qd_cmd_check(int argc, char **argv);
int qd_cmd_share(int argc, char **argv);
int qd_cmd_flush(int argc, char **argv);
int qd_cmd_limits(int argc, char **argv);
int qd_cmd_doctor(int argc, char **argv);

/*
 * Fills t with the associations of cluster below root, from slurmdbd
 * through libslurm's slurmdb API (the FairShare of each is its RawShares).
 * Returns 0, or -1 when slurmdbd cannot be asked (no slurm.conf, accounting
 * off, slurmdbd down): then the shares come from qosdeny.conf.
 */
int qd_shares_from_slurmdb(const struct qd_site *s, const char *cluster,
			   struct qd_fs_table *t);

/* Fills t with qosdeny.conf's Account= and User= records (p may be NULL).
 * Returns 0, or -1 when out of memory. */
int qd_shares_from_policy(const struct qd_policy *p, struct qd_fs_table *t);

#endif
