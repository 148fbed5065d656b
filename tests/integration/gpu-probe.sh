#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run as a job's task: opens each fake GPU of this node and prints one line,
#   node=n1 task=0 gpus=0,1 0=ENXIO 1=ENXIO 2=EPERM 3=EPERM
# with the node's GPU index (its position in gres.conf's File= list). A fake
# GPU has no driver: an allowed open() fails with ENXIO, a denied one EPERM.
# Usage: gpu-probe.sh DEVDIR
dev=$1
case $SLURMD_NODENAME in
n1) first=0 ;;
n2) first=4 ;;
*) echo "gpu-probe: unknown node '$SLURMD_NODENAME'" && exit 1 ;;
esac
line="node=$SLURMD_NODENAME task=$SLURM_PROCID gpus=${SLURM_STEP_GPUS-${SLURM_JOB_GPUS-}}"
for idx in 0 1 2 3; do
	err=$( (exec 3<"$dev/nvidia$((first + idx))") 2>&1)
	case $err in
	*"No such device or address"*) r=ENXIO ;;
	*"Operation not permitted"*) r=EPERM ;;
	*) r="OTHER(${err##*: })" ;;
	esac
	line+=" $idx=$r"
done
echo "$line"
