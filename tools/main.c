/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny: the administrator's tool (qosdeny(1)). main.c only dispatches:
 * each command is in its own cmd_*.c (commands.h, where the exit statuses
 * are described), the argument helpers in args.c.
 */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"

static const char usage[] =
    "Usage: qosdeny COMMAND [ARGS]\n"
    "\n"
    "Commands:\n"
    "  share [-P] [--cluster NAME] [--redis HOST:PORT|unix:PATH]\n"
    "                 print GPU fair share in sshare's layout\n"
    "                 (-P: '|'-separated, header first)\n"
    "  flush [--spool DIR]\n"
    "                 send this node's spooled GPU usage records to Redis "
    "now\n"
    "  check FILE     parse a qosdeny.conf and report every error with its\n"
    "                 line number\n"
    "  limits [-P] [--user NAME] [--qos NAME[,NAME...]]\n"
    "                 every cap qosdeny enforces, what is in use against it\n"
    "                 and what a job may ask for now (-P: '|'-separated)\n"
    "  doctor [--node[=NAME] | --controller] [-P]\n"
    "                 check this node's or the controller's set-up, one\n"
    "                 line per check: ok, warn or FAIL and the fix (root)\n"
    "  metrics        print the metrics this host's daemons last wrote for\n"
    "                 Prometheus (metrics_dir in qosdeny.conf)\n"
    "  held JOBID NODE\n"
    "                 the GPUs a running job holds on a node, as its usage\n"
    "                 record charges them (a share of a GPU as S/N)\n"
    "\n"
    "Options:\n"
    "  -h, --help     print this help and exit\n"
    "  -V, --version  print the version and exit\n"
    "\n"
    "share and flush take the Redis address and password from the\n"
    "spank_qosdeny.so line in plugstack.conf next to slurm.conf (SLURM_CONF),\n"
    "unless --redis is given: HOST:PORT, unix:PATH or\n"
    "sentinel:HOST:PORT[,HOST:PORT...]/NAME.\n"
    "\n"
    "Exit status: 0 success, 1 error (such as an invalid file, Redis not\n"
    "reachable, records left unsent), 2 usage error.\n";

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd)
		return qd_usage_error("missing command");
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		puts("qosdeny " QD_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "check"))
		return qd_cmd_check(argc - 1, argv + 1);
	if (!strcmp(cmd, "share"))
		return qd_cmd_share(argc - 1, argv + 1);
	if (!strcmp(cmd, "flush"))
		return qd_cmd_flush(argc - 1, argv + 1);
	if (!strcmp(cmd, "limits"))
		return qd_cmd_limits(argc - 1, argv + 1);
	if (!strcmp(cmd, "doctor"))
		return qd_cmd_doctor(argc - 1, argv + 1);
	if (!strcmp(cmd, "metrics"))
		return qd_cmd_metrics(argc - 1, argv + 1);
	if (!strcmp(cmd, "held"))
		return qd_cmd_held(argc - 1, argv + 1);
	if (cmd[0] == '-')
		return qd_usage_error("unknown option '%s'", cmd);
	return qd_usage_error("unknown command '%s'", cmd);
}
