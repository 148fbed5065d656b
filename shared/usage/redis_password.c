/* SPDX-License-Identifier: GPL-2.0-or-later
 * The Redis password file (plugstack.conf redis_password_file=), and the
 * ACL user beside it (redis_user=). The checks are on the open file, not the
 * path, so the file checked is the file read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "redis_conn.h"
#include "secret_file.h"

#define PASSWORD_FILE_MAX 4096

static int fail(char *err, size_t errlen, const char *path, const char *what)
{
	snprintf(err, errlen, "redis_password_file %s: %s", path, what);
	return -1;
}

/* Cuts buf into lines (newline or CRLF), at most max. Returns the count,
 * or -1 for more lines, an empty line or a NUL byte. */
static int split_lines(char *buf, size_t len, char **lines, int max)
{
	int n = 0;
	char *p = buf, *end = buf + len;

	if (memchr(buf, '\0', len))
		return -1;
	while (p < end) {
		char *nl = memchr(p, '\n', end - p);
		char *stop = nl ? nl : end;

		if (stop > p && stop[-1] == '\r')
			stop--;
		if (stop == p || n == max)
			return -1;
		*stop = '\0';
		lines[n++] = p;
		p = nl ? nl + 1 : end;
	}
	return n;
}

int qd_redis_read_password(const char *path, char **user, char **password,
			   char *err, size_t errlen)
{
	char buf[PASSWORD_FILE_MAX + 1], *lines[2];
	struct stat st;
	ssize_t len = 0;
	int fd, n, rv = -1;

	*user = *password = NULL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, path, strerror(errno));
	if (fstat(fd, &st)) {
		fail(err, errlen, path, strerror(errno));
		goto fail;
	}
	if (qd_secret_file_ok("redis_password_file", path, &st, err, errlen))
		goto fail;
	while (len < (ssize_t)sizeof(buf)) {
		ssize_t k = read(fd, buf + len, sizeof(buf) - len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			fail(err, errlen, path, strerror(errno));
			goto fail;
		}
		if (!k)
			break;
		len += k;
	}
	if (len > PASSWORD_FILE_MAX) {
		fail(err, errlen, path, "longer than 4096 bytes");
		goto fail;
	}
	n = split_lines(buf, len, lines, 2);
	if (n <= 0) {
		fail(err, errlen, path,
		     "expected one line (the password) or two (a user name, "
		     "then its password), without empty lines or NUL bytes");
		goto fail;
	}
	*password = strdup(lines[n - 1]);
	if (n == 2)
		*user = strdup(lines[0]);
	if (!*password || (n == 2 && !*user)) {
		fail(err, errlen, path, "out of memory");
		goto fail;
	}
	rv = 0;
fail:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	if (rv) {
		free(*user);
		free(*password);
		*user = *password = NULL;
	}
	return rv;
}

int qd_redis_credentials(const struct qd_redis_config *cfg, char **user,
			 char **password, char *err, size_t errlen)
{
	*user = *password = NULL;
	if (cfg->user && !cfg->password_file)
		return qd_errf(err, errlen,
			       "redis_user=%s needs redis_password_file= (its "
			       "password)",
			       cfg->user);
	if (!cfg->password_file)
		return 0;
	if (qd_redis_read_password(cfg->password_file, user, password, err,
				   errlen))
		return -1;
	if (!cfg->user)
		return 0;
	/* qosdeny(1), PLUGSTACK.CONF OPTIONS: the user is named once, in either
	 * place; two different names are a mistake to report. */
	if (*user && strcmp(*user, cfg->user)) {
		qd_errf(err, errlen,
			"redis_user=%s, but redis_password_file %s names user "
			"'%s': give the user in one place",
			cfg->user, cfg->password_file, *user);
		free(*user);
		explicit_bzero(*password, strlen(*password));
		free(*password);
		*user = *password = NULL;
		return -1;
	}
	free(*user);
	*user = strdup(cfg->user);
	return *user ? 0 : qd_errf(err, errlen, "out of memory");
}
