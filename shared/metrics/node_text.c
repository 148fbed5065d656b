/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "node_text.h"

static void counter(struct qd_prom *out, const char *name, const char *help,
		    const char *node, uint64_t v)
{
	const char *labels[] = {"node", node, NULL};

	qd_prom_family(out, name, "counter", help);
	qd_prom_u64(out, name, labels, v);
}

static void usage(const char *node, const struct qd_node_metrics *m,
		  struct qd_prom *out)
{
	counter(out, "qosdeny_node_usage_records_sent_total",
		"Usage records Redis counted, at the job's end or from the "
		"spool later",
		node, m->c.v[QD_NC_SENT]);
	counter(out, "qosdeny_node_usage_records_spooled_total",
		"Job ends whose usage record could not be sent and stayed in "
		"the spool for a later replay",
		node, m->c.v[QD_NC_SPOOLED]);
	counter(out, "qosdeny_node_usage_records_failed_total",
		"Job ends with GPUs for which no usage record could be "
		"written (slurmd's log names each)",
		node, m->c.v[QD_NC_FAILED]);
}

static void spool(const char *node, const struct qd_node_metrics *m,
		  struct qd_prom *out)
{
	static const char records[] = "qosdeny_node_spool_records",
			  age[] = "qosdeny_node_spool_oldest_age_seconds";
	const char *open[] = {"node", node, "state", "open", NULL},
		   *closed[] = {"node", node, "state", "closed", NULL},
		   *unread[] = {"node", node, "state", "unreadable", NULL},
		   *labels[] = {"node", node, NULL};
	int64_t a = m->oldest_closed_end > 0 && m->now > m->oldest_closed_end
			? m->now - m->oldest_closed_end
			: 0;

	qd_prom_family(out, records, "gauge",
		       "Usage records in the node's spool: open (jobs "
		       "running here), closed (ended, waiting to be sent), "
		       "unreadable");
	qd_prom_u64(out, records, open, m->spool_open);
	qd_prom_u64(out, records, closed, m->spool_closed);
	qd_prom_u64(out, records, unread, m->spool_unread);
	qd_prom_family(out, age, "gauge",
		       "How long the oldest closed record has waited to be "
		       "sent (0: none waits)");
	qd_prom_u64(out, age, labels, (uint64_t)a);
}

static void redis(const char *node, const struct qd_node_metrics *m,
		  struct qd_prom *out)
{
	static const char rtt[] = "qosdeny_node_redis_round_trip_seconds",
			  at[] =
			      "qosdeny_node_redis_exchange_timestamp_seconds";
	const char *labels[] = {"node", node, NULL};

	qd_prom_family(out, rtt, "gauge",
		       "The round trip of the last usage record sent to Redis");
	qd_prom_double(out, rtt, labels, (double)m->c.v[QD_NC_REDIS_US] / 1e6);
	qd_prom_family(out, at, "gauge",
		       "When that exchange was (Unix time; 0: none yet)");
	qd_prom_u64(out, at, labels, m->c.v[QD_NC_REDIS_AT]);
}

static void labelled(struct qd_prom *out, const char *name, const char *node,
		     const char *key, const char *val, uint64_t v)
{
	const char *labels[] = {"node", node, key, val, NULL};

	qd_prom_u64(out, name, labels, v);
}

/* The GPU confinement: bindings that failed, ssh sessions let in or not. */
static void confinement(const char *node, const struct qd_node_metrics *m,
			struct qd_prom *out)
{
	static const char bind[] = "qosdeny_node_binding_failures_total",
			  ssh[] = "qosdeny_node_ssh_sessions_total";
	const uint64_t *v = m->c.v;

	qd_prom_family(out, bind, "counter",
		       "GPU bindings that failed: tasks not started "
		       "(step=task), extern steps whose ssh sessions are "
		       "refused (step=extern)");
	labelled(out, bind, node, "step", "task", v[QD_NC_BIND_TASK]);
	labelled(out, bind, node, "step", "extern", v[QD_NC_BIND_EXTERN]);
	qd_prom_family(out, ssh, "counter",
		       "ssh sessions pam_qosdeny.so saw: confined to their "
		       "job's GPUs, admitted with nothing to confine, or "
		       "refused");
	labelled(out, ssh, node, "result", "confined", v[QD_NC_SSH_CONFINED]);
	labelled(out, ssh, node, "result", "unconfined",
		 v[QD_NC_SSH_UNCONFINED]);
	labelled(out, ssh, node, "result", "refused", v[QD_NC_SSH_REFUSED]);
}

void qd_node_metrics_text(const char *node, const struct qd_node_metrics *m,
			  struct qd_prom *out)
{
	usage(node, m, out);
	spool(node, m, out);
	redis(node, m, out);
	confinement(node, m, out);
}
