/* SPDX-License-Identifier: GPL-2.0-or-later
 * The instructions of our cgroup v2 device program (BPF_PROG_TYPE_CGROUP_
 * DEVICE), built from the devices to refuse. Only builds: no bpf() call and
 * no cgroup, so it is tested anywhere; loading and attaching it, and which
 * program it tail-calls, is cgroup_v2.c's policy (docs/gpu-and-usage.md,
 * "GPU binding").
 */
#ifndef QD_CGROUP_BPF_H
#define QD_CGROUP_BPF_H

#include <linux/bpf.h>
#include <stddef.h>

#include "cgroup_deny.h"

/*
 * The most devices one program refuses: its first jump skips them all, four
 * instructions each, in a 16-bit offset. (At exactly 8192 that offset wraps
 * and the kernel refuses to load the program; kept as the limit has always
 * been, far beyond any node's GPUs.)
 */
#define CG_BPF_MAX_DENY 8192

/* A built program: n instructions in insn, which the caller frees. */
struct cg_bpf_prog {
	struct bpf_insn *insn;
	size_t n;
};

/*
 * The program refusing (returning 0 for) any access to a character device
 * among the n of deny, and otherwise allowing (1), or, with map_fd >= 0,
 * ending in a tail call to the program in slot 0 of that prog array, so
 * that its verdict still applies, refusing if the call cannot be made. -1
 * when n is over CG_BPF_MAX_DENY or memory runs out.
 */
int cg_bpf_build(const struct qd_dev *deny, size_t n, int map_fd,
		 struct cg_bpf_prog *p);

#endif
