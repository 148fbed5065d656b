#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# site_factor/qosdeny (docs/fair-share.md, "GPU fair share in job priority"): GPU fair share as each pending
# job's site factor, under priority/multifactor with every other weight 0,
# so a job's priority is its site factor alone. sprio's SITE is compared
# with round(weight x FairShare) of `qosdeny share -P` at the same moment;
# running jobs count while they run and once when they end; Redis stopped
# or silent leaves submissions fast and the factors as they were; a second
# cluster's usage counts where FairShareClusters names it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
source "$(dirname "$0")/usage-lib.sh"
EXTRA=$QD_CLUSTER_DIR/site-factor.conf
WEIGHT=10000
INTERVAL=5
# The site factor's Redis exchanges give up after this: a submission that
# waited on one would take that much longer.
TIMEOUT_MS=3000

# priority PARAMETERS: slurmctld restarted with the site factor and these
# PrioritySiteFactorParameters; the restart's status.
priority() {
	cat >"$EXTRA" <<EOF
PriorityType=priority/multifactor
PrioritySiteFactorPlugin=site_factor/qosdeny
PrioritySiteFactorParameters=$1
PriorityCalcPeriod=1
PriorityFlags=ACCRUE_ALWAYS
PriorityWeightAge=0
PriorityWeightFairshare=0
PriorityWeightJobSize=0
PriorityWeightPartition=0
PriorityWeightQOS=0
EOF
	QD_SLURM_CONF_EXTRA=$EXTRA bash "$CLUSTER" write-conf >/dev/null &&
		bash "$CLUSTER" restart-ctld >"$QD_CLUSTER_DIR/restart-ctld.out" 2>&1
}

# site JOB: the job's SITE column in sprio.
site() { sprio -h -j "$1" -o "%S" 2>/dev/null | tr -d ' '; }

# expected_site USER ACCOUNT: round(weight x FairShare) from qosdeny share.
expected_site() {
	local fs
	fs=$("$QD" share -P 2>/dev/null | awk -F'|' -v a="$2" -v u="$1" \
		'$1 == a && $2 == u { print $7 }')
	awk -v w=$WEIGHT -v f="${fs:-1}" 'BEGIN { printf "%d\n", int(w * f + 0.5) }'
}

# site_is JOB VALUE: sprio shows VALUE for the job.
site_is() { [ "$(site "$1")" == "$2" ]; }

# site_follows JOB USER ACCOUNT: the job's SITE is what qosdeny share gives
# its user now (compared twice, around the sprio call, so that a refresh
# between the two reads is not taken for a mismatch).
site_follows() {
	local before after got
	before=$(expected_site "$2" "$3")
	got=$(site "$1")
	after=$(expected_site "$2" "$3")
	[ "$got" == "$before" ] || [ "$got" == "$after" ]
}

# pending_job USER ARGS...: a job that stays pending (begin time an hour
# away; sprio lists it with PriorityFlags=ACCRUE_ALWAYS); prints its id.
pending_job() {
	local user=$1
	shift
	as "$user" sbatch --parsable --begin=now+3600 "$@" --wrap 'sleep 1'
	echo "${OUT%%;*}"
}

log_count() { ctld_log | grep -c "$1"; }

sacctmgr -i modify account research set fairshare=500 >/dev/null
sacctmgr -i modify account batch set fairshare=100 >/dev/null
sacctmgr -i modify user alice,bob,charlie set fairshare=1 >/dev/null
redis_clear
check "reporting on (plugstack.conf, slurmd restarted)" reporting_on
# A Redis call under slurmctld's locks would hold them this long when Redis
# is silent: the submissions timed below would show it.
echo "required spank_qosdeny.so redis=$QD_REDIS_ADDR timeout_ms=$TIMEOUT_MS" >"$PLUGSTACK"

# --- Bad parameters: fatal at start, naming the text.
for bad in "weight=abc" "frobnicate=1" "interval=4" "weight=1000001"; do
	if priority "$bad"; then
		fail "PrioritySiteFactorParameters=$bad: slurmctld started"
	else
		pass "PrioritySiteFactorParameters=$bad stops slurmctld"
	fi
	assert_contains "the fatal line names '$bad'" "'$bad'" \
		"$(ctld_log | grep 'fatal' | tail -n 1)"
done

L=$(log_lines)
check "slurmctld starts with the site factor" priority "weight=$WEIGHT,interval=$INTERVAL"
assert_contains "the start line" \
	"qosdeny: site factor: weight=$WEIGHT interval=$INTERVAL clusters=$QD_CLUSTER_NAME" \
	"$(ctld_log)"
