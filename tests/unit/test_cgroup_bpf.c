/* SPDX-License-Identifier: GPL-2.0-or-later
 * The device program's builder (cgroup_bpf.c) against the program as
 * cgroup_v2.c built it before the builder had a unit of its own: the same
 * instructions, byte for byte, for a few device lists, chained or not. The
 * old builder is kept here as it was (old_build()), and one program is
 * also written out as raw opcodes, so that neither copy alone can drift.
 * Pure: no bpf() call, no root needed.
 */
#include <linux/bpf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "cgroup_bpf.h"

/* cgroup_v2.c's emit() and build() before the split, unchanged. */
struct prog {
	struct bpf_insn *insn;
	size_t n;
};

static void emit(struct prog *p, uint8_t code, uint8_t dst, uint8_t src,
		 int16_t off, int32_t imm)
{
	struct bpf_insn *i = &p->insn[p->n++];

	memset(i, 0, sizeof(*i));
	i->code = code;
	i->dst_reg = dst;
	i->src_reg = src;
	i->off = off;
	i->imm = imm;
}

static int old_build(struct prog *p, const struct qd_dev *deny, size_t n,
		     int map_fd)
{
	size_t i;

	if (n > 8192)
		return -1; /* the jump below is 16 bits */
	p->n = 0;
	p->insn = calloc(5 + 4 * n + 6, sizeof(*p->insn));
	if (!p->insn)
		return -1;
	emit(p, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1,
	     offsetof(struct bpf_cgroup_dev_ctx, access_type), 0);
	/* access_type is (access << 16) | type */
	emit(p, BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff);
	emit(p, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, BPF_REG_1,
	     offsetof(struct bpf_cgroup_dev_ctx, major), 0);
	emit(p, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_4, BPF_REG_1,
	     offsetof(struct bpf_cgroup_dev_ctx, minor), 0);
	emit(p, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, (int16_t)(4 * n),
	     BPF_DEVCG_DEV_CHAR);
	for (i = 0; i < n; i++) {
		emit(p, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_3, 0, 3,
		     (int32_t)deny[i].major);
		emit(p, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 2,
		     (int32_t)deny[i].minor);
		emit(p, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
		emit(p, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	}
	if (map_fd >= 0) {
		/* bpf_tail_call(ctx, map, 0); r1 still holds ctx */
		emit(p, BPF_LD | BPF_DW | BPF_IMM, BPF_REG_2, BPF_PSEUDO_MAP_FD,
		     0, map_fd);
		emit(p, 0, 0, 0, 0, 0);
		emit(p, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, 0);
		emit(p, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_tail_call);
		emit(p, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	} else {
		emit(p, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1);
	}
	emit(p, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return 0;
}

/* Both builders on one list: the same count and the same bytes. */
static void same(const struct qd_dev *deny, size_t n, int map_fd)
{
	struct prog old;
	struct cg_bpf_prog now;

	cr_assert_eq(old_build(&old, deny, n, map_fd), 0);
	cr_assert_eq(cg_bpf_build(deny, n, map_fd, &now), 0);
	cr_assert_eq(now.n, old.n,
		     "%zu devices, map %d: %zu instructions, "
		     "was %zu",
		     n, map_fd, now.n, old.n);
	for (size_t i = 0; i < old.n; i++)
		cr_assert_eq(
		    memcmp(&now.insn[i], &old.insn[i], sizeof(old.insn[i])), 0,
		    "%zu devices, map %d: instruction %zu differs", n, map_fd,
		    i);
	free(old.insn);
	free(now.insn);
}

/* The GPUs of a node (195:N), a card's render node, and numbers whose
 * 32-bit immediates have the top bit set. */
static const struct qd_dev devs[] = {
    {195, 0}, {195, 1}, {195, 2}, {195, 3}, {226, 128}, {0xffffffffu, 7},
};

Test(cgroup_bpf, same_as_before_alone)
{
	for (size_t n = 0; n <= sizeof(devs) / sizeof(*devs); n++)
		same(devs, n, -1);
}

Test(cgroup_bpf, same_as_before_chained)
{
	for (size_t n = 0; n <= sizeof(devs) / sizeof(*devs); n++) {
		same(devs, n, 0);
		same(devs, n, 42);
	}
}

/* The most devices one program takes, each its own number. */
Test(cgroup_bpf, same_as_before_at_the_limit)
{
	struct qd_dev *many = calloc(CG_BPF_MAX_DENY, sizeof(*many));

	cr_assert_not_null(many);
	for (unsigned i = 0; i < CG_BPF_MAX_DENY; i++)
		many[i] = (struct qd_dev){195 + i / 256, i % 256};
	same(many, CG_BPF_MAX_DENY - 1, 3);
	same(many, CG_BPF_MAX_DENY, -1);
	free(many);
}

Test(cgroup_bpf, refuses_too_many)
{
	struct cg_bpf_prog p;
	struct qd_dev one = {195, 0};

	/* n is checked before deny is read: one device stands for them. */
	cr_assert_eq(cg_bpf_build(&one, CG_BPF_MAX_DENY + 1, -1, &p), -1);
	cr_assert_null(p.insn);
}

/* One program written out: refuse 195:1, else tail-call map fd 7. */
Test(cgroup_bpf, raw_opcodes)
{
	static const struct {
		uint8_t code, dst, src;
		int16_t off;
		int32_t imm;
	} want[] = {
	    {0x61, 2, 1, 0, 0},	     /* r2 = *(u32 *)(r1 + 0) */
	    {0x57, 2, 0, 0, 0xffff}, /* r2 &= 0xffff */
	    {0x61, 3, 1, 4, 0},	     /* r3 = *(u32 *)(r1 + 4) */
	    {0x61, 4, 1, 8, 0},	     /* r4 = *(u32 *)(r1 + 8) */
	    {0x55, 2, 0, 4, 2},	     /* if r2 != 2 goto +4 */
	    {0x55, 3, 0, 3, 195},    /* if r3 != 195 goto +3 */
	    {0x55, 4, 0, 2, 1},	     /* if r4 != 1 goto +2 */
	    {0xb7, 0, 0, 0, 0},	     /* r0 = 0 */
	    {0x95, 0, 0, 0, 0},	     /* exit */
	    {0x18, 2, 1, 0, 7},	     /* r2 = map fd 7 */
	    {0x00, 0, 0, 0, 0},	     /* (its high half) */
	    {0xb7, 3, 0, 0, 0},	     /* r3 = 0 */
	    {0x85, 0, 0, 0, 12},     /* call bpf_tail_call */
	    {0xb7, 0, 0, 0, 0},	     /* r0 = 0 */
	    {0x95, 0, 0, 0, 0},	     /* exit */
	};
	struct qd_dev one = {195, 1};
	struct cg_bpf_prog p;

	cr_assert_eq(cg_bpf_build(&one, 1, 7, &p), 0);
	cr_assert_eq(p.n, sizeof(want) / sizeof(*want));
	for (size_t i = 0; i < p.n; i++) {
		cr_assert_eq(p.insn[i].code, want[i].code, "insn %zu", i);
		cr_assert_eq(p.insn[i].dst_reg, want[i].dst, "insn %zu", i);
		cr_assert_eq(p.insn[i].src_reg, want[i].src, "insn %zu", i);
		cr_assert_eq(p.insn[i].off, want[i].off, "insn %zu", i);
		cr_assert_eq(p.insn[i].imm, want[i].imm, "insn %zu", i);
	}
	free(p.insn);
}
