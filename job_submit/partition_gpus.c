/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "slurm_compat.h"

#include "partition_gpus.h"
#include "slurm_fields.h"

struct walk {
	struct qd_tres *reach;
	struct qd_tres sum; /* one partition's */
	bool complete;
};

static int add_node_gpus(void *x, void *arg)
{
	const gres_state_t *gs = x;
	const gres_node_state_t *ns = gs->gres_data;
	struct walk *w = arg;

	if (!gs->gres_name || strcmp(gs->gres_name, "gpu") || !ns)
		return 0;
	for (uint16_t t = 0; t < ns->type_cnt; t++)
		if (ns->type_name[t] &&
		    qd_tres_add_typed(&w->sum, ns->type_name[t],
				      ns->type_cnt_avail[t]))
			w->complete = false;
	return 0;
}

static bool add_partition(part_record_t *part, void *arg)
{
	struct walk *w = arg;
	int first, last;

	qd_tres_init(&w->sum);
	if (!part || !part->node_bitmap ||
	    (first = bit_ffs(part->node_bitmap)) < 0)
		return true;
	last = bit_fls(part->node_bitmap);
	for (int i = first; i <= last && i < node_record_count; i++) {
		const node_record_t *node = node_record_table_ptr[i];

		if (node && node->gres_list && bit_test(part->node_bitmap, i))
			list_for_each_ro(node->gres_list, add_node_gpus, w);
	}
	/* the job runs in one of its partitions: the largest count of each
	 * type is what it could be given */
	for (size_t i = 0; i < w->sum.ntyped; i++) {
		const struct qd_tres_typed *t = &w->sum.typed[i];

		if (t->value > qd_tres_get_typed(w->reach, t->type, 0) &&
		    qd_tres_set_typed(w->reach, t->type, t->value))
			w->complete = false;
	}
	return true;
}

bool qd_partition_gpus(const char *list, struct qd_tres *reach)
{
	struct walk w = {.reach = reach, .complete = true};

	qd_tres_init(reach);
	qd_each_partition(list, add_partition, &w);
	return w.complete;
}