# The test's Redis has no password (t_redis_failover.sh: one that has):
# said at a start of the site factor, never twice for one (24.05 and
# later, slurmctld can start twice here, re-executing itself).
open_said() {
	local starts warns
	starts=$(log_since "$L" | grep -c "qosdeny: site factor: weight=")
	warns=$(log_since "$L" | grep -c "qosdeny: site factor: warning: redis $QD_REDIS_ADDR answers without AUTH")
	[ "$warns" -ge 1 ] && [ "$warns" -le "$starts" ]
}
check "the site factor says, at most once per start, that Redis is open to any job" \
	wait_for "the warning" 30 open_said

# --- No usage anywhere: FairShare 1 for everyone.
a0=$(pending_job alice -A research)
check "no usage: alice's job's SITE is the weight" wait_for "SITE of $a0" 20 site_is "$a0" $WEIGHT
c0=$(pending_job charlie -A batch)
check "so is charlie's" site_is "$c0" $WEIGHT

# --- A running job counts while it runs.
# Over both nodes, so that its usage arrives as two records, one per node
# (a step on each: without PrologFlags=Alloc a node reports from its first
# step on).
as charlie sbatch --parsable -A batch -N2 --gres=gpu:1 --wrap 'srun sleep 300'
c1=${OUT%%;*}
step_running() { squeue -h -s -j "$c1" -o %i 2>/dev/null | grep -qx "$c1\.0"; }
check "charlie's 2-node, 2-GPU job runs its step" wait_for "step $c1.0" 30 step_running
running_entry() { [ -n "$(rcli hget "qosdeny:{$QD_CLUSTER_NAME}:running" "$c1")" ]; }
check "the running job is published to Redis within the interval" \
	wait_for "running entry of $c1" $((INTERVAL * 3)) running_entry
charlie_usage() {
	"$QD" share -P | awk -F'|' '$1 == "batch" && $2 == "charlie" { print $5 }'
}
# A refresh within the job's first second publishes it with 0 GPU-seconds:
# the next one, INTERVAL seconds later, counts it.
counted() { u1=$(charlie_usage); [ "${u1:-0}" -gt 0 ]; }
check "qosdeny share counts charlie's running job" \
	wait_for "charlie's usage" $((INTERVAL * 3)) counted
echo "# RawUsage $u1"
grows() { [ "$(charlie_usage)" -gt "$u1" ]; }
check "and its usage grows while it runs" wait_for "charlie's usage to grow" $((INTERVAL * 3)) grows
c2=$(pending_job charlie -A batch)
check "charlie's new job has his fair share as SITE at submission" \
	site_follows "$c2" charlie batch
check "which is below the weight" test "$(site "$c2")" -lt $WEIGHT
a1=$(pending_job alice -A research)
check "alice, without usage, keeps the weight" site_is "$a1" $WEIGHT

# --- At its end the records replace the running entry: counted once.
scancel "$c1"
has_records() { [ -n "$(redis_record "$c1" n1)" ] && [ -n "$(redis_record "$c1" n2)" ]; }
check "charlie's job ended and both nodes' epilogs reported it" \
	wait_for "job $c1's records" 60 has_records
# The batch script runs on n1 from the job's start; n2's prolog waits for
# the srun's step.
check_record "charlie's ended job" "$c1" n1 1 "$(job_elapsed "$c1")"
check_record "charlie's ended job" "$c1" n2 1 0 from-step
no_running_entry() { ! running_entry; }
check "its running entry is gone" no_running_entry
settled() { [ "$(charlie_usage)" == "${USED[charlie]}" ]; }
check "charlie's RawUsage is his records' GPUs x seconds, once (${USED[charlie]})" \
	wait_for "charlie's usage to settle" $((INTERVAL * 3)) settled
assert_eq "no running entry is left" 0 "$(rcli hlen "qosdeny:{$QD_CLUSTER_NAME}:running")"
# stays SECONDS COMMAND...: the command holds every 0.5 s for that long.
stays() {
	local i
	for ((i = 0; i < $1 * 2; i++)); do
		"${@:2}" || return 1
		sleep 0.5
	done
}
check "and stays once over two more refreshes" stays $((INTERVAL * 2)) settled

# --- A job whose node fails (NODE_FAIL): its running entry stays while
# the node is down, and its record replaces it when slurmd's start closes
# it, even late: counted once, never beside it.
as charlie sbatch --parsable -A batch -w n1 --no-requeue --gres=gpu:1 \
	--wrap 'exec sleep 300'
