#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A user who plays with what qosdeny reads of her job (docs/gpu-and-usage.md,
# "What a user can and cannot do to the usage store"): the node asks
# slurmctld about a job through squeue's own fields, never a line that
# holds her job's name. A running job renamed to read like ended fields
# (`scontrol update name=`, which Slurm lets a job's owner do) is still
# charged the time it held its GPUs when slurmd restarts under it (an
# upgrade, a `systemctl restart`); one that lists several QoS is labelled
# with the QoS it ran under, not one its name gives. Where Redis has no
# password (the test cluster's), her job can write the usage store: what it
# writes there stops no one else's reporting.
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
has_record() { [ -n "$(redis_record "$1" "$2")" ]; } # JOB NODE

redis_clear
check "reporting on (plugstack.conf, slurmd restarted)" reporting_on

# 1. Renamed to look ended at its start, then slurmd restarted: its
# start-up sweep asks slurmctld about the open record.
# It runs until the test lets it end (stop-JOB): a slurmd restart on a
# busy host can take longer than a fixed run (run 32: the job had ended
# before the look at its open record).
as alice sbatch --parsable -N1 -w n1 --gres=gpu:1 \
	--wrap 'touch "started-$SLURM_JOB_ID"; until [ -e "stop-$SLURM_JOB_ID" ]; do sleep 0.2; done'
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
wait_for "job $j to run 6 s" 20 ran_at_least "$j" 6
touch "$QD_CLUSTER_DIR/users/alice/stop-$j"
check "the job ended" wait_for "job $j to end" 60 ended "$j"
check "its epilog sent the record" wait_for "job $j's record" 30 \
	has_record "$j" n1
read -r s e <<<"$(times "$j")"
rec=$(redis_record "$j" n1)
ran=$(($(field "$rec" end) - $(field "$rec" start)))
# The record starts at the prolog, which may run a second or two after
# slurmctld's StartTime (CI stop 50, 23.11 under ASan: 5 s against 6 s).
check "charged the ${ran}s it ran (slurmctld: $((e - s))s), not 0" \
	test "$ran" -ge $((e - s - 2)) -a "$ran" -le $((e - s + 2)) -a "$ran" -ge 4
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
		has_record "$m" "$node"
	assert_eq "its record's QoS is slurmctld's, not its name's" research \
		"$(field "$(redis_record "$m" "$node")" qos)"
fi

# 3. Alice's job writes the running set as another type, and damages
# charlie's account (batch). Charlie's record is refused alone, kept in the
# spool and said; bob's, after it in the same spool, is counted; share
# shows the rest and names what it left out. Repaired, `qosdeny flush`
# counts charlie's. (Before, one bad key stopped every record and share.)
C=$QD_CLUSTER_NAME
as alice srun -N1 -w n1 bash -c "redis-cli -h 127.0.0.1 -p $QD_REDIS_PORT \
	set 'qosdeny:{$C}:running' oops && redis-cli -h 127.0.0.1 \
	-p $QD_REDIS_PORT hset 'qosdeny:{$C}:account:batch' v x t 1"
assert_eq "alice's job wrote Redis" 0 "$RC"
as charlie sbatch --parsable -N1 -w n1 --gres=gpu:1 --wrap 'exec sleep 1'
c=${OUT%%;*}
check "charlie's job $c ended" wait_for "job $c to end" 60 ended "$c"
kept_closed() { spool_records | grep -q " job=$1 node=n1 .* end=[1-9]"; }
check "its record is kept in n1's spool" wait_for "job $c's record kept" 30 \
	kept_closed "$c"
check "n1 says why" wait_for "the refusal in n1's log" 10 \
	grep -q "qosdeny: damaged: qosdeny:{$C}:account:batch is not a usage hash (v, t)" \
	"$QD_LOG_DIR/slurmd-n1.log"
as bob sbatch --parsable -N1 -w n1 --gres=gpu:1 --wrap 'exec sleep 1'
b=${OUT%%;*}
check "bob's job $b ended" wait_for "job $b to end" 60 ended "$b"
check "bob's record is counted, after charlie's in the spool" \
	wait_for "job $b's record" 30 has_record "$b" n1
assert_contains "n1 left the running set alone, saying so" \
	"qosdeny:{$C}:running holds a string, not a hash: not updated" "$(n1_log)"
assert_eq "charlie's is not" "" "$(redis_record "$c" n1)"
errf=$(mktemp)
OUT=$("$QD" share -P 2>"$errf")
assert_eq "qosdeny share exits 0" 0 "$?"
assert_contains "with bob's usage" "research|bob|" "$OUT"
assert_contains "naming what it left out" \
	"qosdeny: share: 2 usage entries in Redis cannot be read and are left out" \
	"$(cat "$errf")"
rm -f "$errf"
rcli del "qosdeny:{$C}:account:batch" >/dev/null
OUT=$("$QD" flush 2>&1)
assert_eq "repaired, qosdeny flush exits 0" 0 "$?"
check "charlie's record is counted" has_record "$c" n1
check "once: charlie's usage is that record's" \
	near "$(stored_usage charlie)" "$(field "$(redis_record "$c" n1)" gpu_seconds)" 0.01
assert_eq "the spools are empty" "" "$(spool_records)"

reporting_off
redis_clear
finish
