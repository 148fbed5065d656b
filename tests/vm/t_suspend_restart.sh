#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A bound job under Slurm's cgroup/v2 can still be suspended and resumed
# (its task stops, then runs again), and survives a slurmd restart: the
# restarted slurmd still finds the job's step and its cancel ends cleanly.
# Beside task/cgroup with ConstrainDevices=yes (Debian 13's usual GPU node)
# and beside task/none.
source "$(dirname "$0")/vm-lib.sh"

# ticks FILE: the counter the job's task writes every 0.2 s.
ticks() { cat "$1" 2>/dev/null || echo 0; }
advanced() { [ "$(ticks "$1")" != "$2" ]; }
# still FILE SECONDS: no tick within that time (5 ticks a second).
still() {
	local t
	t=$(ticks "$1")
	sleep "$2"
	[ "$(ticks "$1")" == "$t" ]
}

for setting in "task/cgroup yes" "task/none no"; do
	read -r tp cd <<<"$setting"
	name="$tp ConstrainDevices=$cd"
	echo "# ---- $name"
	vm_slurm "$tp" "$cd" || continue

	f=$QD_CLUSTER_DIR/users/alice/ticks-$RANDOM
	log_mark
	j=$(sbatch_running --gres=gpu:1 \
		--wrap "i=0; while :; do i=\$((i + 1)); echo \$i >$f; sleep 0.2; done")
	check "$name: the job's task runs" wait_for "ticks" 30 advanced "$f" 0

	check "$name: scontrol suspend" scontrol suspend "$j"
	check "$name: suspended" wait_for "job $j suspended" 20 job_has_state "$j" SUSPENDED
	# SUSPENDED is slurmctld's word: the node stops the task after it, by
	# SIGTSTP, then SIGSTOP (PreemptParameters=suspend_grace_time, 2 s).
	check "$name: the suspended task stops" wait_for "the task to stop" 20 still "$f" 1
	t=$(ticks "$f")
	check "$name: and stays stopped (no tick in 2 s)" still "$f" 2
	check "$name: scontrol resume" scontrol resume "$j"
	check "$name: the resumed task runs again" wait_for "ticks after resume" 20 advanced "$f" "$t"

	check "$name: slurmd restarted under the job" bash "$VMDIR/slurm.sh" restart-slurmd
	check "$name: the job still runs after the restart" job_has_state "$j" RUNNING
	t=$(ticks "$f")
	check "$name: its task too" wait_for "ticks after restart" 20 advanced "$f" "$t"
	scancel "$j"
	ended_cleanly "$name, scancel after a slurmd restart" "$j"
done
finish
