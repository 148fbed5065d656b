#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A step holding an MPS share (gres/mps) of a GPU may open that GPU and no
# other GPU of the node, as Slurm binds it: Slurm's mps plugin gives the
# step that GPU's index in SLURM_STEP_GPUS (SLURM_JOB_GPUS in the batch
# step), which is what the binding reads. Each GPU gets an MPS count of
# 100. Slurm's own task/cgroup ConstrainDevices=yes is the oracle: each
# shape of job opens the same GPU under it alone, beside qosdeny and under
# qosdeny alone (gpu-lib.sh, share_test).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/gpu-lib.sh"

share_test mps 100 50 100 QD_MPS_GRES
finish
