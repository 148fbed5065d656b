/* SPDX-License-Identifier: GPL-2.0-or-later
 * slurm.conf and plugstack.conf, read only for the few settings the tool
 * needs, and the spank_qosdeny.so line found there, as words: its options
 * are the plugin's to parse (qosdeny(1), PLUGSTACK.CONF OPTIONS). Syntax as
 * Slurm reads them: '#' starts a comment, blanks separate Key=Value pairs,
 * slurm.conf keys are case-insensitive; a plugstack.conf line is
 * "required|optional PLUGIN [ARGS...]" or "include GLOB".
 */
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "errmsg.h"
#include "site.h"

#define INCLUDE_DEPTH_MAX 8

/* Cuts a line at '#' and the newline. */
static void strip_comment(char *line)
{
	line[strcspn(line, "#\n")] = '\0';
}

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

/* dir of path + "/" + name, for the files that live next to slurm.conf. */
static void beside(char *out, size_t len, const char *path, const char *name)
{
	char tmp[PATH_MAX];

	copy(tmp, sizeof(tmp), path);
	snprintf(out, len, "%s/%s", dirname(tmp), name);
}

static void slurm_conf_pair(struct qd_site *s, const char *key, const char *val)
{
	if (!strcasecmp(key, "ClusterName"))
		copy(s->cluster_name, sizeof(s->cluster_name), val);
	else if (!strcasecmp(key, "SlurmdSpoolDir"))
		copy(s->slurmd_spool_dir, sizeof(s->slurmd_spool_dir), val);
	else if (!strcasecmp(key, "PlugStackConfig"))
		copy(s->plugstack, sizeof(s->plugstack), val);
	else if (!strcasecmp(key, "SlurmUser"))
		copy(s->slurm_user, sizeof(s->slurm_user), val);
	else if (!strcasecmp(key, "PrivateData"))
		copy(s->private_data, sizeof(s->private_data), val);
	else if (!strcasecmp(key, "AccountingStorageEnforce"))
		copy(s->enforce, sizeof(s->enforce), val);
	else if (!strcasecmp(key, "AccountingStorageType"))
		copy(s->accounting, sizeof(s->accounting), val);
	else if (!strcasecmp(key, "GresTypes"))
		copy(s->gres_types, sizeof(s->gres_types), val);
	else if (!strcasecmp(key, "QOS")) /* only partitions have one */
		snprintf(s->partition_qos + strlen(s->partition_qos),
			 sizeof(s->partition_qos) - strlen(s->partition_qos),
			 "%s%s", s->partition_qos[0] ? "," : "", val);
}

/* Whether the comma-separated list holds item (case-insensitive). */
static bool list_has(const char *list, const char *item)
{
	size_t len = strlen(item);

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncasecmp(p, item, len))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

static int read_slurm_conf(struct qd_site *s, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, f) >= 0) {
		char *save = NULL, *tok;

		strip_comment(line);
		for (tok = strtok_r(line, " \t\r", &save); tok;
		     tok = strtok_r(NULL, " \t\r", &save)) {
			char *eq = strchr(tok, '=');

			if (!eq)
				continue;
			*eq = '\0';
			slurm_conf_pair(s, tok, eq + 1);
		}
	}
	free(line);
	return ferror(f) ? -1 : 0;
}

static bool is_qosdeny_plugin(const char *plugin)
{
	const char *base = strrchr(plugin, '/');

	return !strcmp(base ? base + 1 : plugin, "spank_qosdeny.so");
}

static int read_plugstack(struct qd_site *s, const char *path, int depth,
			  char *err, size_t errlen);

static int include(struct qd_site *s, const char *from, const char *pattern,
		   int depth, char *err, size_t errlen)
{
	char full[PATH_MAX];
	glob_t g;
	int rv = 0;

	if (pattern[0] == '/')
		copy(full, sizeof(full), pattern);
	else
		beside(full, sizeof(full), from, pattern);
	if (glob(full, 0, NULL, &g))
		return 0; /* nothing matches: nothing to include */
	for (size_t i = 0; i < g.gl_pathc && !rv; i++)
		rv = read_plugstack(s, g.gl_pathv[i], depth + 1, err, errlen);
	globfree(&g);
	return rv;
}

