/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "node_counts.h"

/* The file: this tag, then the counters. A file of another layout (an
 * older qosdeny's) is made again rather than misread. */
#define TAG	"qosdeny-node-counts/2\n"
#define TAG_LEN 24 /* the tag, padded with NULs to 8 bytes */

struct layout {
	char tag[TAG_LEN];
	uint64_t v[QD_NC_COUNT];
};

static void path_of(const char *dir, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", dir, QD_NODE_COUNTS_FILE);
}

/* The file mapped, when it is ours: a regular file of the layout's size
 * and tag, owned by this process's user. NULL with err otherwise, and
 * *foreign set when the file is there but not such a file. */
static struct layout *map(const char *dir, int flags, bool *foreign, char *err,
			  size_t errlen)
{
	char path[PATH_MAX];
	struct layout *m;
	struct stat st;
	int fd;

	path_of(dir, path, sizeof(path));
	fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		*foreign = e == ELOOP;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size != sizeof(struct layout)) {
		snprintf(err, errlen, "%s: not a counts file of this qosdeny",
			 path);
		*foreign = true;
		close(fd);
		return NULL;
	}
	m = mmap(NULL, sizeof(*m),
		 PROT_READ | (flags == O_RDWR ? PROT_WRITE : 0), MAP_SHARED, fd,
		 0);
	close(fd);
	if (m == MAP_FAILED) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (memcmp(m->tag, TAG, sizeof(TAG) - 1)) {
		snprintf(err, errlen, "%s: not a counts file of this qosdeny",
			 path);
		*foreign = true;
		munmap(m, sizeof(*m));
		return NULL;
	}
	return m;
}

/* Made where missing or not such a file; any other failure (no memory,
 * no file descriptors) keeps what was counted. */
int qd_node_counts_create(const char *dir, char *err, size_t errlen)
{
	char name[PATH_MAX], tmp[PATH_MAX];
	bool foreign = false;
	struct layout fresh = {0},
		      *m = map(dir, O_RDONLY, &foreign, err, errlen);
	struct qd_atomic_file f = {.dfd = AT_FDCWD, .name = name, .tmp = tmp};
	int missing = errno == ENOENT;

	if (m) {
		munmap(m, sizeof(*m));
		return 0;
	}
	if (!foreign && !missing)
		return -1;
	memcpy(fresh.tag, TAG, sizeof(TAG) - 1);
	path_of(dir, name, sizeof(name));
	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, QD_NODE_COUNTS_FILE);
	return qd_atomic_write(&f, (const char *)&fresh, sizeof(fresh), err,
			       errlen);
}

void qd_node_counts_add(const char *dir, enum qd_node_count c, uint64_t n)
{
	char err[64];
	bool foreign = false;
	struct layout *m;

	if (c >= QD_NC_COUNT || !dir || !*dir)
		return;
	m = map(dir, O_RDWR, &foreign, err, sizeof(err));
	if (!m)
		return;
	if (c == QD_NC_REDIS_US || c == QD_NC_REDIS_AT)
		__atomic_store_n(&m->v[c], n, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&m->v[c], n, __ATOMIC_RELAXED);
	munmap(m, sizeof(*m));
}

int qd_node_counts_read(const char *dir, struct qd_node_counts *out, char *err,
			size_t errlen)
{
	bool foreign = false;
	struct layout *m = map(dir, O_RDONLY, &foreign, err, errlen);

	if (!m)
		return -1;
	for (int i = 0; i < QD_NC_COUNT; i++)
		out->v[i] = __atomic_load_n(&m->v[i], __ATOMIC_RELAXED);
	munmap(m, sizeof(*m));
	return 0;
}