c4=${OUT%%;*}
c4_entry() { rcli hget "qosdeny:{$QD_CLUSTER_NAME}:running" "$c4"; }
c4_published() { [ -n "$(c4_entry)" ]; }
check "charlie's job on n1 is published" wait_for "running entry of $c4" \
	$((INTERVAL * 3)) c4_published
crash_node n1 "$c4"
failed() { [ "$(ctld_state "$c4")" == NODE_FAIL ]; }
check "n1 failed under it: NODE_FAIL" wait_for "job $c4 to fail" 60 failed
entry=$(c4_entry)
unchanged() { [ -n "$entry" ] && [ "$(c4_entry)" == "$entry" ]; }
check "its entry stays over two refreshes" stays $((INTERVAL * 2)) unchanged
check "n1 back" node_back n1
has_c4_record() { [ -n "$(redis_record "$c4" n1)" ]; }
check "slurmd's start sent the job's record" \
	wait_for "job $c4's record" 20 has_c4_record
USED[charlie]=$((USED[charlie] + $(field "$(redis_record "$c4" n1)" gpu_seconds)))
check "which replaced its running entry" test -z "$(c4_entry)"
check "charlie's RawUsage counts the job once (${USED[charlie]})" \
	wait_for "charlie's usage to settle" $((INTERVAL * 3)) settled

# --- Pending jobs follow within interval + PriorityCalcPeriod, and start
# in that order when nodes free up.
c3=$(pending_job charlie -A batch)
check "charlie's pending job follows his fair share" site_follows "$c3" charlie batch
# c0, pending since before charlie's usage, follows it at the next
# PriorityCalcPeriod (1 minute) after a refresh (nothing runs meanwhile, so
# the fair shares stand still).
check "charlie's job pending from the start follows his usage" \
	wait_for "job $c0 to follow" $((60 + INTERVAL * 3)) site_follows "$c0" charlie batch
check "which is now below the weight" test "$(site "$c0")" -lt $WEIGHT
blocker=$(submit_running bob -A research --gres=gpu:4 -w n1 --wrap 'sleep 300')
jc=$(as charlie sbatch --parsable -A batch --gres=gpu:4 -w n1 --wrap 'sleep 1'; echo "${OUT%%;*}")
ja=$(as alice sbatch --parsable -A research --gres=gpu:4 -w n1 --wrap 'sleep 300'; echo "${OUT%%;*}")
check "alice's waiting job outranks charlie's" \
	test "$(site "$ja")" -gt "$(site "$jc")"
scancel "$blocker"
# alice's job holds n1's 4 GPUs until cancel_all: charlie's cannot start.
check "when n1 frees up, alice's job starts first" wait_for "job $ja to start" 60 job_running "$ja"
assert_eq "while charlie's still waits" PENDING "$(job_state "$jc")"
cancel_all

# --- A job under an account no key can hold as it is (sacctmgr takes
# 'ml#x' and 60 a's): escaped it would be 66 characters, so it is stored
# hashed, ~SHA1 (docs/gpu-and-usage.md, "Names in the usage store"),
# published so while it runs, charged so when it ends, and shown by share
# under its association, the name printed whole (escaped); every other
# factor still refreshed. (Before record version 3 an account with '#'
# was left out, and its nodes wrote no record; until the hashed form, one
# this long too.)
long_acct="ml#x$(printf 'a%.0s' {1..60})"
hashed="~$(printf '%s' "$long_acct" | sha1sum | cut -c1-40)"
sacctmgr -i add account "$long_acct" >/dev/null
sacctmgr -i add user alice account="$long_acct" >/dev/null
begins=$(log_count "site factor: .*the factors keep their last values")
odd=$(submit_running alice -A "$long_acct" --gres=gpu:1)
check "a job runs under account '$long_acct'" test -n "$odd"
odd_published() {
	[[ "$(rcli hget "qosdeny:{$QD_CLUSTER_NAME}:running" "$odd")" == "$hashed alice "* ]]
}
check "the site factor publishes it under $hashed" \
	wait_for "its running entry" $((INTERVAL * 3)) odd_published
no_outage() { [ "$(log_count "site factor: .*the factors keep their last values")" == "$begins" ]; }
check "and goes on refreshing the others over two refreshes" \
	stays $((INTERVAL * 2)) no_outage
scancel "$odd"
odd_charged() { [ -n "$(rcli hget "qosdeny:{$QD_CLUSTER_NAME}:assoc:$hashed:alice" v)" ]; }
check "its record is charged to $hashed" wait_for "its usage" 60 odd_charged
row=$("$QD" share -P 2>/dev/null | grep "^ml%23x$(printf 'a%.0s' {1..60})|alice|")
IFS='|' read -r _ _ _ _ used _ _ <<<"$row"
check "share shows it under alice's association, named whole (${row:-no row})" \
	test "${used:-0}" -gt 0
