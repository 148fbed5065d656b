#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# GPU binding beside task/cgroup with ConstrainDevices=yes: the result is the
# intersection of Slurm's confinement and qosdeny's, never wider.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/gpu-lib.sh"

task_cgroup_on "the cluster runs with task/cgroup and ConstrainDevices=yes"

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

task_cgroup_off "the cluster is back on task/none"
remove_slurm_cgroups
finish
