#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# GPU binding beside task/cgroup with ConstrainDevices=yes: the result is the
# intersection of Slurm's confinement and qosdeny's, never wider.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/gpu-lib.sh"
CLUSTER="$QD_ROOT/tests/cluster/cluster.sh"

reconfigure_nodes() {
	bash "$CLUSTER" write-conf >/dev/null &&
		bash "$CLUSTER" restart-ctld >/dev/null &&
		bash "$CLUSTER" restart-slurmd >/dev/null
}

printf 'CgroupPlugin=cgroup/v1\nConstrainDevices=yes\n' \
	>"$QD_SLURM_ETC/cgroup.conf"
export QD_TASKPLUGIN=task/cgroup QD_PROCTRACK=proctrack/cgroup
check "the cluster runs with task/cgroup and ConstrainDevices=yes" \
	reconfigure_nodes

# Slurm alone already confines: the baseline the plugin must not widen.
: >"$PLUGSTACK"
as alice srun -N1 --gres=gpu:1 $PROBE
check_lines "ConstrainDevices alone" 1 "$OUT"

echo "required spank_qosdeny.so" >"$PLUGSTACK"
OUT=$(batch -N1 --gres=gpu:2)
check_lines "both, batch step" 1 "$OUT"
as alice srun -N 2 --gpus-per-node=1 $PROBE
check_lines "both, srun over 2 nodes" 2 "$OUT"

# qosdeny told of only part of the node's GPUs still leaves Slurm's denials.
echo "required spank_qosdeny.so gpu_devices=$QD_DEV_DIR/nvidia0" >"$PLUGSTACK"
as alice srun -N1 -w n1 --gres=gpu:1 $PROBE
check_lines "a narrower qosdeny view never widens Slurm's" 1 "$OUT"

: >"$PLUGSTACK"
unset QD_TASKPLUGIN QD_PROCTRACK
rm -f "$QD_SLURM_ETC/cgroup.conf"
check "the cluster is back on task/none" reconfigure_nodes
# Slurm leaves its (empty) per-node cgroup trees behind: remove them.
for d in /sys/fs/cgroup/*/slurm_n1 /sys/fs/cgroup/*/slurm_n2; do
	[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
done
finish
