#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "spool_orphan.h"

static void note_f(qd_orphan_note_fn note, void *arg, bool failed,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void note_f(qd_orphan_note_fn note, void *arg, bool failed,
		   const char *fmt, ...)
{
	char msg[QD_SPOOL_ERR_MAX + QD_RECORD_MAX + 128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	note(failed, msg, arg);
}

/* Returns 0 when r was closed and written back. */
static int close_one(const char *dir, struct qd_usage_record *r,
		     int64_t boot_time, qd_orphan_note_fn note, void *arg)
{
	char err[QD_SPOOL_ERR_MAX], text[QD_RECORD_MAX];

	if (qd_usage_record_close(r, boot_time)) {
		note_f(note, arg, true,
		       "job %" PRIu32 ": cannot close its usage record at "
		       "this node's boot: %s",
		       r->job_id, qd_usage_record_text(r, text, sizeof(text)));
		return -1;
	}
	if (qd_spool_write(dir, r, err, sizeof(err))) {
		note_f(note, arg, true, "job %" PRIu32 ": %s", r->job_id, err);
		return -1;
	}
	note_f(note, arg, false,
	       "job %" PRIu32 " was cut off by this node's reboot: its usage "
	       "record is closed at the boot time: %s",
	       r->job_id, qd_usage_record_text(r, text, sizeof(text)));
	return 0;
}

size_t qd_spool_close_orphans(const char *dir, const struct qd_spool_list *l,
			      int64_t boot_time,
			      const struct qd_usage_record *keep,
			      qd_orphan_note_fn note, void *arg)
{
	char err[QD_SPOOL_ERR_MAX];
	size_t closed = 0;

	if (!boot_time)
		return 0;
	for (size_t i = 0; i < l->n; i++) {
		struct qd_usage_record r;

		/* By name first: a backlog of records is not read. */
		if ((keep && qd_spool_name_is_jobs(l->names[i], keep)) ||
		    qd_spool_name_start(l->names[i]) >= boot_time ||
		    qd_spool_read(dir, l->names[i], &r, err, sizeof(err)) ||
		    !qd_usage_record_is_open(&r) || r.start >= boot_time)
			continue;
		if (!close_one(dir, &r, boot_time, note, arg))
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
