/* SPDX-License-Identifier: GPL-2.0-or-later
 * The commands' argument helpers: options read the same way and usage
 * errors worded the same way by every command (qosdeny(1)). main.c and each
 * cmd_*.c call them; they call nothing of the tool's.
 */
#ifndef QD_ARGS_H
#define QD_ARGS_H

#include <stdbool.h>

/* The exit status of a usage error (qosdeny(1), EXIT STATUS). */
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

#endif
