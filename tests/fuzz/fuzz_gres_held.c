/* SPDX-License-Identifier: GPL-2.0-or-later
 * qd_gres_held and qd_node_gres_parse (shared/usage/gres_held.h): the
 * input is a node's Gres= up to its first newline, then slurmctld's GRES
 * detail for a job there, up to the first NUL. Beside not crashing: what a
 * detail holds without the node's counts it holds with them too (they
 * only give a share its N where the detail has none), and whole GPUs
 * alone are whole thousands.
 */
#include "fuzz_util.h"
#include "gres_held.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = fuzz_strndup(data, size), *nl = strchr(in, '\n'), err[256];
	const char *detail = nl ? nl + 1 : in;
	struct qd_node_gres node;
	uint64_t alone, with;
	int shared, shared_with;

	if (nl)
		*nl = '\0';
	if (!nl || qd_node_gres_parse(in, &node, err, sizeof(err)))
		memset(&node, 0, sizeof(node));
	if (!qd_gres_held(detail, NULL, &alone, &shared, err, sizeof(err))) {
		FUZZ_ASSERT(!qd_gres_held(detail, &node, &with, &shared_with,
					  err, sizeof(err)),
			    "refused with the node's counts: %s", err);
		FUZZ_ASSERT(with == alone && shared == shared_with,
			    "%llu alone, %llu with the node's counts",
			    (unsigned long long)alone,
			    (unsigned long long)with);
		FUZZ_ASSERT(shared || alone % 1000 == 0,
			    "%llu thousandths of whole GPUs",
			    (unsigned long long)alone);
	}
	free(in);
	return 0;
}
