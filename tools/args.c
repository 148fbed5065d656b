/* SPDX-License-Identifier: GPL-2.0-or-later
 * The commands' argument helpers (args.h), apart from main.c so that the
 * commands depend on them and main.c on the commands, never in a loop.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "args.h"

int qd_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("qosdeny: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'qosdeny --help' for more information.\n", stderr);
	return EXIT_USAGE;
}

int qd_bad_argument(const char *command, const char *arg)
{
	return qd_usage_error(
	    "%s: %s '%s'", command,
	    arg[0] == '-' ? "unknown option" : "unexpected argument", arg);
}

const char *qd_option_value(int argc, char **argv, int *i, const char *name,
			    bool *missing)
{
	const char *arg = argv[*i];
	size_t len = strlen(name);

	*missing = false;
	if (strncmp(arg, name, len))
		return NULL;
	if (arg[len] == '=')
		return arg + len + 1;
	if (arg[len])
		return NULL;
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	return argv[++*i];
}
