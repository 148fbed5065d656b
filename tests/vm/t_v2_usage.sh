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

vm_slurm task/cgroup yes
redis_clear

as alice sbatch --parsable -A research --gres=gpu:2 --wrap 'sleep 3'
a=${OUT%%;*}
as alice srun -A research --gres=gpu:1 bash -c 'sleep 2; echo "job=$SLURM_JOB_ID"'
b=$(printf '%s\n' "$OUT" | sed -n 's/^job=//p')
as alice sbatch --parsable -A research --wrap 'sleep 1'
c=${OUT%%;*}
check "the jobs ended, epilogs included" wait_for "jobs to end" 60 queue_empty
check_record "batch, 2 GPUs" "$a" vm 2 3
check_record "srun, 1 GPU" "$b" vm 1 2
assert_eq "a job without GPUs leaves no record" "" "$(redis_record "$c" vm)"

# Cancelled: the record covers its start to its cancel. Its end is the job
# epilog's time, which on this emulated node comes seconds after
# slurmctld's EndTime when the machine is busy (the steps' teardown is
# slow under TCG): so the end must lie between that EndTime and the moment
# the record was seen in Redis, not within 2 s of the EndTime.
d=$(sbatch_running --gres=gpu:1 --wrap 'sleep 300')
sleep 2
scancel "$d"
check "the cancelled job ended" wait_for "job $d to end" 60 job_gone "$d"
check "its epilog's record reached Redis" wait_for "the record" 10 redis_record "$d" vm
seen=$(date +%s)
rec=$(redis_record "$d" vm)
started=$(unix_field "$d" StartTime) ended=$(unix_field "$d" EndTime)
r_start=$(field "$rec" start) r_end=$(field "$rec" end)
assert_eq "scancel, 1 GPU: job $d on vm, GPUs" 1 "$(field "$rec" gpus)"
check "scancel: the record starts at slurmctld's StartTime ($r_start, $started) within 2 s" \
	near "$r_start" "$started" 2
check "scancel: the record ends ($r_end) between slurmctld's EndTime ($ended) and its arrival in Redis ($seen)" \
	test "$r_end" -ge "$((ended - 1))" -a "$r_end" -le "$seen"
assert_eq "scancel, 1 GPU: gpu_seconds = GPUs x seconds" \
	"$((r_end - r_start))" "$(field "$rec" gpu_seconds)"
assert_eq "the record names alice and her account" "alice research" \
	"$(field "$rec" user) $(field "$rec" account)"
assert_eq "every record in Redis once, and only those" 3 \
	"$(rcli --scan --pattern "qosdeny:{vmv2}:rec:*" | wc -l)"
finish
