#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Where the job prolog runs decides where GPU time is counted from. Without
# PrologFlags=Alloc slurmd runs it at the first step on each node: a node of
# the allocation where no step runs has no record (slurmd logs why), and a
# node's time counts from its first step. With PrologFlags=Alloc it runs on
# every node at allocation, and the whole allocation counts.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
source "$(dirname "$0")/usage-lib.sh"

redis_clear
check "reporting on (plugstack.conf, slurmd restarted)" reporting_on

# run_sbatch USER ARGS...: a batch job, run to its end; sets J.
run_sbatch() {
	local user=$1
	shift
	as "$user" sbatch --parsable "$@"
	J=${OUT%%;*}
	wait_for "job $J" 30 queue_empty
}
# salloc holding 2 GPUs for 3 s, its one step at the end.
run_salloc() {
	as bob salloc -N1 --gres=gpu:2 sh -c 'sleep 3; srun true; echo "job=$SLURM_JOB_ID"'
	J=$(echo "$OUT" | sed -n 's/^job=//p')
	wait_for "job $J" 30 queue_empty
}
seconds() { # JOB NODE: how long the record in Redis lasted
	local rec
	rec=$(redis_record "$1" "$2")
	[ -n "$rec" ] && echo $(($(field "$rec" end) - $(field "$rec" start)))
}

run_sbatch alice -N2 --gres=gpu:1 --wrap 'sleep 2'
assert_eq "no Alloc: the batch node is counted" 1 "$(redis_record "$J" n1 | grep -c gpus=1)"
assert_eq "no Alloc: the node without a step has no record" "" "$(redis_record "$J" n2)"
assert_contains "and slurmd logged why" \
	"qosdeny: job $J: no usage record of its 1 GPU(s) on n2 was opened, so none is counted here: its prolog did not run on this node (with PrologFlags=Alloc it runs at allocation on every node)" \
	"$(cat "$QD_LOG_DIR/slurmd-n2.log")"
run_salloc
s=$(seconds "$J" n1)
e=$(job_elapsed "$J")
check "no Alloc: salloc's node counts from its first step, at the end (${s}s of the job's ${e}s)" \
	test -n "$s" -a "${s:-9}" -le 1 -a "$e" -ge 3

# reconfigure [EXTRA]: slurm.conf written again (with the lines of file
# EXTRA), slurmctld and slurmd restarted on it.
reconfigure() {
	QD_SLURM_CONF_EXTRA=${1:-} bash "$CLUSTER" write-conf >/dev/null &&
		bash "$CLUSTER" restart-ctld >/dev/null &&
		bash "$CLUSTER" restart-slurmd >/dev/null
}
extra=$QD_CLUSTER_DIR/prolog-alloc.conf
echo "PrologFlags=Alloc" >"$extra"
check "PrologFlags=Alloc in slurm.conf" reconfigure "$extra"

# Slurm's own start and end of the job, within 2 s.
whole_job() { # WHAT JOB NODE
	local s e
	s=$(seconds "$2" "$3")
	e=$(job_elapsed "$2")
	check "$1 (${s}s, slurmctld says ${e}s)" \
		test -n "$s" -a "${s:-0}" -ge $((e - 2)) -a "${s:-0}" -le $((e + 2))
}
run_sbatch alice -N2 --gres=gpu:1 --wrap 'sleep 2'
whole_job "Alloc: n1 is counted for the whole job" "$J" n1
whole_job "Alloc: n2, where no step ran, too" "$J" n2
run_salloc
whole_job "Alloc: salloc's node counts from the allocation" "$J" n1
assert_eq "the spools are empty" "" "$(spool_records)"

: >"$PLUGSTACK"
check "slurm.conf and slurmd as before" reconfigure
rm -f "$extra"
redis_clear
finish
