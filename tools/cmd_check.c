/*
 * qosdeny check FILE: validates a qosdeny.conf before it goes live.
 */
#include <stdio.h>

#include "policy.h"
#include "tool.h"

int qd_cmd_check(int argc, char **argv)
{
	char err[QD_ERR_MAX];
	struct qd_policy *p;

	if (argc < 2)
		return qd_usage_error("check: missing FILE");
	if (argv[1][0] == '-')
		return qd_usage_error("check: unknown option '%s'", argv[1]);
	if (argc > 2)
		return qd_usage_error("check: unexpected argument '%s'",
				      argv[2]);
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
