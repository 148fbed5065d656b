# SPDX-License-Identifier: GPL-2.0-or-later
# signalled WHAT [SBATCH ARGS...]: `scancel -s USR1` reaches the task of a
# job's srun step (without --batch or --full it signals the job's steps,
# not the batch shell). Slurm signals the processes it finds in the step's
# task cgroups: a task moved out of them never gets it. Shared by the pure
# cgroup v2 VM (t_lifecycle.sh) and the GPU node's checks
# (tests/gpu-node/checks.sh), whose helpers it calls: log_mark,
# sbatch_running, ended_cleanly, job_state_is and $ALICE.
signalled() {
	local what=$1 j f=$ALICE/usr1-$RANDOM.out
	shift
	log_mark
	# shellcheck disable=SC2016
	j=$(sbatch_running "$@" -o "$f" -e "$f.err" --wrap 'srun --quiet bash -c '\''trap "echo GOT-USR1; exit 0" USR1; echo READY; sleep 300 & wait'\''') || {
		fail "$what: the job did not start"
		return
	}
	# The trap is set once the task says so; a USR1 before would kill it.
	check "$what: the srun step's task runs" wait_for "job $j's READY" 60 grep -q READY "$f"
	check "$what: scancel -s USR1" scancel -s USR1 "$j"
	# Where it did not, the job is cancelled, not left to run 300 s.
	if wait_for "GOT-USR1 in $f" 30 grep -q GOT-USR1 "$f"; then
		pass "$what: the task got USR1"
	else
		fail "$what: the task got USR1"
		scancel "$j"
	fi
	[ -s "$f" ] && sed 's/^/# output: /' "$f"
	ended_cleanly "$what" "$j"
	check "$what: the job completed (its task exited 0 on USR1)" \
		job_state_is "$j" COMPLETED
}
