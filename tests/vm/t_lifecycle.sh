#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A job holding one of the node's two GPUs, its task bound by qosdeny, ends
# as it would without qosdeny on Slurm's cgroup/v2 with proctrack/cgroup:
# by scancel, by its time limit, by srun's interrupt and by scontrol
# requeue, the node idle again (never drained), no `Kill task failed`, no
# cgroup left. A signal of scancel -s reaches a bound task. Beside each
# TaskPlugin: task/none, and task/cgroup with ConstrainDevices=no and =yes.
# The binding itself is checked in each.
source "$(dirname "$0")/vm-lib.sh"
source "$(dirname "$0")/signalled.sh"
ALICE=$QD_CLUSTER_DIR/users/alice

# srun_interrupted: alice's srun holding a GPU, aborted by its interrupt,
# as a user's Ctrl-C twice within a second does. srun's signal thread
# takes one SIGINT with --quit-on-interrupt down the very branch of its
# _handle_intr() that a second SIGINT within a second takes (22.05 to
# 26.05): the step sent SIGINT, then ended by force. One SIGINT, not a
# pair, because under TCG the pair often missed: srun measures that second
# from before its status RPC, which TCG makes slower than a second, and
# two sent closer together reach sigwait() as one (26.05 needed up to four
# pairs, 12 s lost after each).
srun_interrupted() {
	local pid job
	log_mark
	(cd "$QD_CLUSTER_DIR/users/alice" &&
		exec setpriv --reuid=alice --regid=alice --init-groups \
			srun -A research --gres=gpu:1 --quit-on-interrupt \
			sleep 300) >/dev/null 2>&1 &
	pid=$!
	if ! wait_for "alice's srun step" 60 has_step_of alice; then
		fail "$1: srun's step did not start"
		kill -9 "$pid"
		return
	fi
	job=$(squeue -h -u alice -t R -o %i | head -n 1)
	wait_for "job $job's task" 30 has_job_pids "$job"
	kill -INT "$pid"
	wait_for "srun to exit" 60 gone_pid "$pid" 2>/dev/null
	check "$1: srun exits after its interrupt" gone_pid "$pid"
	ended_cleanly "$1" "$job"
}

has_step_of() { squeue -h -s -u "$1" -o %i | grep -qv '\.extern$'; }
gone_pid() { ! kill -0 "$1" 2>/dev/null; }

for setting in "task/none no" "task/cgroup no" "task/cgroup yes"; do
	read -r tp cd <<<"$setting"
	name="$tp ConstrainDevices=$cd"
	echo "# ---- $name"
	vm_slurm "$tp" "$cd" || continue

	# Time limit: the job's end moved to now (what --time would do at its
	# limit, without waiting a minute); slurmctld ends it at its next time
	# limit check, within 30 s. The binding is checked meanwhile.
	log_mark
	tl=$(sbatch_running --gres=gpu:1 --wrap 'sleep 300')
	scontrol update jobid="$tl" EndTime=now+1

	as alice srun -A research --gres=gpu:1 bash -c "$(gpu_probe)"
	check_probe "$name: srun --gres=gpu:1 opens its GPU only" "$OUT"
	as alice srun -A research bash -c "$(gpu_probe)"
	assert_eq "$name: a step without GPUs opens none" "gpus= 0=EPERM 1=EPERM" \
		"$(printf '%s\n' "$OUT" | grep '^gpus=')"

	ended_cleanly "$name, time limit" "$tl"
	check "$name, time limit: job $tl ended by it" job_state_is "$tl" TIMEOUT

	log_mark
	j=$(sbatch_running --gres=gpu:1 --wrap 'sleep 300')
	scancel "$j"
	ended_cleanly "$name, scancel" "$j"

	srun_interrupted "$name, srun interrupted"

	signalled "$name, scancel -s USR1"

	log_mark
	j=$(sbatch_running --gres=gpu:1 --requeue --wrap 'sleep 300')
	scontrol requeue "$j"
	ended_cleanly "$name, scontrol requeue" "$j" requeued
done
finish
