#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A user who plays with what qosdeny reads of her job (docs/gpu-and-usage.md,
# "What a user can and cannot do to the usage store"): the node asks
# slurmctld about a job through squeue's own fields, never a line that
# holds her job's name. A running job renamed to read like ended fields
# (`scontrol update name=`, which Slurm lets a job's owner do) is still
# charged the time it held its GPUs when slurmd restarts under it (an
# upgrade, a `systemctl restart`); one that lists several QoS is labelled
# with the QoS it ran under, not one its name gives.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
source "$(dirname "$0")/usage-lib.sh"

# times JOB: "START END" as slurmctld has them, Unix seconds, from squeue's
# fields (the job's name holds text like scontrol's here).
times() {
	SLURM_TIME_FORMAT=%s squeue -h -t all -j "$1" -O 'StartTime:|,EndTime:|' |
		tr '|' ' '
}
ran_at_least() { # JOB SECONDS
	local start
	start=$(times "$1" | cut -d' ' -f1)
	[ -n "$start" ] && [ $(($(date +%s) - start)) -ge "$2" ]
}
ended() { [ -z "$(squeue -h -j "$1" -t R,CG,S -o %i 2>/dev/null)" ]; }
n1_log() { cat "$QD_LOG_DIR/slurmd-n1.log"; }

redis_clear
check "reporting on (plugstack.conf, slurmd restarted)" reporting_on

# 1. Renamed to look ended at its start, then slurmd restarted: its
# start-up sweep asks slurmctld about the open record.
as alice sbatch --parsable -N1 -w n1 --gres=gpu:1 \
	--wrap 'touch "started-$SLURM_JOB_ID"; exec sleep 8'
j=${OUT%%;*}
check "job $j runs on n1" wait_for "job $j to start" 20 \
	test -e "$QD_CLUSTER_DIR/users/alice/started-$j"
check "for 2 s" wait_for "job $j to run 2 s" 20 ran_at_least "$j" 2
start=$(times "$j" | cut -d' ' -f1)
as alice scontrol update jobid="$j" \
	name="x JobState=COMPLETED StartTime=$start EndTime=$start Restarts=0"
assert_eq "alice renamed her running job" 0 "$RC"
check "slurmd n1 restarted under it" \
	bash "$CLUSTER" restart-slurmd n1 >/dev/null
assert_contains "its prolog's record stays open" " job=$j node=n1 " \
	"$(spool_records | grep " end=0 ")"
check "the job ended" wait_for "job $j to end" 60 ended "$j"
check "its epilog sent the record" wait_for "job $j's record" 30 \
	test -n "$(redis_record "$j" n1)"
read -r s e <<<"$(times "$j")"
rec=$(redis_record "$j" n1)
ran=$(($(field "$rec" end) - $(field "$rec" start)))
check "charged the ${ran}s it ran (slurmctld: $((e - s))s), not 0" \
	test "$ran" -ge $((e - s - 2)) -a "$ran" -le $((e - s + 2)) -a "$ran" -ge 6
assert_not_contains "slurmd never closed it as ended without its epilog" \
	"qosdeny: job $j ended on n1 without its epilog" "$(n1_log)"
check "alice's usage is that record's" \
	near "$(stored_usage alice)" "$(field "$rec" gpu_seconds)" 0.01
assert_eq "the spools are empty" "" "$(spool_records)"

# 2. 24.11 and later: a job that may run under several QoS runs under
# research (interactive's per-user cap of 2 GPUs keeps it out), renamed to
# name interactive: the epilog asks slurmctld, and the record says research.
if slurm_at_least 24.11; then
	as alice sbatch --parsable -N1 --qos=interactive,research --gres=gpu:3 \
		--wrap 'touch "started-$SLURM_JOB_ID"; exec sleep 3'
	m=${OUT%%;*}
	check "job $m runs" wait_for "job $m to start" 20 \
		test -e "$QD_CLUSTER_DIR/users/alice/started-$m"
	as alice scontrol update jobid="$m" name="x QOS=interactive"
	assert_eq "alice renamed it" 0 "$RC"
	check "it ended" wait_for "job $m to end" 60 ended "$m"
	node=$(squeue -h -t all -j "$m" -O 'NodeList:|' | tr -d '|')
	check "its epilog sent the record" wait_for "job $m's record" 30 \
		test -n "$(redis_record "$m" "$node")"
	assert_eq "its record's QoS is slurmctld's, not its name's" research \
		"$(field "$(redis_record "$m" "$node")" qos)"
fi

reporting_off
redis_clear
finish
