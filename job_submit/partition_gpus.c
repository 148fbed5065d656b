#include <string.h>

#include "src/common/slurm_xlator.h" /* calls by exported names */
#include "src/common/gres.h"
#include "src/slurmctld/slurmctld.h"

#include "partition_gpus.h"

static int add_node_gpus(void *x, void *arg)
{
	const gres_state_t *gs = x;
	const gres_node_state_t *ns = gs->gres_data;
	struct qd_tres *sum = arg;

	if (!gs->gres_name || strcmp(gs->gres_name, "gpu") || !ns)
		return 0;
	for (uint16_t t = 0; t < ns->type_cnt; t++)
		if (ns->type_name[t])
			/* more than QD_TYPES_MAX types, or a name longer
			 * than any qosdeny.conf can cap: nothing to widen */
			(void)qd_tres_add_typed(sum, ns->type_name[t],
						ns->type_cnt_avail[t]);
	return 0;
}

static void partition_sum(const part_record_t *part, struct qd_tres *sum)
{
	qd_tres_init(sum);
	if (!part->node_bitmap)
		return;
	for (int i = 0; i < node_record_count; i++) {
		const node_record_t *node = node_record_table_ptr[i];

		if (node && node->gres_list && bit_test(part->node_bitmap, i))
			list_for_each_ro(node->gres_list, add_node_gpus, sum);
	}
}

static void keep_largest(struct qd_tres *reach, const struct qd_tres *part)
{
	for (size_t i = 0; i < part->ntyped; i++) {
		const struct qd_tres_typed *t = &part->typed[i];

		if (t->value > qd_tres_get_typed(reach, t->type, 0))
			(void)qd_tres_set_typed(reach, t->type, t->value);
	}
}

void qd_partition_gpus(const char *list, struct qd_tres *reach)
{
	char names[1024], *save = NULL;
	struct qd_tres sum;

	qd_tres_init(reach);
	if (!list) {
		if (default_part_loc)
			partition_sum(default_part_loc, reach);
		return;
	}
	snprintf(names, sizeof(names), "%s", list);
	for (char *n = strtok_r(names, ",", &save); n;
	     n = strtok_r(NULL, ",", &save)) {
		const part_record_t *part = find_part_record(n);

		if (!part)
			continue;
		partition_sum(part, &sum);
		keep_largest(reach, &sum);
	}
}
