/*
 * qosdeny: the administrator's tool (contract section 8).
 *
 * Exit status: 0 success, 1 an error in what was asked (an invalid or
 * unreadable file), 2 a usage error or a command this version lacks.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"

#define EXIT_USAGE 2

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
    "  check FILE     parse a qosdeny.conf and report the first error with "
    "its\n"
    "                 line number\n"
    "\n"
    "Options:\n"
    "  -h, --help     print this help and exit\n"
    "  -V, --version  print the version and exit\n"
    "\n"
    "share and flush take the Redis address and password from the\n"
    "spank_qosdeny.so line in plugstack.conf next to slurm.conf (SLURM_CONF),\n"
    "unless --redis is given.\n"
    "\n"
    "Exit status: 0 success, 1 error (such as an invalid file), 2 usage "
    "error\n"
    "or a command this version does not provide.\n";

static int usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("qosdeny: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'qosdeny --help' for more information.\n", stderr);
	return EXIT_USAGE;
}

static int cmd_check(int argc, char **argv)
{
	char err[QD_ERR_MAX];
	struct qd_policy *p;

	if (argc < 2)
		return usage_error("check: missing FILE");
	if (argv[1][0] == '-')
		return usage_error("check: unknown option '%s'", argv[1]);
	if (argc > 2)
		return usage_error("check: unexpected argument '%s'", argv[2]);
	p = qd_policy_load(argv[1], err, sizeof(err));
	if (!p) {
		fprintf(stderr, "qosdeny: %s\n", err);
		return 1;
	}
	printf("qosdeny: %s: OK, %zu QOS record%s\n", argv[1], p->n_rules,
	       p->n_rules == 1 ? "" : "s");
	qd_policy_free(p);
	return 0;
}

static int not_implemented(const char *cmd)
{
	fprintf(stderr, "qosdeny: %s: not implemented in this version\n", cmd);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd)
		return usage_error("missing command");
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		puts("qosdeny " QD_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(cmd, "share") || !strcmp(cmd, "flush"))
		return not_implemented(cmd);
	if (cmd[0] == '-')
		return usage_error("unknown option '%s'", cmd);
	return usage_error("unknown command '%s'", cmd);
}
