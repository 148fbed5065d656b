#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The job's usage record on Slurm's cgroup/v2 is what it is on v1
# (tests/integration/t_usage.sh): the plugin's job prolog and epilog send
# Redis one record per job and node, with the job's GPUs and its seconds,
# gpu_seconds their product; a job ended by scancel is counted too, and a
# job without GPUs leaves none. Beside task/cgroup, ConstrainDevices=yes.
source "$(dirname "$0")/vm-lib.sh"
# usage-lib.sh's record helpers, on the VM's cluster and Redis.
export QD_SLURM_ETC=$QD_CLUSTER_DIR/etc QD_REDIS_PORT=6379 QD_CLUSTER_NAME=vmv2
source /qosdeny/tests/integration/usage-lib.sh
ALICE=$QD_CLUSTER_DIR/users/alice

# check_window WHAT JOB GPUS FIRST LAST SEEN: the job's record on vm lies
# within what this guest saw of the job. t_usage.sh's bound on the host
# (a record within 2 s of slurmctld's times) is none for an emulated node
# that shares its core: beside other work its prolog ran 3 s after
# slurmctld's StartTime and a 3 s job lasted 16 s. These bounds hold at
# any speed, on the one clock slurmctld, slurmd and the task read:
# - it starts no earlier than slurmctld's StartTime and no later than
#   FIRST, the task's first `date +%s` (the prolog runs before the task);
# - it ends no earlier than LAST, the task's last `date +%s` (FIRST for a
#   task cancelled), nor than slurmctld's EndTime (the epilog runs after
#   both), and no later than SEEN, a moment after it was in Redis.
# A second less where slurmctld's times, rounded down, are the bound.
check_window() {
	local what=$1 job=$2 gpus=$3 first=$4 last=$5 seen=$6 rec s e started ended
	rec=$(redis_record "$job" vm)
	if [ -z "$rec" ]; then
		fail "$what: no record of job $job on vm in Redis"
		return
	fi
	s=$(field "$rec" start) e=$(field "$rec" end)
	started=$(unix_field "$job" StartTime) ended=$(unix_field "$job" EndTime)
	assert_eq "$what: job $job on vm, GPUs" "$gpus" "$(field "$rec" gpus)"
	check "$what: the record starts ($s) between slurmctld's StartTime ($started) and the task's start (${first:-none})" \
		test -n "$first" -a "$s" -ge "$((started - 1))" -a "$s" -le "${first:-0}"
	check "$what: the record ends ($e) between the task's end (${last:-none}), slurmctld's EndTime ($ended) and its arrival in Redis ($seen)" \
		test -n "$last" -a "$e" -ge "${last:-0}" -a "$e" -ge "$((ended - 1))" -a "$e" -le "$seen"
	assert_eq "$what: job $job on vm, gpu_seconds = GPUs x seconds" \
		"$((gpus * (e - s)))" "$(field "$rec" gpu_seconds)"
}

# stamps TEXT: the lines of TEXT that are Unix times (the task's), on one line.
stamps() { printf '%s\n' "$1" | grep -E '^[0-9]{10}$' | tr '\n' ' '; }

vm_slurm task/cgroup yes
redis_clear

as alice sbatch --parsable -A research --gres=gpu:2 -o "$ALICE/usage-a.out" \
	--wrap 'date +%s; sleep 3; date +%s'
a=${OUT%%;*}
as alice srun -A research --gres=gpu:1 \
	bash -c 'date +%s; sleep 2; echo "job=$SLURM_JOB_ID"; date +%s'
b=$(printf '%s\n' "$OUT" | sed -n 's/^job=//p')
read -r b_first b_last _ <<<"$(stamps "$OUT")"
as alice sbatch --parsable -A research --wrap 'sleep 1'
c=${OUT%%;*}
check "the jobs ended, epilogs included" wait_for "jobs to end" 60 queue_empty
read -r a_first a_last _ <<<"$(stamps "$(cat "$ALICE/usage-a.out")")"
both_records() { redis_record "$a" vm >/dev/null && redis_record "$b" vm >/dev/null; }
check "the records of the jobs with GPUs reached Redis" wait_for "the records" 10 both_records
seen=$(date +%s)
check_window "batch, 2 GPUs" "$a" 2 "$a_first" "$a_last" "$seen"
check_window "srun, 1 GPU" "$b" 1 "$b_first" "$b_last" "$seen"
assert_eq "a job without GPUs leaves no record" "" "$(redis_record "$c" vm)"

# Cancelled: the record covers its start to its cancel, the job epilog's
# time, which on this emulated node comes seconds after slurmctld's
# EndTime when the machine is busy (the steps' teardown is slow under TCG).
d=$(sbatch_running --gres=gpu:1 -o "$ALICE/usage-d.out" --wrap 'date +%s; sleep 300')
check "the cancelled job's task wrote its start" \
	wait_for "its start" 30 test -s "$ALICE/usage-d.out"
sleep 2
scancel "$d"
check "the cancelled job ended" wait_for "job $d to end" 60 job_gone "$d"
check "its epilog's record reached Redis" wait_for "the record" 10 redis_record "$d" vm
seen=$(date +%s)
read -r d_first _ <<<"$(stamps "$(cat "$ALICE/usage-d.out")")"
check_window "scancel, 1 GPU" "$d" 1 "$d_first" "$d_first" "$seen"
rec=$(redis_record "$d" vm)
assert_eq "the record names alice and her account" "alice research" \
	"$(field "$rec" user) $(field "$rec" account)"
assert_eq "every record in Redis once, and only those" 3 \
	"$(rcli --scan --pattern "qosdeny:{vmv2}:rec:*" | wc -l)"
finish
