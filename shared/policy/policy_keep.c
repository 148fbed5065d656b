#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "policy_keep.h"

#define SOURCE_TAG   "# Source: "
#define ACCEPTED_TAG "# Accepted: "
/* mkostemp's six characters after QD_KEPT_NAME "." */
#define TMP_SUFFIX_LEN 6
/* A temporary copy older than this was left by a slurmctld that died while
 * writing it; a younger one may be another thread's write in progress
 * (job_submit and the site factor both keep the policy). */
#define STALE_TMP_S 600

static void format_when(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf, len, "%lld", (long long)t);
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

/* The rename is durable only once the directory itself is synced. */
static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rv;

	if (fd < 0)
		return -1;
	rv = fsync(fd);
	close(fd);
	return rv;
}

/* Removes the temporary copies a crash left in dir, so that they do not pile
 * up in StateSaveLocation over the years; best effort. */
static void sweep_stale(const char *dir, time_t now)
{
	DIR *d = opendir(dir);
	size_t plen = strlen(QD_KEPT_NAME);
	struct dirent *e;
	struct stat st;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, QD_KEPT_NAME ".", plen + 1) ||
		    strlen(e->d_name) != plen + 1 + TMP_SUFFIX_LEN)
			continue;
		if (!fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode) && st.st_mtime < now - STALE_TMP_S)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

int qd_policy_keep(const char *dir, const char *source, const char *text,
		   time_t accepted, char *err, size_t errlen)
{
	char path[PATH_MAX], tmp[PATH_MAX + 16], *head = NULL;
	int fd, len;

	snprintf(path, sizeof(path), "%s/%s", dir, QD_KEPT_NAME);
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	len = asprintf(&head,
		       "# qosdeny: the last qosdeny.conf slurmctld accepted, "
		       "run on when that file\n# cannot be read or parsed at "
		       "slurmctld's start (qosdeny.conf(5)).\n" SOURCE_TAG
		       "%s\n" ACCEPTED_TAG "%lld\n",
		       source, (long long)accepted);
	if (len < 0)
		return qd_errf(err, errlen, "%s: out of memory", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0 || write_all(fd, head, len) ||
	    write_all(fd, text, strlen(text)) || fsync(fd) ||
	    rename(tmp, path) || sync_dir(dir)) {
		qd_errf(err, errlen, "%s: %s", fd < 0 ? tmp : path,
			strerror(errno));
		if (fd >= 0) {
			unlink(tmp);
			close(fd);
		}
		free(head);
		return -1;
	}
	close(fd);
	free(head);
	sweep_stale(dir, time(NULL));
	return 0;
}

/* The header's value for tag, up to the end of its line, or NULL. */
static const char *header_value(const char *text, const char *tag, char *buf,
				size_t len)
{
	const char *p = strstr(text, tag), *end;

	if (!p || (p != text && p[-1] != '\n'))
		return NULL;
	p += strlen(tag);
	end = strchrnul(p, '\n');
	snprintf(buf, len, "%.*s", (int)(end - p), p);
	return buf;
}

static int read_header(const char *text, struct qd_kept *kept, char *err,
		       size_t errlen)
{
	char accepted[32], *end = accepted;

	if (header_value(text, SOURCE_TAG, kept->source,
			 sizeof(kept->source)) &&
	    header_value(text, ACCEPTED_TAG, accepted, sizeof(accepted)))
		kept->accepted = strtoll(accepted, &end, 10);
	if (end == accepted || *end)
		return qd_errf(err, errlen, "%s: not a copy qosdeny wrote",
			       kept->path);
	format_when(kept->accepted, kept->when, sizeof(kept->when));
	return 0;
}

struct qd_policy *qd_policy_kept(const char *dir, struct qd_kept *kept,
				 char *err, size_t errlen)
{
	struct qd_policy *p = NULL;
	struct stat st;
	char *text;

	memset(kept, 0, sizeof(*kept));
	snprintf(kept->path, sizeof(kept->path), "%s/%s", dir, QD_KEPT_NAME);
	if (stat(kept->path, &st)) {
		kept->exists = errno != ENOENT;
		qd_errf(err, errlen, "%s: %s", kept->path, strerror(errno));
		return NULL;
	}
	kept->exists = true;
	text = qd_policy_read(kept->path, err, errlen);
	if (text && !read_header(text, kept, err, errlen))
		p = qd_policy_parse(kept->path, text, err, errlen);
	free(text);
	return p;
}
