/* SPDX-License-Identifier: GPL-2.0-or-later
 * qosdeny doctor's plugstack check: the spank_qosdeny.so line that slurmd
 * reads (docs/install.md, plugstack.conf): its plugin file is where slurmd
 * looks (the path as given when absolute, else in each PluginDir entry), the
 * line is `required` (an `optional` one that fails to load leaves jobs
 * unbound), and its options parse with the plugin's own parser.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor_node.h"
#include "site_opts.h"

/* Line `lineno` of path, without its newline (free it); NULL when gone. */
static char *line_of(const char *path, long lineno)
{
	char *line = NULL;
	size_t cap = 0;
	long n = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return NULL;
	while (getline(&line, &cap, f) >= 0)
		if (++n == lineno) {
			fclose(f);
			line[strcspn(line, "\n")] = '\0';
			return line;
		}
	free(line);
	fclose(f);
	return NULL;
}

/* The first two words of line `lineno` of path: kind (64 bytes) and
 * plugin (PATH_MAX). */
_Static_assert(PATH_MAX == 4096, "line_words' %4095s is PATH_MAX - 1");
static int line_words(const char *path, long lineno, char *kind, char *plugin)
{
	char *line = line_of(path, lineno);
	int rv =
	    line && sscanf(line, "%63s %4095s", kind, plugin) == 2 ? 0 : -1;

	free(line);
	return rv;
}

/*
 * After a FAIL the other checks go on with the options of the line that
 * parse, one word at a time, the defaults for the others: one wrong word is
 * one FAIL, not also a Redis or spool FAIL for the words beside it.
 */
static void each_word(const struct qd_site *s, struct qd_spank_opts *o)
{
	char buf[QD_SPANK_ARGS_LEN], err[512], *argv[QD_SPANK_ARGS_MAX];
	int argc = qd_site_spank_argv(s, buf, argv);
	struct qd_spank_opts t;

	qd_spank_opts_init(o);
	for (int i = 0; i < argc; i++) {
		t = *o;
		if (!qd_spank_opts_parse(&t, 1, &argv[i], err, sizeof(err)))
			*o = t;
	}
}

/* The plugin file as slurmd finds it; "" when nowhere. */
static void find_plugin(const char *plugin, const char *plugindir, char *out,
			size_t len)
{
	out[0] = '\0';
	if (plugin[0] == '/') {
		if (!access(plugin, R_OK))
			snprintf(out, len, "%s", plugin);
		return;
	}
	for (const char *p = plugindir; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(out, len, "%.*s/%s", (int)n, p, plugin);
		if (!access(out, R_OK))
			return;
		out[0] = '\0';
		p += n + (p[n] == ':');
	}
}

/* The plugin file and the line's kind; 0, or -1 after a line. */
static int plugin_file(struct qd_doctor *d, const struct qd_site *s,
		       const struct qd_doctor_conf *c, char *found, size_t len)
{
	char where[sizeof(s->spank_where)], kind[64], plugin[PATH_MAX];
	char *colon;

	snprintf(where, sizeof(where), "%s", s->spank_where);
	colon = strrchr(where, ':');
	*colon = '\0';
	found[0] = '\0';
	if (line_words(where, atol(colon + 1), kind, plugin))
		return 0; /* read a moment ago: changed since, say nothing */
	if (strcmp(kind, "required")) {
		qd_doctor_linef(d, QD_DOC_FAIL, "plugstack",
				"make it a 'required' line",
				"%s: '%s': slurmd runs jobs unbound where the "
				"plugin fails to load",
				s->spank_where, kind);
		return -1;
	}
	find_plugin(plugin, c->plugindir, found, len);
	if (!found[0] && (plugin[0] == '/' || c->loaded)) {
		qd_doctor_linef(d, QD_DOC_FAIL, "plugstack",
				"install spank_qosdeny.so (make install) or "
				"correct the path",
				"%s: %s not found%s%s", s->spank_where, plugin,
				plugin[0] == '/' ? "" : " in PluginDir ",
				plugin[0] == '/' ? "" : c->plugindir);
		return -1;
	}
	return 0;
}

void qd_doctor_plugstack(struct qd_doctor *d, const struct qd_site *s,
			 const struct qd_doctor_conf *c, const char *site_err,
			 struct qd_spank_opts *o, char *plugin, size_t len)
{
	char err[QD_SITE_ERR_MAX], found[2 * PATH_MAX];

	plugin[0] = '\0';
	qd_spank_opts_init(o);
	/* The tool's own reading stopped there (an include unreadable). */
	if (site_err) {
		qd_doctor_line(d, QD_DOC_FAIL, "plugstack", site_err,
			       "correct plugstack.conf (its options: "
			       "qosdeny(1), README)");
		if (s->have_spank_line)
			each_word(s, o);
		return;
	}
	if (!s->have_spank_line) {
		qd_doctor_linef(d, QD_DOC_FAIL, "plugstack",
				"add 'required spank_qosdeny.so "
				"redis=HOST:PORT' to plugstack.conf "
				"(qosdeny(1))",
				"%s: no spank_qosdeny.so line", s->plugstack);
		return;
	}
	if (qd_site_spank_opts(s, o, err, sizeof(err))) {
		each_word(s, o);
		qd_doctor_line(d, QD_DOC_FAIL, "plugstack", err,
			       "correct the option (plugstack.conf options: "
			       "qosdeny(1), README)");
		return;
	}
	if (plugin_file(d, s, c, found, sizeof(found)))
		return;
	snprintf(plugin, len, "%s", found);
	qd_doctor_linef(d, QD_DOC_OK, "plugstack", NULL, "%s: %s%s%s",
			s->spank_where, found[0] ? found : "",
			found[0] ? " " : "",
			s->spank_args[0] ? s->spank_args : "(no options)");
}
