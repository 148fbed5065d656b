#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# GPU binding on Slurm's cgroup/v2 (pure cgroup v2 VM, Slurm 24.11 or
# 26.05, proctrack/cgroup), beside task/none and task/cgroup with
# ConstrainDevices=no and =yes: a step's allocated GPUs open (ENXIO, no
# driver), the node's other GPU is refused (EPERM), and a step on shards
# opens the GPU they are of; per step (the tasks of
# one step share its GPUs; --gpus-per-task beside ConstrainDevices stays per
# task); the program attached in place: every task stays in the cgroup
# Slurm made for it (.../vm_slurmstepd.scope/JOB/step_S/user/task_*, JOB
# job_N or on 26.05 the job's SLUID), and no qosdeny_* cgroup is made
# anywhere. Then nothing is left once the jobs end.
source "$(dirname "$0")/vm-lib.sh"
ALICE=$QD_CLUSTER_DIR/users/alice

# probe_lines OUTPUT: the probe's lines, sorted (tasks report in any order).
probe_lines() { printf '%s\n' "$1" | grep '^gpus=' | sort; }

# where_probe: a task's GPUs, its probe and the cgroup it runs in.
where_probe() {
	echo "$(gpu_probe)"'
echo "cg=$(cut -d: -f3 /proc/self/cgroup)"'
}

# in_slurms_cgroups WHAT OUTPUT: every task reported a cgroup of Slurm's
# (JOB/step_S/user/task_* under the slurmstepd scope), none of qosdeny's.
in_slurms_cgroups() {
	local cgs bad
	cgs=$(printf '%s\n' "$2" | sed -n 's/^cg=//p')
	bad=$(printf '%s\n' "$cgs" |
		grep -Ev "slurmstepd\.scope/$(job_dir_re)/step_[^/]+/user/task_[^/]+\$")
	check "$1: tasks report their cgroup" test -n "$cgs"
	assert_eq "$1: every task in Slurm's task cgroup" "" "$bad"
}

for setting in "task/none no" "task/cgroup no" "task/cgroup yes"; do
	read -r tp cd <<<"$setting"
	name="$tp ConstrainDevices=$cd"
	echo "# ---- $name"
	vm_slurm "$tp" "$cd" || continue
	log_mark

	as alice srun -A research --gres=gpu:1 bash -c "$(where_probe)"
	check_probe "$name: srun --gres=gpu:1 opens its GPU only" "$OUT"
	in_slurms_cgroups "$name: srun --gres=gpu:1" "$OUT"

	# A step on shards (4 a GPU here: slurm.sh) opens the one GPU they
	# are of, as Slurm's ConstrainDevices allows.
	for req in shard:1 shard:4; do
		as alice srun -A research --gres=$req bash -c "$(where_probe)"
		assert_match "$name: srun --gres=$req is on one GPU" \
			'^gpus=[01] ' "$(probe_lines "$OUT")"
		check_probe "$name: srun --gres=$req opens its GPU only" "$OUT"
		in_slurms_cgroups "$name: srun --gres=$req" "$OUT"
	done

	as alice srun -A research bash -c "$(gpu_probe)"
	assert_eq "$name: a step without GPUs opens none" \
		"gpus= 0=EPERM 1=EPERM" "$(probe_lines "$OUT")"

	# Per step: two tasks of a step holding both GPUs open both.
	as alice srun -A research -n2 --gres=gpu:2 bash -c "$(where_probe)"
	assert_eq "$name: srun -n2 --gres=gpu:2, both tasks open both GPUs" \
		"$(printf 'gpus=0,1 0=ENXIO 1=ENXIO\ngpus=0,1 0=ENXIO 1=ENXIO')" \
		"$(probe_lines "$OUT")"
	in_slurms_cgroups "$name: srun -n2" "$OUT"

	# A batch step and, inside its 1-GPU allocation, a step with none.
	{
		echo '#!/bin/bash'
		where_probe
		echo "srun --gres=none bash -c '$(gpu_probe | sed "s/'/'\\\\''/g")' | sed 's/^/step /'"
	} >"$ALICE/batch.sh"
	as alice sbatch -A research --gres=gpu:1 --wait -o "$ALICE/batch.out" \
		"$ALICE/batch.sh"
	OUT=$(cat "$ALICE/batch.out" 2>&1)
	check_probe "$name: batch step --gres=gpu:1" "$OUT"
	in_slurms_cgroups "$name: batch step" "$OUT"
	# (SLURM_JOB_GPUS of the batch step is inherited: the results count.)
	assert_eq "$name: --gres=none inside a 1-GPU allocation opens none" \
		"0=EPERM 1=EPERM" \
		"$(printf '%s\n' "$OUT" | grep '^step gpus=' | cut -d' ' -f3-)"

	if [ "$cd" = yes ]; then
		# Slurm confines each task to its own GPU; ours keeps that.
		as alice srun -A research -n2 --gpus-per-task=1 bash -c \
			'echo "task=$SLURM_LOCALID"; '"$(gpu_probe)"
		# (Slurm gives each task its own SLURM_STEP_GPUS there.)
		lines=$(probe_lines "$OUT" | cut -d' ' -f2- | sort)
		assert_eq "$name: --gpus-per-task=1, each task one GPU" \
			"$(printf '0=ENXIO 1=EPERM\n0=EPERM 1=ENXIO')" "$lines"
	fi

	# Nothing of qosdeny's was made; nothing of the jobs' is left.
	check "$name: jobs done" wait_for "the queue to empty" 60 \
		bash -c '[ -z "$(squeue -h)" ]'
	wait_for "cgroups to go" 10 no_leftovers "" 2>/dev/null
	assert_eq "$name: no cgroup of qosdeny's or of a job left" "" \
		"$(leftovers)"
	assert_not_contains "$name: no binding failed" "GPU binding failed" \
		"$(log_since)"
	assert_not_contains "$name: no 'Kill task failed'" "Kill task failed" \
		"$(log_since)"
	assert_not_contains "$name: node not drained" DRAIN "$(node_state)"
done
finish
