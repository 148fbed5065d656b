#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A step holding shards (gres/shard) of a GPU may open that GPU and no
# other GPU of the node, as Slurm binds it: Slurm's shard plugin gives the
# step that GPU's index in SLURM_STEP_GPUS (SLURM_JOB_GPUS in the batch
# step), which is what the binding reads. Each GPU gets 4 shards, first
# with File= per GPU, then as one Count= a node that Slurm splits.
# Slurm's own task/cgroup ConstrainDevices=yes is the oracle: each shape of
# job opens the same GPU under it alone, beside qosdeny and under qosdeny
# alone (gpu-lib.sh, share_test).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/gpu-lib.sh"
GRES=$QD_SLURM_ETC/gres.conf

share_test shard 4 1 4 QD_SHARD_GRES

# Count= without File=: Slurm spreads the 16 shards over n2's GPUs.
split_shapes() {
	as alice srun -w n2 --gres=shard:1 $PROBE
	one_gpu "$1, 16 shards split by Slurm, srun --gres=shard:1" 1
	OUT=$(batch -w n2 --gres=shard:2)
	one_gpu "$1, 16 shards split by Slurm, batch step, --gres=shard:2" 1
}
cp "$GRES" "$GRES.orig"
echo "NodeName=n[1-2] Name=shard Count=16" >>"$GRES"
export QD_SHARD_GRES=yes
task_cgroup_on "16 shards a node without File=, beside ConstrainDevices=yes" \
	add_gres_type
against_slurm split_shapes
unset QD_SHARD_GRES
mv -f "$GRES.orig" "$GRES"
task_cgroup_off "the nodes have their whole GPUs alone again, on task/none"
remove_slurm_cgroups
finish
