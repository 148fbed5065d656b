#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A job's QoS and its partition's QoS, resolved as Slurm resolves them
# (docs/how-it-decides.md, "Which limit"), with Slurm as the oracle: each
# scenario's job is submitted under Enforce=no, so that Slurm runs it or
# holds it for a QoS limit while qosdeny only logs what it would deny; what
# qosdeny would deny must be exactly what Slurm holds. A job still pending
# for any other reason once slurmctld has evaluated it fails the scenario.
# Nodes are counted as Slurm counts them: a node the QoS's jobs already
# hold is counted once. Then Enforce=yes denies a held one at submission,
# naming the QoS whose limit Slurm applies. Heterogeneous jobs: Slurm
# counts each component on top of the earlier ones (backfill's
# _het_job_limit_check, up to 25.11); several QoS (24.11 and later): Slurm
# tries each and holds the job only when every one fails.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"

# Each scenario has a job QoS hj<N> and a partition QoS hp<N>; the
# partition hq (n1, n2) is given the scenario's hp<N>. Scenarios 12 and 13
# list a second job QoS, hk<N>.
N=13
qos_list() { # PREFIX
	local i out=""
	for ((i = 1; i <= N; i++)); do out+="${out:+,}$1$i"; done
	echo "$out"
}
HJ=$(qos_list hj) HP=$(qos_list hp) HK=hk12,hk13
records() { # ENFORCE
	local q
	echo "$EXAMPLE_POLICY" | sed "s/^Enforce=yes/Enforce=$1/"
	for q in ${HJ//,/ } ${HP//,/ } ${HK//,/ }; do
		echo "QOS=$q Flags=DenyOnMaxPerJob,DenyOnMaxPerUser,DenyOnGrp"
	done
}

cancel_all
IFS=, read -r -a all_qos <<<"$HJ,$HP,$HK"
sacctmgr -i add qos "${all_qos[@]}" >/dev/null
sacctmgr -i modify account research set qos=normal,research,interactive,"$HJ,$HK" >/dev/null
# 1: the partition QoS's group limit (8) is in force, not the job QoS's (2).
sacctmgr -i modify qos hp1 set GrpTRES=gres/gpu=8 >/dev/null
sacctmgr -i modify qos hj1 set GrpTRES=gres/gpu=2 >/dev/null
# 2: the same with the per-job limit.
sacctmgr -i modify qos hp2 set MaxTRESPerJob=gres/gpu=8 >/dev/null
sacctmgr -i modify qos hj2 set MaxTRESPerJob=gres/gpu=2 >/dev/null
# 3: OverPartQOS on the job QoS: its 2 is in force.
sacctmgr -i modify qos hp3 set GrpTRES=gres/gpu=8 >/dev/null
sacctmgr -i modify qos hj3 set GrpTRES=gres/gpu=2 Flags=OverPartQOS >/dev/null
# 4: a partition QoS that limits cpu alone leaves gres/gpu to the job QoS.
sacctmgr -i modify qos hp4 set GrpTRES=cpu=64 >/dev/null
sacctmgr -i modify qos hj4 set GrpTRES=gres/gpu=2 >/dev/null
# 5: the partition QoS's per-user limit, the job QoS without one.
sacctmgr -i modify qos hp5 set MaxTRESPerUser=gres/gpu=2 >/dev/null
# 6, 7: a node limit of 1, a second 1-node job on the node the first runs
# on: Slurm counts that node once (group, then per user).
sacctmgr -i modify qos hj6 set GrpTRES=node=1 >/dev/null
sacctmgr -i modify qos hj7 set MaxTRESPerUser=node=1 >/dev/null
# 8: the same, the second job on the other node.
sacctmgr -i modify qos hj8 set GrpTRES=node=1 >/dev/null
# 9: a job listing hq and gpu (no QoS): Slurm runs it in gpu.
sacctmgr -i modify qos hp9 set GrpTRES=gres/gpu=2 >/dev/null
# 10: a het job of 2 + 3 GPUs under GrpTRES gpu=4; 11: 2 + 2 (it fits).
sacctmgr -i modify qos hj10 set GrpTRES=gres/gpu=4 >/dev/null
sacctmgr -i modify qos hj11 set GrpTRES=gres/gpu=4 >/dev/null
# 12: two QoS that each hold 4 GPUs, the second of higher Priority (Slurm
# tries it first); 13: the first holds, the second not.
sacctmgr -i modify qos hj12 set GrpTRES=gres/gpu=2 >/dev/null
sacctmgr -i modify qos hk12 set GrpTRES=gres/gpu=2 Priority=50 >/dev/null
sacctmgr -i modify qos hj13 set GrpTRES=gres/gpu=2 Priority=100 >/dev/null
# slurmdbd sends slurmctld the changes in order: the last one there (its
# output shows no flags and no per-user limits) means all are.
knows_all() {
	scontrol show assoc_mgr flags=qos qos=hj13 2>/dev/null |
		grep -q 'GrpTRES=.*gres/gpu=2('
}
check "slurmctld knows the scenarios' QoS" wait_for "the QoS" 30 knows_all
scontrol create partitionname=hq nodes=n1,n2 qos=hp1 maxtime=infinite state=up
check "the partition hq exists" eval 'scontrol show partition hq >/dev/null 2>&1'
write_policy "$(records no)"

# slurm_says JOB: "runs", "held REASON" (a QoS limit, once slurmctld has
# evaluated the job after its submission) or "pending REASON"; waits for
# one of the first two. A het job (one row per component, its leader
# first) runs when every component runs, and is held when one is.
rows() { SLURM_TIME_FORMAT=%s squeue -h -j "$1" -O 'State:|,Reason:|,SubmitTime:|,LastSchedEval:|'; }
evaluated() {
	local st reason sub eval all=yes
	while IFS='|' read -r st reason sub eval; do
		[ "$st" == RUNNING ] || all=no
		[[ $reason == QOS* ]] && [[ $eval =~ ^[0-9]+$ ]] &&
			[ "$eval" -gt "$sub" ] && return 0
	done < <(rows "$1")
	[ "$all" == yes ] && [ -n "$(rows "$1")" ]
}
slurm_says() {
	wait_for "slurmctld to run or hold job $1" 30 evaluated "$1"
	local st reason held="" pending=""
	while IFS='|' read -r st reason _; do
		case $st in
		RUNNING) ;;
		PENDING) [[ $reason == QOS* ]] && held=${held:-$reason} || pending=${pending:-$reason} ;;
		*) pending=${pending:-$st $reason} ;;
		esac
	done < <(rows "$1")
	if [ -n "$held" ]; then echo "held $held"
	elif [ -n "$pending" ]; then echo "pending $pending"
	else echo runs; fi
}

