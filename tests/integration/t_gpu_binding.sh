#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# spank_qosdeny.so confines every task to its step's GPUs: each task opens
# every fake GPU of its node, allocated ones give ENXIO (no driver behind
# them), the others EPERM. Batch, salloc+srun and srun steps.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/gpu-lib.sh"

# Without the plugin nothing is confined: the test below would notice.
: >"$PLUGSTACK"
OUT=$(batch -N1 --gres=gpu:2)
assert_contains "without the plugin every GPU opens (ENXIO)" \
	"0=ENXIO 1=ENXIO 2=ENXIO 3=ENXIO" "$OUT"

echo "required spank_qosdeny.so" >"$PLUGSTACK"

OUT=$(batch -N1 --gres=gpu:2)
check_lines "batch step, --gres=gpu:2" 1 "$OUT"

as alice salloc -N1 --gres=gpu:1 srun $PROBE
check_lines "salloc + srun step, --gres=gpu:1" 1 "$OUT"

as alice srun -n 2 --gpus-per-task=1 $PROBE
check_lines "srun, --gpus-per-task=1 -n 2" 2 "$OUT"

as alice srun -N 2 --gpus-per-node=2 $PROBE
check_lines "srun, --gpus-per-node=2 -N 2" 2 "$OUT"
assert_contains "both nodes ran a task" "node=n2" "$OUT"

as alice srun -N1 $PROBE
assert_contains "a job with no GPUs can open none" \
	"0=EPERM 1=EPERM 2=EPERM 3=EPERM" "$OUT"

# The same through cgroup v2 device programs.
echo "required spank_qosdeny.so cgroup=v2" >"$PLUGSTACK"
as alice srun -N 2 --gpus-per-node=1 $PROBE
check_lines "cgroup v2, srun --gpus-per-node=1 -N 2" 2 "$OUT"
OUT=$(batch -N1 --gres=gpu:3)
check_lines "cgroup v2, batch step --gres=gpu:3" 1 "$OUT"

# Fail closed: a binding that cannot be applied stops the task, and the
# user is told why.
echo "required spank_qosdeny.so gpu_devices=$QD_DEV_DIR/none[0-3]" >"$PLUGSTACK"
as alice srun -N1 --gres=gpu:1 $PROBE
# (srun 22.05 reports a start failure but exits 0 for it.)
assert_contains "a task whose binding fails does not start" \
	"task 0 launch failed" "$OUT"
assert_not_contains "nothing of the task ran" "node=" "$OUT"
assert_contains "the user sees a qosdeny: line saying why" \
	"qosdeny: job " "$OUT"

: >"$PLUGSTACK"
finish
