/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny doctor's lines: aligned for people, or '|'-separated with a header
 * (-P), as the tool's other commands print.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "doctor.h"

const char *qd_doctor_status_name(enum qd_doctor_status st)
{
	switch (st) {
	case QD_DOC_OK:
		return "ok";
	case QD_DOC_WARN:
		return "warn";
	case QD_DOC_FAIL:
		break;
	}
	return "FAIL";
}

/* A field of a -P line: no '|' nor line break inside. */
static void put_field(const char *text)
{
	for (const char *p = text; *p; p++)
		putchar(*p == '|' || *p == '\n' || *p == '\r' ? ' ' : *p);
}

void qd_doctor_line(struct qd_doctor *d, enum qd_doctor_status st,
		    const char *check, const char *detail, const char *fix)
{
	if (st == QD_DOC_WARN)
		d->n_warn++;
	else if (st == QD_DOC_FAIL)
		d->n_fail++;
	if (st == QD_DOC_OK)
		fix = NULL;
	if (d->parsable) {
		if (!d->header_done)
			puts("Status|Check|Detail|Fix");
		d->header_done = true;
		printf("%s|", qd_doctor_status_name(st));
		put_field(check);
		putchar('|');
		put_field(detail);
		putchar('|');
		put_field(fix ? fix : "");
		putchar('\n');
	} else {
		printf("%-4s  %-20s %s\n", qd_doctor_status_name(st), check,
		       detail);
		if (fix)
			printf("      %-20s fix: %s\n", "", fix);
	}
	fflush(stdout);
}

void qd_doctor_linef(struct qd_doctor *d, enum qd_doctor_status st,
		     const char *check, const char *fix, const char *fmt, ...)
{
	char detail[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	qd_doctor_line(d, st, check, detail, fix);
}

int qd_doctor_exit(const struct qd_doctor *d)
{
	return d->n_fail ? 1 : 0;
}