# leaked: alice's jobs but the scenario's first, which Slurm left queued
# after rejecting a het job at submission (26.05.3 runs the component that
# failed its check: docs/versions.md), said and cancelled.
leaked() {
	local j left=""
	for j in $(squeue -h -u alice -o %A); do
		[ "$j" = "$first" ] || left+=" $j"
	done
	[ -n "$left" ] || return 0
	echo "# $i: $what: Slurm left job$left of the rejected submission queued: cancelled"
	# shellcheck disable=SC2086
	scancel $left
}

# scenario N DESCRIPTION SBATCH_ARGS...: Slurm's answer against qosdeny's;
# FIRST (sbatch's words) a job of the scenario's QoS running before it.
scenario() {
	local i=$1 what=$2 n job says would first=""
	shift 2
	scontrol update partitionname=hq qos="hp$i"
	if [ -n "${FIRST:-}" ]; then
		# shellcheck disable=SC2086
		first=$(submit_running alice -p hq -q "hj$i" $FIRST)
		[ -n "$first" ] || fail "$i: $what: the first job did not run"
	fi
	n=$(log_lines)
	as alice sbatch --parsable -p "${PARTS:-hq}" -q "${JQOS:-hj$i}" "$@" \
		--wrap 'sleep 300'
	job=${OUT%%;*}
	if [ "$RC" -ne 0 ]; then
		# Slurm's own refusal at submission for a QoS limit (a het job
		# over a group limit, from 26.05.0) is an answer too.
		if [[ $OUT == *"Job violates accounting/QOS policy"* ]]; then
			says=rejected job=""
			leaked
		else
			fail "$i: $what: sbatch failed: $OUT"
			return
		fi
	else
		says=$(slurm_says "$job")
	fi
	would=accepts
	log_since "$n" | grep -q "Enforce=no, accepted" && would=denies
	case $says in
	runs) assert_eq "$i: $what: Slurm runs job $job; qosdeny" accepts "$would" ;;
	held*) assert_eq "$i: $what: Slurm holds job $job (${says#held }); qosdeny" denies "$would" ;;
	rejected) assert_eq "$i: $what: Slurm rejects it at submission; qosdeny" denies "$would" ;;
	*)
		fail "$i: $what: job $job neither ran nor was held for a QoS limit: $says"
		scontrol show job "$job" | sed 's/^/# /'
		;;
	esac
	SAID[$i]=$says
	[ -z "$job$first" ] || scancel $job $first
	wait_for "the scenario's jobs to end" 30 queue_empty
}
declare -A SAID
scenario 1 "partition GrpTRES gpu=8 over the job QoS's 2" --gres=gpu:4
scenario 2 "partition MaxTRESPerJob gpu=8 over the job QoS's 2" --gres=gpu:4
scenario 3 "OverPartQOS: the job QoS's GrpTRES gpu=2" --gres=gpu:4
scenario 4 "partition QoS limits cpu only: the job QoS's GrpTRES gpu=2" --gres=gpu:4
scenario 5 "the partition QoS's MaxTRESPerUser gpu=2" --gres=gpu:3
FIRST="-N1 -w n1"
scenario 6 "GrpTRES node=1, a second job on the first's node" -N1 -w n1
scenario 7 "MaxTRESPerUser node=1, a second job on the first's node" -N1 -w n1
scenario 8 "GrpTRES node=1, a second job on the other node" -N1 -w n2
FIRST=""
PARTS=hq,gpu
scenario 9 "a partition QoS's GrpTRES gpu=2, the job may run in gpu" --gres=gpu:4
PARTS=""
scenario 10 "a het job of 2 + 3 GPUs, GrpTRES gpu=4" --gres=gpu:2 : \
	-p hq -q hj10 --gres=gpu:3