cancel_all
sacctmgr -i remove user alice account="$long_acct" >/dev/null
sacctmgr -i remove account "$long_acct" >/dev/null

# --- Redis stopped, then silent: factors kept, submissions as fast, the
# outage logged once when it begins and once when it ends.
# submit_time: seconds of the slowest of 5 submissions (ms precision).
submit_time() {
	local max=0 t0 t1 d i
	for i in 1 2 3 4 5; do
		t0=$(date +%s%N)
		as alice sbatch --parsable -A research --begin=now+3600 --wrap 'sleep 1'
		t1=$(date +%s%N)
		d=$(((t1 - t0) / 1000000))
		[ "$d" -gt "$max" ] && max=$d
	done
	echo "$max"
}
squeue_time() {
	local t0
	t0=$(date +%s%N)
	squeue >/dev/null
	echo $((($(date +%s%N) - t0) / 1000000))
}
# A submission that waited on Redis would take TIMEOUT_MS longer; half of
# it is the margin for a loaded host's noise between the two measurements.
as_fast() { [ "$1" -le $((base + TIMEOUT_MS / 2)) ]; }
base=$(submit_time)
# The factor kept is the last refresh's. The jobs cancelled above still
# have running entries until their epilogs reach Redis (seconds later on
# a loaded host), and each refresh counts them longer: the factor moved
# between the read below and the outage (706 to 709, 295 to 296 with make
# check's other lanes beside). With none left, and no record waiting in a
# spool, over a refresh's interval, the table holds still.
all_in() {
	[ "$(rcli hlen "qosdeny:{$QD_CLUSTER_NAME}:running")" == 0 ] &&
		[ -z "$(spool_records)" ]
}
check "the cancelled jobs' usage is all in Redis" \
	wait_for "the running entries and spools to empty" 60 all_in
check "and stays so over a refresh" stays $((INTERVAL + 1)) all_in
before=$(site "$(pending_job charlie -A batch)")
begins=$(log_count "site factor: .*the factors keep their last values")
ends=$(log_count "site factor: .* answers again")
bash "$CLUSTER" redis-stop >/dev/null
check "Redis stopped: the outage is logged" wait_for "the outage line" $((INTERVAL * 3)) \
	bash -c "[ \$(grep -c 'site factor: .*the factors keep their last values' '$QD_CTLD_LOG') -gt $begins ]"
down=$(submit_time)
echo "# slowest of 5 submissions: ${base} ms with Redis, ${down} ms with Redis stopped"
check "submissions with Redis stopped as fast (${down} ms, ${base} ms with it)" \
	as_fast "$down"
c4=$(pending_job charlie -A batch)
assert_eq "a new job gets the kept factor" "$before" "$(site "$c4")"
outage_lines() { [ "$(log_count "site factor: .*the factors keep their last values")" == $((begins + 1)) ]; }
check "over two more refreshes the outage is logged once" stays $((INTERVAL * 2)) outage_lines
# A restart (from 24.05 also a reconfigure) with Redis still down: the new
# slurmctld has no table yet, and the factor saved with the pending job
# stands, at its release (site_factor_p_set) and at each recalculation.
check "charlie's factor is below the whole weight ($before)" test "$before" -lt "$WEIGHT"
check "slurmctld restarted with Redis down" bash "$CLUSTER" restart-ctld
scontrol hold "$c4" && scontrol release "$c4"
check "the pending job keeps its factor after the restart and its release" \
	stays 3 site_is "$c4" "$before"
bash "$CLUSTER" redis-start >/dev/null
check "Redis back: logged once" wait_for "the recovery line" $((INTERVAL * 3)) \
	bash -c "[ \$(grep -c 'site factor: .* answers again' '$QD_CTLD_LOG') -gt $ends ]"

# Silent: the server accepts connections but answers nothing for 20 s.
before=$(site "$(pending_job charlie -A batch)")
begins=$(log_count "site factor: .*the factors keep their last values")
rcli debug sleep 20 >/dev/null &
sleeper=$!
check "Redis silent: the outage is logged" wait_for "the outage line" $((INTERVAL * 3)) \
	bash -c "[ \$(grep -c 'site factor: .*the factors keep their last values' '$QD_CTLD_LOG') -gt $begins ]"
