#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run as a job's task on n1 as t_gpu_mig.sh lays it out: opens each of its
# fake GPU device files and MIG slices' nvidia-caps files and prints one
# line,
#   gpus=2 nvidia0=EPERM nvidia1=ENXIO ... cap12=EPERM cap21=ENXIO ...
# A fake file has no driver behind it: an allowed open() fails with ENXIO,
# a denied one with EPERM. Usage: mig-probe.sh DEVDIR
dev=$1
line="gpus=${SLURM_STEP_GPUS-${SLURM_JOB_GPUS-}}"
for f in nvidia0 nvidia1 nvidia2 nvidia3 nvidia-caps/nvidia-cap12 \
	nvidia-caps/nvidia-cap13 nvidia-caps/nvidia-cap21 nvidia-caps/nvidia-cap22; do
	err=$( (exec 3<"$dev/$f") 2>&1)
	case $err in
	*"No such device or address"*) r=ENXIO ;;
	*"Operation not permitted"*) r=EPERM ;;
	*) r="OTHER(${err##*: })" ;;
	esac
	f=${f#nvidia-caps/nvidia-}
	line+=" $f=$r"
done
echo "$line"
