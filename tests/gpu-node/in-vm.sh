#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh inside the pure cgroup v2 VM, as `bash tests/vm/run.sh
# tests/gpu-node/in-vm.sh` runs it (tests/gpu-node/README.md): the runtime
# this checkout built for the VM's Slurm version (QD_VM_SLURM, 24.11 or
# 26.05; the runtime brings its own Slurm of that version), the VM's fake
# GPUs (tests/vm/boot.sh), no CUDA.
# The opt-in launch benchmark too, so that it is tried here, with fewer
# rounds and jobs, as each srun takes 1-2 s under qemu's TCG. Then what
# run.sh must leave on a node: nothing.
source /qosdeny/tests/integration/lib.sh

QD_GPU_LAUNCH=1 QD_GPU_ROUNDS=2 QD_GPU_JOBS=3 \
	bash /qosdeny/tests/gpu-node/run.sh "${QD_VM_SLURM:-24.11}"

# chrooted: the processes whose root is not the VM's (its own munged and
# Redis, boot.sh's, are).
chrooted() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root")" == / ] || cat "$p/comm"
	done 2>/dev/null
}
assert_eq "after run.sh: no process of its runtime left" "" "$(chrooted)"
assert_eq "after run.sh: no mount of its runtime left" "" \
	"$(grep qd-gpu-node /proc/self/mountinfo)"
assert_eq "after run.sh: its directory removed" "" \
	"$(ls -d /var/tmp/qd-gpu-node.* 2>/dev/null)"
assert_eq "after run.sh: the cgroups Slurm made for its daemons removed" "" \
	"$(ls -d /sys/fs/cgroup/system.slice 2>/dev/null)"
finish