scenario 11 "a het job of 2 + 2 GPUs, GrpTRES gpu=4" --gres=gpu:2 : \
	-p hq -q hj11 --gres=gpu:2
# Slurm rejects scenario 10's het job at submission from 26.05.0 (each
# component's usage added to the group's for the next one's check:
# _het_job_val_add in proc_req.c), and holds it before.
het=held
slurm_at_least 26.05 && het=rejected
want="runs runs held held held runs runs held runs $het runs"
if slurm_at_least 24.11; then
	JQOS=hj12,hk12 scenario 12 "two QoS, each GrpTRES gpu=2" --gres=gpu:4
	JQOS=hj13,hk13 scenario 13 "two QoS, the second without a limit" \
		--gres=gpu:4
	want+=" held runs"
else
	N=11
fi
said=""
for ((i = 1; i <= N; i++)); do said+="${said:+ }${SAID[$i]%% *}"; done
assert_eq "Slurm's own answers, as measured before qosdeny followed them" \
	"$want" "$said"

# Enforced: the held ones are denied at submission, naming the QoS whose
# limit Slurm applies; the others are accepted.
write_policy "$(records yes)"
scontrol update partitionname=hq qos=hp3
as alice sbatch -p hq -q hj3 --gres=gpu:4 --wrap true
assert_eq "OverPartQOS: denied at submission" 1 "$RC"
assert_contains "the message names the job QoS whose limit is in force" \
	'qosdeny: DenyOnGrp: QOS hj3: gres/gpu requested 4, in use 0, GrpTRES limit 2' "$OUT"
scontrol update partitionname=hq qos=hp5
as alice sbatch -p hq -q hj5 --gres=gpu:3 --wrap true
assert_contains "the partition QoS's per-user limit, named" \
	'qosdeny: DenyOnMaxPerUser: QOS hp5: gres/gpu requested 3, in use 0, MaxTRESPerUser limit 2' "$OUT"
scontrol update partitionname=hq qos=hp1
as alice sbatch --parsable --hold -p hq -q hj1 --gres=gpu:4 --wrap true
assert_eq "the partition QoS's 8 over the job QoS's 2: accepted" 0 "$RC"
scontrol update partitionname=hq qos=hp10
cancel_all
as alice sbatch -p hq -q hj10 --gres=gpu:2 : -p hq -q hj10 --gres=gpu:3 --wrap true
assert_eq "a het job over the group limit: denied at submission" 1 "$RC"
assert_contains "naming the QoS" "QOS hj10: gres/gpu requested" "$OUT"
# Slurm 26.05.3's own rejection of it leaves a component queued (above);
# qosdeny's leaves nothing.
assert_eq "and nothing of it is left in the queue" "" "$(squeue -h -u alice -o %A)"

# Several QoS: Slurm tries the higher Priority first, and runs a job that
# each lets run under it (squeue shows a started job's QoS); denied under
# both, the line is that QoS's.
if slurm_at_least 24.11; then
	scontrol update partitionname=hq qos=hp12
	j=$(submit_running alice -p hq -q hj12,hk12 --gres=gpu:1)
	ran=$(squeue -h -j "$j" -o %q)
	assert_eq "Slurm runs a job each of its QoS lets run under the higher Priority's" \
		hk12 "$ran"
	scancel "$j"
	wait_for "the job to end" 30 queue_empty
	as alice sbatch -p hq -q hj12,hk12 --gres=gpu:4 --wrap true
	assert_eq "two QoS over their limits: denied at submission" 1 "$RC"
	assert_contains "naming the QoS Slurm tries first" \
		"QOS ${ran:-hk12}: gres/gpu requested 4" "$OUT"
fi

cancel_all
scontrol delete partitionname=hq
sacctmgr -i modify account research set qos=normal,research,interactive >/dev/null
sacctmgr -i delete qos "${all_qos[@]}" >/dev/null
write_policy "$EXAMPLE_POLICY"
finish
