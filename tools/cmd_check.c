/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny check FILE: validates a qosdeny.conf before it goes live, listing
 * every bad record, not only the first, so one run finds them all.
 */
#include <stdio.h>
#include <stdlib.h>

#include "args.h"
#include "commands.h"
#include "policy.h"

static void print_error(const char *err, void *arg)
{
	(void)arg;
	fprintf(stderr, "qosdeny: %s\n", err);
}

int qd_cmd_check(int argc, char **argv)
{
	char err[QD_ERR_MAX];
	struct qd_policy *p = NULL;
	char *text;
	int rv = 1;

	if (argc < 2)
		return qd_usage_error("check: missing FILE");
	if (argv[1][0] == '-')
		return qd_usage_error("check: unknown option '%s'", argv[1]);
	if (argc > 2)
		return qd_usage_error("check: unexpected argument '%s'",
				      argv[2]);
	text = qd_policy_read(argv[1], err, sizeof(err));
	if (!text) {
		print_error(err, NULL);
		goto fail;
	}
	if (qd_policy_check(argv[1], text, print_error, NULL))
		goto fail;
	p = qd_policy_parse(argv[1], text, err, sizeof(err));
	if (!p) {
		print_error(err, NULL);
		goto fail;
	}
	printf("qosdeny: %s: OK, %zu QOS record%s\n", argv[1], p->n_rules,
	       p->n_rules == 1 ? "" : "s");
	rv = 0;
fail:
	qd_policy_free(p);
	free(text);
	return rv;
}