silent=$(submit_time)
sq=$(squeue_time)
echo "# slowest of 5 submissions with Redis silent: ${silent} ms; squeue ${sq} ms"
check "submissions with Redis silent as fast (${silent} ms, ${base} ms with it)" \
	as_fast "$silent"
check "squeue with Redis silent answers at once (${sq} ms)" test "$sq" -le 1000
c5=$(pending_job charlie -A batch)
assert_eq "a new job gets the kept factor" "$before" "$(site "$c5")"
wait "$sleeper"
check "Redis answering again: logged" wait_for "the recovery line" $((INTERVAL * 3)) \
	bash -c "[ \$(grep -c 'site factor: .* answers again' '$QD_CTLD_LOG') -gt $((ends + 1)) ]"
cancel_all

# --- A second cluster's usage: bob's jobs reported as cluster qdother.
OTHER=qdother
echo "required spank_qosdeny.so redis=$QD_REDIS_ADDR cluster=$OTHER" >"$PLUGSTACK"
bash "$CLUSTER" restart-slurmd >/dev/null
as bob srun -A research --gres=gpu:2 -w n1 sleep 2
assert_eq "bob's job on 'qdother' ran" 0 "$RC"
other_record() { [ -n "$(rcli --scan --pattern "qosdeny:{$OTHER}:rec:*")" ]; }
check "its record is in Redis under qdother" wait_for "bob's record" 30 other_record
echo "required spank_qosdeny.so redis=$QD_REDIS_ADDR" >"$PLUGSTACK"
bash "$CLUSTER" restart-slurmd >/dev/null
redis_clear # bob's blocker above: no usage of his left on this cluster
# fresh_bob_site VALUE: a job bob submits now gets VALUE.
fresh_bob_site() { [ "$(site "$(pending_job bob -A research)")" == "$1" ]; }
check "without FairShareClusters, bob's usage on qdother does not count" \
	wait_for "bob's factor" $((INTERVAL * 3)) fresh_bob_site $WEIGHT
write_policy "$EXAMPLE_POLICY
UsageHalfLife=$HALF_LIFE
FairShareClusters=$QD_CLUSTER_NAME,$OTHER"
bob_counted() {
	local b
	b=$(pending_job bob -A research)
	[ "$(site "$b")" -lt $WEIGHT ] && site_follows "$b" bob research
}
check "FairShareClusters=$QD_CLUSTER_NAME,$OTHER: bob's usage there counts, as qosdeny share shows it" \
	wait_for "bob's factor to follow" $((INTERVAL * 3)) bob_counted
bob_raw() { "$QD" share -P "$@" | awk -F'|' '$1 == "research" && $2 == "bob" { print $5 }'; }
assert_eq "qosdeny share --cluster $QD_CLUSTER_NAME alone leaves it out" 0 \
	"$(bob_raw --cluster "$QD_CLUSTER_NAME")"
check "qosdeny share --cluster $QD_CLUSTER_NAME,$OTHER counts it" \
	test "$(bob_raw --cluster "$QD_CLUSTER_NAME,$OTHER")" -gt 0
write_policy "$EXAMPLE_POLICY"
cancel_all

# --- A new weight at reconfigure: 22.05 calls site_factor_p_reconfig,
# from 24.05 a reconfigure starts a new slurmctld, whose init reads it.
cat >>"$EXTRA" <<EOF
PrioritySiteFactorParameters=weight=20000,interval=$INTERVAL
EOF
sed -i '/^PrioritySiteFactorParameters=weight=10000/d' "$EXTRA"
WEIGHT=20000
check "scontrol reconfigure with weight=20000" bash -c \
	"QD_SLURM_CONF_EXTRA='$EXTRA' bash '$CLUSTER' write-conf >/dev/null && bash '$CLUSTER' reconfigure >/dev/null"
fresh_alice_follows() { site_follows "$(pending_job alice -A research)" alice research; }
check "new jobs get the new weight x FairShare" \
	wait_for "the new weight" $((INTERVAL * 3)) fresh_alice_follows
check "alice's new job's SITE is above the old weight" \
	test "$(site "$(pending_job alice -A research)")" -gt 10000
cancel_all

# --- Back to the suite's configuration.
: >"$EXTRA"
check "slurmctld back without the site factor" bash -c \
	"bash '$CLUSTER' write-conf >/dev/null && bash '$CLUSTER' restart-ctld >/dev/null"
reporting_off
redis_clear
rcli --scan --pattern "qosdeny:{$OTHER}:*" | xargs -r redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" del >/dev/null
sacctmgr -i modify account research,batch set fairshare=1 >/dev/null
finish