static int plugstack_line(struct qd_site *s, char *line, const char *path,
			  int lineno, int depth, char *err, size_t errlen)
{
	char *save = NULL, *kind, *plugin, *arg;

	strip_comment(line);
	kind = strtok_r(line, " \t\r", &save);
	if (!kind)
		return 0;
	if (!strcmp(kind, "include")) {
		arg = strtok_r(NULL, " \t\r", &save);
		return arg ? include(s, path, arg, depth, err, errlen) : 0;
	}
	if (strcmp(kind, "required") && strcmp(kind, "optional"))
		return 0;
	plugin = strtok_r(NULL, " \t\r", &save);
	if (!plugin || !is_qosdeny_plugin(plugin))
		return 0;
	s->have_spank_line = true;
	snprintf(s->spank_where, sizeof(s->spank_where), "%s:%d", path, lineno);
	s->spank_args[0] = '\0';
	while ((arg = strtok_r(NULL, " \t\r", &save))) {
		size_t n = strlen(s->spank_args);

		snprintf(s->spank_args + n, sizeof(s->spank_args) - n, "%s%s",
			 n ? " " : "", arg);
	}
	return 0;
}

static int read_plugstack(struct qd_site *s, const char *path, int depth,
			  char *err, size_t errlen)
{
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rv = -1;
	FILE *f;

	if (depth > INCLUDE_DEPTH_MAX)
		return qd_errf(err, errlen, "%s: includes nested too deep",
			       path);
	f = fopen(path, "re");
	if (!f) {
		/* No plugstack.conf: no SPANK plugin, defaults apply. */
		if (errno == ENOENT && !depth)
			return 0;
		return qd_errf(err, errlen, "%s: %s", path, strerror(errno));
	}
	while (getline(&line, &cap, f) >= 0) {
		if (plugstack_line(s, line, path, ++lineno, depth, err, errlen))
			goto fail;
	}
	if (ferror(f)) {
		qd_errf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	rv = 0;
fail:
	free(line);
	fclose(f);
	return rv;
}

int qd_site_load(struct qd_site *s, char *err, size_t errlen)
{
	const char *env = getenv("SLURM_CONF");

	return qd_site_load_from(s, env && *env ? env : NULL, err, errlen);
}

int qd_site_load_from(struct qd_site *s, const char *slurm_conf, char *err,
		      size_t errlen)
{
	FILE *f;

	memset(s, 0, sizeof(*s));
	copy(s->slurm_conf, sizeof(s->slurm_conf),
	     slurm_conf ? slurm_conf : QD_DEFAULT_SLURM_CONF);
	f = fopen(s->slurm_conf, "re");
	if (f) {
		s->have_slurm_conf = true;
		if (read_slurm_conf(s, f)) {
			fclose(f);
			return qd_errf(err, errlen, "%s: %s", s->slurm_conf,
				       strerror(errno));
		}
		fclose(f);
	} else if (errno != ENOENT || slurm_conf) {
		return qd_errf(err, errlen, "%s: %s", s->slurm_conf,
			       strerror(errno));
	}
	if (!s->plugstack[0])
		beside(s->plugstack, sizeof(s->plugstack), s->slurm_conf,
		       "plugstack.conf");
	beside(s->qosdeny_conf, sizeof(s->qosdeny_conf), s->slurm_conf,
	       "qosdeny.conf");
	if (!s->slurmd_spool_dir[0])
		copy(s->slurmd_spool_dir, sizeof(s->slurmd_spool_dir),
		     QD_DEFAULT_SPOOL_DIR);
	return read_plugstack(s, s->plugstack, 0, err, errlen);
}

bool qd_site_private_users(const struct qd_site *s)
{
	return list_has(s->private_data, "users") ||
	       list_has(s->private_data, "usage");
}

bool qd_site_has_shares(const struct qd_site *s)
{
	return list_has(s->gres_types, "shard") ||
	       list_has(s->gres_types, "mps");
}

bool qd_site_enforces_qos(const struct qd_site *s)
{
	return list_has(s->enforce, "qos") || list_has(s->enforce, "all");
}

bool qd_site_accounting_off(const struct qd_site *s)
{
	return !s->accounting[0] ||
	       !strcasecmp(s->accounting, "accounting_storage/none");
}

bool qd_site_is_partition_qos(const struct qd_site *s, const char *qos)
{
	return list_has(s->partition_qos, qos);
}
