/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "spool_alive.h"
#include "spool_orphan.h"

static void note_f(qd_orphan_note_fn note, void *arg, bool failed,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void note_f(qd_orphan_note_fn note, void *arg, bool failed,
		   const char *fmt, ...)
{
	char msg[QD_SPOOL_ERR_MAX + QD_RECORD_MAX + QD_RUN_SOURCE_MAX + 128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	note(failed, msg, arg);
}

void qd_orphan_bound(const struct qd_usage_record *r,
		     const struct qd_orphan_bounds *b, struct qd_run_end *e)
{
	int64_t end = 0;
	const char *why = NULL;

	/* Unknown: only a reboot since its start surely ended the run. */
	if (e->state == QD_RUN_UNKNOWN &&
	    !(b->boot_time && r->start < b->boot_time))
		return;
	if (b->boot_time && r->start < b->boot_time) {
		end = b->boot_time;
		why = "this node's boot";
	}
	/* The slurmd that ran the job beat until it died: a tighter bound
	 * than the boot, which comes however long the node stayed down. */
	if (b->last_alive && b->last_alive >= r->start &&
	    (!end || b->last_alive + QD_ALIVE_INTERVAL_S < end)) {
		end = b->last_alive + QD_ALIVE_INTERVAL_S;
		why = "slurmd's last heartbeat here";
	}
	if (!why)
		return;
	e->state = QD_RUN_ENDED;
	e->end = end;
	snprintf(e->source, sizeof(e->source), "%s", why);
}

/* Returns 0 when r was closed at e's end and written back. */
static int close_one(const char *dir, struct qd_usage_record *r,
		     const struct qd_run_end *e, int64_t now,
		     qd_orphan_note_fn note, void *arg)
{
	char err[QD_SPOOL_ERR_MAX], text[QD_RECORD_MAX], num[32];
	/* Clock skew between hosts: never after now; never before the start
	 * either, which qd_usage_record_close sees to. */
	int64_t end = e->end > now ? now : e->end;

	if (qd_usage_record_close(r, end)) {
		note_f(note, arg, true,
		       "job %" PRIu32 ": cannot close its usage record at "
		       "%" PRId64 " (%s): %s",
		       r->job_id, end, e->source,
		       qd_usage_record_text(r, text, sizeof(text)));
		return -1;
	}
	if (qd_spool_write(dir, r, err, sizeof(err))) {
		note_f(note, arg, true, "job %" PRIu32 ": %s", r->job_id, err);
		return -1;
	}
	note_f(note, arg, false,
	       "job %" PRIu32 " ended on %s without its epilog: its usage "
	       "record is closed at %" PRId64 ", the end %s gives, charging "
	       "%" PRId64 " s, %s GPU-seconds: %s",
	       r->job_id, r->node, r->end, e->source, r->end - r->start,
	       qd_milli_text(r->mgpu_seconds, num, sizeof(num)),
	       qd_usage_record_text(r, text, sizeof(text)));
	return 0;
}

size_t qd_spool_close_orphans(const char *dir, const struct qd_spool_list *l,
			      const struct qd_orphan_bounds *b,
			      qd_run_lookup_fn lookup, void *lookup_arg,
			      qd_orphan_note_fn note, void *arg)
{
	char err[QD_SPOOL_ERR_MAX];
	size_t closed = 0;

	for (size_t i = 0; i < l->n; i++) {
		struct qd_run_end e = {.state = QD_RUN_UNKNOWN};
		struct qd_usage_record r;

		if (qd_spool_read(dir, l->names[i], &r, err, sizeof(err)) ||
		    !qd_usage_record_is_open(&r))
			continue;
		lookup(&r, &e, lookup_arg);
		if (e.state == QD_RUN_GONE || e.state == QD_RUN_UNKNOWN)
			qd_orphan_bound(&r, b, &e);
		if (e.state == QD_RUN_ENDED &&
		    !close_one(dir, &r, &e, b->now, note, arg))
			closed++;
	}
	return closed;
}

int64_t qd_boot_time(void)
{
	char line[256];
	long long t = 0;
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %lld", &t) == 1)
			break;
	fclose(f);
	return t > 0 ? t : 0;
}
