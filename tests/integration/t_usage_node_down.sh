#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A node that goes down with a job on it charges the job for the time it
# ran there, not for the time the node was down (docs/gpu-and-usage.md,
# "When a node goes down with a job"): slurmd, the job's slurmstepd and its processes are killed
# -9, slurmctld ends the job (NODE_FAIL) or requeues it, the node stays
# down a measured time, and at slurmd's next start its open record is
# closed at the end slurmctld (or slurmdbd, for a requeued job's earlier
# run) gives, logged once with its source and seconds. A requeued job's
# two runs count once each, for the time each ran.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
source "$(dirname "$0")/usage-lib.sh"

redis_clear
check "reporting on (plugstack.conf, slurmd restarted)" reporting_on

# slurmd's heartbeat, the bound when neither slurmctld nor slurmdbd has a
# job's end: from 24.05 slurmd forks into the background before loading
# plugins; 22.05's does so after, without -D (as here), which would leave
# the heartbeat's thread behind.
if slurm_at_least 24.05; then
	alive=$QD_SPOOL_DIR/n1/qosdeny/.slurmd-alive
	beats() { [ -e "$alive" ] && [ $(($(date +%s) - $(stat -c %Y "$alive"))) -le 60 ]; }
	check "slurmd keeps its heartbeat in the spool" wait_for "$alive" 10 beats
else
	assert_contains "22.05's slurmd without -D says it keeps no heartbeat" \
		"qosdeny: no heartbeat: this slurmd forks into the background" \
		"$(cat "$QD_LOG_DIR/slurmd-n1.log")"
fi

ran_at_least() { # JOB SECONDS
	local start
	start=$(unix_field "$1" StartTime)
	[ -n "$start" ] && [ $(($(date +%s) - start)) -ge "$2" ]
}
down_for() { [ $(($(date +%s) - $1)) -ge "$2" ]; }
n1_log() { cat "$QD_LOG_DIR/slurmd-n1.log"; }

# 1. A job ended NODE_FAIL: charged until slurmctld's end, not the downtime.
as alice sbatch --parsable -N1 -w n1 --no-requeue --gres=gpu:2 \
	--wrap 'touch "started-$SLURM_JOB_ID"; exec sleep 300'
j=${OUT%%;*}
check "job $j runs on n1" wait_for "job $j to start" 20 \
	test -e "$QD_CLUSTER_DIR/users/alice/started-$j"
check "for 5 s" wait_for "job $j to run 5 s" 20 ran_at_least "$j" 5
crash_node n1 "$j"
down=$(date +%s)
check "the job ended NODE_FAIL" wait_for "job $j to end" 60 \
	eval '[ "$(ctld_state "$j")" = NODE_FAIL ]'
end=$(unix_field "$j" EndTime)
start=$(unix_field "$j" StartTime)
assert_contains "its open record stays in n1's spool" " job=$j node=n1 " \
	"$(spool_records | grep " end=0 ")"
check "n1 down for 12 s" wait_for "n1's downtime" 30 down_for "$down" 12
check "n1 back" node_back n1
rec=$(redis_record "$j" n1)
assert_eq "slurmd's start closed and sent it at slurmctld's end" \
	"$end" "$(field "$rec" end)"
ran=$(($(field "$rec" end) - $(field "$rec" start)))
check "charging the ${ran}s it ran (slurmctld: $((end - start))s), not the downtime" \
	test "$ran" -le $((end - start + 2)) -a "$ran" -ge $((end - start - 2))
assert_eq "2 GPUs x ${ran}s" $((2 * ran)) "$(field "$rec" gpu_seconds)"
check "alice's usage is that" near "$(stored_usage alice)" $((2 * ran)) 0.01
assert_eq "slurmd's log says it once, with the source and the seconds" 1 \
	"$(n1_log | grep -c "qosdeny: job $j ended on n1 without its epilog: its usage record is closed at $end, the end slurmctld (NODE_FAIL) gives, charging $ran s, $((2 * ran)) GPU-seconds: ")"
assert_eq "the spools are empty" "" "$(spool_records)"

# 2. A requeued job whose node crashes between its runs: its first run on
# n1 closes at that run's end (slurmdbd's, as slurmctld now has the second
# run), the second, on n2, counts its own time; each once.
as bob sbatch --parsable -N1 -w n1 --requeue --gres=gpu:1 \
	--wrap 'touch "started-$SLURM_JOB_ID-$SLURM_RESTART_COUNT"; sleep 4'
k=${OUT%%;*}
check "job $k runs on n1" wait_for "job $k to start" 20 \
	test -e "$QD_CLUSTER_DIR/users/bob/started-$k-"
check "for 3 s" wait_for "job $k to run 3 s" 20 ran_at_least "$k" 3
start0=$(unix_field "$k" StartTime)
crashed=$(($(date +%s) - start0))
crash_node n1 "$k"
check "the job was requeued" wait_for "job $k requeued" 30 \
	eval '[ "$(squeue -h -j "$k" -O RestartCnt:\|)" = "1|" ]'
down=$(date +%s)
check "n1 down for 6 s" wait_for "n1's downtime" 20 down_for "$down" 6
check "n1 back" node_back n1
# Slurm holds a requeued job back for its credentials' lifetime (121 s),
# and a node that cached them runs no prolog for the next run: n2 then.
scontrol update jobid="$k" nodelist=n2 starttime=now
check "its second run ran" wait_for "job $k to end" 90 queue_empty
recs=$(rcli --scan --pattern "qosdeny:{$QD_CLUSTER_NAME}:rec:$k:*" |
	xargs -r redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" mget)
assert_eq "Redis has two records of it, one per run" 2 \
	"$(echo "$recs" | grep -c "job=$k ")"
rec0=$(echo "$recs" | grep " node=n1 .* restart=0 ")
rec1=$(echo "$recs" | grep " node=n2 .* restart=1 ")
ran0=$(($(field "$rec0" end) - $(field "$rec0" start)))
ran1=$(($(field "$rec1" end) - $(field "$rec1" start)))
check "the first run is charged the ${ran0}s it ran before the crash (${crashed}s), not the downtime" \
	test "$ran0" -ge $((crashed - 2)) -a "$ran0" -le $((crashed + 2))
check "the second its own ${ran1}s (4 s)" test "$ran1" -ge 3 -a "$ran1" -le 8
check "bob's usage is the two runs' once each" \
	near "$(stored_usage bob)" $((ran0 + ran1)) 0.01
assert_contains "slurmd's log names the first run's end and its source" \
	"qosdeny: job $k ended on n1 without its epilog: its usage record is closed at $(field "$rec0" end), the end slurm" \
	"$(n1_log)"
assert_eq "the spools are empty" "" "$(spool_records)"

reporting_off
redis_clear
finish
