/* SPDX-License-Identifier: GPL-2.0-or-later
 * Our cgroup v2 device program's instructions; see cgroup_bpf.h. Built as
 * SchedMD's Slurm builds its own (src/plugins/cgroup/v2/ebpf.c): named
 * instructions in blocks, each under the C it stands for.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup_bpf.h"

/*
 * One instruction each, named as in the kernel's include/linux/filter.h
 * (which user space does not get); fields not named are 0.
 */
#define BPF_LDX_MEM(SIZE, DST, SRC, OFF)                                       \
	((struct bpf_insn){.code = BPF_LDX | BPF_MEM | (SIZE),                 \
			   .dst_reg = (DST),                                   \
			   .src_reg = (SRC),                                   \
			   .off = (OFF)})
#define BPF_ALU64_IMM(OP, DST, IMM)                                            \
	((struct bpf_insn){                                                    \
	    .code = BPF_ALU64 | (OP) | BPF_K, .dst_reg = (DST), .imm = (IMM)})
#define BPF_MOV64_IMM(DST, IMM) BPF_ALU64_IMM(BPF_MOV, DST, IMM)
#define BPF_JMP_IMM(OP, DST, IMM, OFF)                                         \
	((struct bpf_insn){.code = BPF_JMP | (OP) | BPF_K,                     \
			   .dst_reg = (DST),                                   \
			   .off = (OFF),                                       \
			   .imm = (IMM)})
#define BPF_CALL_HELPER(FUNC)                                                  \
	((struct bpf_insn){.code = BPF_JMP | BPF_CALL, .imm = (FUNC)})
#define BPF_EXIT_INSN() ((struct bpf_insn){.code = BPF_JMP | BPF_EXIT})
/* Two instructions (a 64-bit immediate): the fd of a map, which the
 * kernel replaces by the map when it loads the program. */
#define BPF_LD_MAP_FD(DST, FD)                                                 \
	((struct bpf_insn){.code = BPF_LD | BPF_DW | BPF_IMM,                  \
			   .dst_reg = (DST),                                   \
			   .src_reg = BPF_PSEUDO_MAP_FD,                       \
			   .imm = (FD)}),                                      \
	    ((struct bpf_insn){.code = 0})

/* The blocks' lengths, for the allocation: head, per device, most tail. */
#define HEAD_LEN 5
#define DEV_LEN	 4
#define TAIL_LEN 6

#define LEN(a) (sizeof(a) / sizeof(*(a)))

static void put(struct cg_bpf_prog *p, const struct bpf_insn *blk, size_t n)
{
	memcpy(p->insn + p->n, blk, n * sizeof(*blk));
	p->n += n;
}

int cg_bpf_build(const struct qd_dev *deny, size_t n, int map_fd,
		 struct cg_bpf_prog *p)
{
	p->insn = NULL;
	p->n = 0;
	if (n > CG_BPF_MAX_DENY)
		return -1;
	p->insn = calloc(HEAD_LEN + DEV_LEN * n + TAIL_LEN, sizeof(*p->insn));
	if (!p->insn)
		return -1;

	/*
	 * The kernel calls the program with r1 = ctx, a
	 * struct bpf_cgroup_dev_ctx *:
	 *
	 *	type = ctx->access_type & 0xffff;	// r2; the access is
	 *						// the high 16 bits
	 *	major = ctx->major;			// r3
	 *	minor = ctx->minor;			// r4
	 *	if (type != BPF_DEVCG_DEV_CHAR)
	 *		goto verdict;			// past every device
	 */
	const struct bpf_insn head[] = {
	    BPF_LDX_MEM(BPF_W, BPF_REG_2, BPF_REG_1,
			offsetof(struct bpf_cgroup_dev_ctx, access_type)),
	    BPF_ALU64_IMM(BPF_AND, BPF_REG_2, 0xffff),
	    BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_1,
			offsetof(struct bpf_cgroup_dev_ctx, major)),
	    BPF_LDX_MEM(BPF_W, BPF_REG_4, BPF_REG_1,
			offsetof(struct bpf_cgroup_dev_ctx, minor)),
	    BPF_JMP_IMM(BPF_JNE, BPF_REG_2, BPF_DEVCG_DEV_CHAR,
			(int16_t)(DEV_LEN * n)),
	};
	put(p, head, LEN(head));

	for (size_t i = 0; i < n; i++) {
		/*
		 * For each device to refuse, in deny's order:
		 *
		 *	if (major == deny[i].major && minor == deny[i].minor)
		 *		return 0;	// the opener gets EPERM
		 */
		const struct bpf_insn dev[] = {
		    BPF_JMP_IMM(BPF_JNE, BPF_REG_3, (int32_t)deny[i].major, 3),
		    BPF_JMP_IMM(BPF_JNE, BPF_REG_4, (int32_t)deny[i].minor, 2),
		    BPF_MOV64_IMM(BPF_REG_0, 0),
		    BPF_EXIT_INSN(),
		};
		put(p, dev, LEN(dev));
	}

	if (map_fd >= 0) {
		/*
		 * verdict, chained to the program ours takes the place of
		 * (r1 still holds ctx):
		 *
		 *	bpf_tail_call(ctx, map, 0);	// no return if made
		 *	return 0;	// else refuse: never looser than it
		 */
		const struct bpf_insn chained[] = {
		    BPF_LD_MAP_FD(BPF_REG_2, map_fd),
		    BPF_MOV64_IMM(BPF_REG_3, 0),
		    BPF_CALL_HELPER(BPF_FUNC_tail_call),
		    BPF_MOV64_IMM(BPF_REG_0, 0),
		    BPF_EXIT_INSN(),
		};
		put(p, chained, LEN(chained));
	} else {
		/*
		 * verdict, alone:
		 *
		 *	return 1;	// allowed, as far as ours goes
		 */
		const struct bpf_insn alone[] = {
		    BPF_MOV64_IMM(BPF_REG_0, 1),
		    BPF_EXIT_INSN(),
		};
		put(p, alone, LEN(alone));
	}
	return 0;
}
