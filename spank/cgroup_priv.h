/*
 * What cgroup.c, cgroup_v1.c and cgroup_v2.c share. Not for other callers.
 */
#ifndef QD_CGROUP_PRIV_H
#define QD_CGROUP_PRIV_H

#include <stddef.h>
#include <sys/types.h>

#include "cgroup.h"
#include "errmsg.h"

/* A character device to refuse. */
struct qd_dev {
	unsigned major;
	unsigned minor;
};

/*
 * The device numbers of gpus that no allowed file shares, control devices
 * left out, each once. -1 with err naming the path that cannot be stat()ed or
 * is no character device.
 */
int cg_deny_set(const struct qd_paths *gpus, const struct qd_paths *allowed,
		struct qd_dev **out, size_t *n, char *err, size_t errlen);

/*
 * pid's cgroup directory in the v1 hierarchy holding controller, or (NULL)
 * in cgroup2, from /proc/PID/cgroup and this process's mountinfo; *top gets
 * the mount point. -1 with err saying which part is missing.
 */
int cg_dir_of(pid_t pid, const char *controller, char *dir, size_t dirlen,
	      char *top, size_t toplen, char *err, size_t errlen);

/*
 * This process's mount of the v1 hierarchy that has controller, or (NULL) of
 * cgroup2: where it is mounted and which cgroup is its root.
 */
int cg_mount(const char *controller, char *mnt, size_t mntlen, char *root,
	     size_t rootlen, char *err, size_t errlen);

/* Writes text to path in one write(), as cgroup files want. */
int cg_write(const char *path, const char *text, char *err, size_t errlen);

/* dir/name, created fresh: an empty stale one is removed first. */
int cg_mkchild(const char *parent, const char *name, char *child,
	       size_t childlen, char *err, size_t errlen);

/* Moves pid (all its threads) into dir. */
int cg_move(const char *dir, pid_t pid, char *err, size_t errlen);

/* rmdir, retried briefly while an empty cgroup is still draining. */
int cg_rmdir(const char *dir, char *err, size_t errlen);

/* How many processes dir's cgroup.procs lists, or -1 (err set, errno kept). */
int cg_nprocs(const char *dir, char *err, size_t errlen);

/* Whether dir's cgroup.procs lists exactly pid: 1, 0, or -1 (err set). */
int cg_holds_only(const char *dir, pid_t pid, char *err, size_t errlen);

int cg_v1_confine(struct qd_cg_binding *b, const char *parent, const char *name,
		  const struct qd_dev *deny, size_t n, char *err,
		  size_t errlen);

int cg_v2_confine(struct qd_cg_binding *b, const char *parent, const char *top,
		  const char *name, const struct qd_dev *deny, size_t n,
		  char *err, size_t errlen);

/* Whether device program id is effective in the cgroup at dir: 1, 0, -1.
 * With others set, also whether every program effective at others is
 * effective at dir (*covers). */
int cg_v2_effective(const char *dir, unsigned id, const char *others,
		    int *covers, char *err, size_t errlen);

/* v2 release beyond the rmdir: put a replaced program back, close fds. */
int cg_v2_release(struct qd_cg_binding *b, char *err, size_t errlen);
void cg_v2_close(struct qd_cg_binding *b);

#endif
