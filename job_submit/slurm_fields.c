/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <string.h>

#include "slurm_fields.h"

#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

static uint32_t u32(uint32_t v)
{
	return v == NO_VAL || v == INFINITE ? 0 : v;
}

static uint32_t u16(uint16_t v)
{
	return v == NO_VAL16 || v == INFINITE16 ? 0 : v;
}

/* pn_min_memory holds either MiB per node or, flagged, MiB per CPU. */
static void set_mem(struct qd_job_request *req, uint64_t pn_min_memory)
{
	req->mem_set = pn_min_memory != NO_VAL64 && pn_min_memory != INFINITE64;
	req->mem_per_cpu = req->mem_set && (pn_min_memory & MEM_PER_CPU);
	req->mem_mb = req->mem_set ? pn_min_memory & ~MEM_PER_CPU : 0;
}

void qd_request_from_desc(const job_desc_msg_t *desc,
			  struct qd_job_request *req)
{
	*req = (struct qd_job_request){
	    .slurm_release = QD_THIS_SLURM_RELEASE,
	    .min_nodes = u32(desc->min_nodes),
	    .max_nodes = u32(desc->max_nodes),
	    .num_tasks = u32(desc->num_tasks),
	    .min_cpus = u32(desc->min_cpus),
	    .cpus_per_task = u16(desc->cpus_per_task),
	    .pn_min_cpus = u16(desc->pn_min_cpus),
	    .ntasks_per_node = u16(desc->ntasks_per_node),
	    .sockets_per_node = u16(desc->sockets_per_node),
	    .ntasks_per_socket = u16(desc->ntasks_per_socket),
	    .ntasks_per_tres = u16(desc->ntasks_per_tres),
	    .overcommit = desc->overcommit != NO_VAL8,
	    .tres_per_job = desc->tres_per_job,
	    .tres_per_node = desc->tres_per_node,
	    .tres_per_socket = desc->tres_per_socket,
	    .tres_per_task = desc->tres_per_task,
	    .mem_per_tres = desc->mem_per_tres,
	    .cpus_per_tres = desc->cpus_per_tres,
	};
	set_mem(req, desc->pn_min_memory);
}

part_record_t *qd_first_partition(const char *list)
{
	char *first;
	part_record_t *part;

	if (!list)
		return default_part_loc;
	first = xstrndup(list, strcspn(list, ","));
	part = find_part_record(first);
	xfree(first);
	return part;
}

bool qd_each_partition(const char *list, qd_partition_fn fn, void *arg)
{
	char *names, *save = NULL;
	part_record_t **seen;
	size_t n_seen = 0, most = 1;
	bool whole = true;

	if (!list)
		return fn(default_part_loc, arg);
	for (const char *c = list; *c; c++)
		most += *c == ',';
	names = xstrdup(list);
	seen = xcalloc(most, sizeof(*seen));
	for (char *n = strtok_r(names, ",", &save); n && whole;
	     n = strtok_r(NULL, ",", &save)) {
		part_record_t *p = find_part_record(n);
		bool again = false;

		for (size_t i = 0; i < n_seen && p && !again; i++)
			again = seen[i] == p;
		if (again)
			continue;
		if (p)
			seen[n_seen++] = p;
		whole = fn(p, arg);
	}
	xfree(seen);
	xfree(names);
	return whole;
}

/* What --mem=0 means in this partition: its first node's memory, as
 * job_mgr.c's _mem_per_node_part() takes it. Needs the node read lock. */
static uint64_t first_node_mem(const part_record_t *part)
{
	int i = part->node_bitmap ? bit_ffs(part->node_bitmap) : -1;
	const node_record_t *node = i >= 0 ? node_record_table_ptr[i] : NULL;

	if (!node || !node->config_ptr)
		return 0;
	return node->config_ptr->real_memory - node->mem_spec_limit;
}

static int is_mem_per_gpu(void *x, void *key)
{
	(void)key;
	return ((job_defaults_t *)x)->type == JOB_DEF_MEM_PER_GPU;
}

/* DefMemPerGPU of the partition, else of slurm.conf; 0 when neither. */
static uint64_t def_mem_per_gpu(const part_record_t *part)
{
	job_defaults_t *d = NULL;

	if (part && part->job_defaults_list)
		d = list_find_first(part->job_defaults_list, is_mem_per_gpu,
				    NULL);
	if (!d && slurm_conf.job_defaults_list)
		d = list_find_first(slurm_conf.job_defaults_list,
				    is_mem_per_gpu, NULL);
	return d && d->value != NO_VAL64 ? d->value : 0;
}

