/* SPDX-License-Identifier: GPL-2.0-or-later
 * The qosdeny command's subcommands, one cmd_*.c each, which main.c
 * dispatches to with the subcommand's own argv (argv[0] its name).
 *
 * Exit status: 0 success, 1 an error in what was asked (an invalid or
 * unreadable file, Redis unreachable, records left unsent), 2 a usage error
 * (EXIT_USAGE, args.h).
 */
#ifndef QD_COMMANDS_H
#define QD_COMMANDS_H

int qd_cmd_check(int argc, char **argv);
int qd_cmd_share(int argc, char **argv);
int qd_cmd_flush(int argc, char **argv);
int qd_cmd_limits(int argc, char **argv);
int qd_cmd_doctor(int argc, char **argv);
int qd_cmd_metrics(int argc, char **argv);
int qd_cmd_held(int argc, char **argv);

#endif
