#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A step holding an MPS share (gres/mps) of a GPU may open that GPU and no
# other GPU of the node, as Slurm binds it: Slurm's mps plugin gives the
# step that GPU's index in SLURM_STEP_GPUS (SLURM_JOB_GPUS in the batch
# step), which is what the binding reads. n2 gets an MPS count of 100 a
# GPU. Slurm's own task/cgroup ConstrainDevices=yes is the oracle: each
# shape of job opens the same GPU under it alone, beside qosdeny and under
# qosdeny alone. (Shards are not bound so: docs/gpu-and-usage.md.)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/gpu-lib.sh"
CLUSTER="$QD_ROOT/tests/cluster/cluster.sh"
GRES=$QD_SLURM_ETC/gres.conf

# Adding a GRES type: a running slurmd cannot change its GRES plugins,
# which slurmctld's restart asks of it (a reconfigure), and slurmctld
# refuses a slurmd with less of a GRES than its slurm.conf says (INVAL):
# slurmd first, then both as usual. (Taking it away, slurmctld first does.)
add_gres_type() {
	bash "$CLUSTER" write-conf >/dev/null &&
		{ bash "$CLUSTER" restart-slurmd >/dev/null 2>&1 || true; } &&
		reconfigure_nodes
}

# one_gpu WHAT N: N probe lines in OUT, each naming exactly one GPU and
# opening that one alone (check_lines).
one_gpu() {
	local l
	while IFS= read -r l; do
		[[ $l =~ \ gpus=[0-9]+\  ]] ||
			fail "$1: an MPS share is of one GPU: $l"
	done < <(printf '%s\n' "$OUT" | grep '^node=')
	check_lines "$1" "$2" "$OUT"
}

# array_out JOB-OPTIONS...: the probe as a job array of two tasks; prints
# both tasks' output.
array_out() {
	local dir=$QD_CLUSTER_DIR/users/alice id
	as alice sbatch --parsable --array=0-1 -o "$dir/mps-%A_%a.out" "$@" \
		--wrap "$PROBE"
	id=$OUT
	wait_for "array job $id" 60 job_done "$id"
	cat "$dir/mps-${id}_0.out" "$dir/mps-${id}_1.out"
}

shapes() {
	local hold
	as alice srun -w n2 --gres=mps:50 $PROBE
	one_gpu "$1, srun --gres=mps:50" 1
	OUT=$(batch -w n2 --gres=mps:100)
	one_gpu "$1, batch step, --gres=mps:100" 1
	as alice salloc -w n2 --gres=mps:50 srun $PROBE
	one_gpu "$1, salloc + srun, --gres=mps:50" 1
	OUT=$(array_out -w n2 --gres=mps:100)
	one_gpu "$1, a job array's two tasks, --gres=mps:100 each" 2
	# Three whole GPUs held: the share comes from the fourth.
	hold=$(submit_running alice -w n2 --gres=gpu:3)
	as alice srun -w n2 --gres=mps:50 $PROBE
	assert_contains "$1, MPS beside 3 GPUs held: Slurm gives GPU 3" \
		"gpus=3 " "$OUT"
	one_gpu "$1, MPS beside 3 GPUs held" 1
	scancel "$hold"
	wait_for "job $hold to end" 60 job_done "$hold"
}

cp "$GRES" "$GRES.orig"
for i in 4 5 6 7; do
	echo "NodeName=n2 Name=mps Count=100 File=$QD_DEV_DIR/nvidia$i"
done >>"$GRES"
export QD_MPS_GRES=yes
task_cgroup_on "MPS on n2, beside task/cgroup with ConstrainDevices=yes" \
	add_gres_type
against_slurm shapes
task_cgroup_off "MPS on task/none"
as alice srun -w n2 --gres=mps:50 $PROBE
assert_contains "without qosdeny, task/none confines nothing" \
	"0=ENXIO 1=ENXIO 2=ENXIO 3=ENXIO" "$OUT"
echo "required spank_qosdeny.so" >"$PLUGSTACK"
shapes "qosdeny alone"
echo "required spank_qosdeny.so cgroup=v2" >"$PLUGSTACK"
as alice srun -w n2 --gres=mps:25 $PROBE
one_gpu "qosdeny alone, cgroup v2 device program, --gres=mps:25" 1

: >"$PLUGSTACK"
unset QD_MPS_GRES
mv -f "$GRES.orig" "$GRES"
check "n2 has its whole GPUs alone again" reconfigure_nodes
remove_slurm_cgroups
finish