void qd_request_partition_defaults(struct qd_job_request *req,
				   const char *partition)
{
	const part_record_t *part = qd_first_partition(partition);
	uint64_t def = slurm_conf.def_mem_per_cpu;

	if (part && part->def_mem_per_cpu && part->def_mem_per_cpu != NO_VAL64)
		def = part->def_mem_per_cpu;
	if (def && def != NO_VAL64) {
		req->def_mem_per_cpu = def & MEM_PER_CPU;
		req->def_mem_mb = def & ~MEM_PER_CPU;
	}
	if (part) {
		req->part_min_nodes = u32(part->min_nodes);
		req->node_mem_mb = first_node_mem(part);
	}
	req->def_mem_per_gpu = def_mem_per_gpu(part);
}

#if QD_JOB_QOS_LIST
static int add_qos(void *x, void *arg)
{
	slurmdb_qos_rec_t ***next = arg;

	*(*next)++ = x;
	return 0;
}
#endif

size_t qd_job_cur_qos(const job_record_t *job, slurmdb_qos_rec_t ***qos)
{
	slurmdb_qos_rec_t **next;

#if QD_JOB_QOS_LIST
	if (job->qos_list && list_count(job->qos_list) > 0) {
		*qos = next = xcalloc(list_count(job->qos_list), sizeof(**qos));
		list_for_each_ro(job->qos_list, add_qos, &next);
		return (size_t)(next - *qos);
	}
#endif
	*qos = next = xcalloc(1, sizeof(**qos));
	if (job->qos_ptr)
		*next++ = job->qos_ptr;
	return (size_t)(next - *qos);
}

#define PICK32(upd, cur)  ((upd) != NO_VAL ? (upd) : (cur))
#define PICK16(upd, cur)  ((upd) != NO_VAL16 ? (upd) : (cur))
#define PICKSTR(upd, cur) ((upd) ? (upd) : (cur))

bool qd_request_from_update(const job_desc_msg_t *upd, const job_record_t *job,
			    struct qd_job_request *req)
{
	const qd_job_details_t *d = job->details;
	uint16_t cur_sockets =
	    d->mc_ptr ? d->mc_ptr->sockets_per_node : NO_VAL16;
	uint16_t cur_per_socket =
	    d->mc_ptr ? d->mc_ptr->ntasks_per_socket : NO_VAL16;
	bool size_change =
	    upd->min_nodes != NO_VAL || upd->max_nodes != NO_VAL ||
	    upd->num_tasks != NO_VAL || upd->min_cpus != NO_VAL ||
	    upd->cpus_per_task != NO_VAL16 || upd->pn_min_cpus != NO_VAL16 ||
	    upd->ntasks_per_node != NO_VAL16 ||
	    upd->sockets_per_node != NO_VAL16 ||
	    upd->pn_min_memory != NO_VAL64 || upd->tres_per_job ||
	    upd->tres_per_node || upd->tres_per_socket || upd->tres_per_task ||
	    upd->mem_per_tres || upd->cpus_per_tres;

	*req = (struct qd_job_request){
	    .slurm_release = QD_THIS_SLURM_RELEASE,
	    .min_nodes = u32(PICK32(upd->min_nodes, d->min_nodes)),
	    .max_nodes = u32(PICK32(upd->max_nodes, d->max_nodes)),
	    .num_tasks = u32(PICK32(upd->num_tasks, d->num_tasks)),
	    .min_cpus = u32(PICK32(upd->min_cpus, d->orig_min_cpus)),
	    .cpus_per_task =
		u16(PICK16(upd->cpus_per_task, d->orig_cpus_per_task)),
	    .pn_min_cpus = u32(PICK16(upd->pn_min_cpus, d->orig_pn_min_cpus)),
	    .ntasks_per_node =
		u16(PICK16(upd->ntasks_per_node, d->ntasks_per_node)),
	    .sockets_per_node = u16(PICK16(upd->sockets_per_node, cur_sockets)),
	    .ntasks_per_socket =
		u16(PICK16(upd->ntasks_per_socket, cur_per_socket)),
	    .ntasks_per_tres =
		u16(PICK16(upd->ntasks_per_tres, d->ntasks_per_tres)),
	    .overcommit = d->overcommit,
	    .tres_per_job = PICKSTR(upd->tres_per_job, job->tres_per_job),
	    .tres_per_node = PICKSTR(upd->tres_per_node, job->tres_per_node),
	    .tres_per_socket =
		PICKSTR(upd->tres_per_socket, job->tres_per_socket),
	    .tres_per_task = PICKSTR(upd->tres_per_task, job->tres_per_task),
	    .mem_per_tres = PICKSTR(upd->mem_per_tres, job->mem_per_tres),
	    .cpus_per_tres = PICKSTR(upd->cpus_per_tres, job->cpus_per_tres),
	};
	set_mem(req, upd->pn_min_memory != NO_VAL64 ? upd->pn_min_memory
						    : d->orig_pn_min_memory);
	return size_change;
}
