#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Caps on GPU shares (gres/shard, gres/mps) with the three flags. What
# qosdeny counts for a share request is Slurm's own count (a held job's
# ReqTRES), and a job is denied at submission exactly where Slurm, without
# the record, holds it for the same cap; a job Slurm would run is accepted.
# Each GPU gets 4 shards (16 a node), then 100 MPS shares (Slurm refuses
# both on one node); slurm.conf counts them (tests/cluster/cluster.sh).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/gpu-lib.sh"
source "$(dirname "$0")/example-policy.sh"
GRES=$QD_SLURM_ETC/gres.conf
POLICY_ERR="Job violates accounting/QOS policy"

# whole_gpus: the nodes back to their whole GPUs alone.
whole_gpus() {
	cp "$GRES.orig" "$GRES"
	unset QD_SHARD_GRES QD_MPS_GRES
	check "the nodes have their whole GPUs alone again" reconfigure_nodes
}

# shares NAME COUNT VAR: NAME:COUNT on each GPU of both nodes, counted.
# From one kind of share to the other goes through whole_gpus: a slurmd
# registering without the shares its slurmctld expects is drained.
shares() {
	share_lines "$1" "$2" >>"$GRES"
	export "$3=yes"
	check "$1 on both nodes, in AccountingStorageTRES" add_gres_type
	wait_for "the database to know gres/$1" 20 \
		sh -c "sacctmgr -n -P show tres format=type,name | grep -qx 'gres|$1'"
}

# restart_ctld: slurmctld restarted on slurm.conf written anew.
restart_ctld() {
	bash "$QD_ROOT/tests/cluster/cluster.sh" write-conf >/dev/null &&
		bash "$QD_ROOT/tests/cluster/cluster.sh" restart-ctld >/dev/null
}

# doctor_tres: qosdeny doctor's accounting-tres line (-P).
doctor_tres() {
	"$QD_BUILD/qosdeny" doctor --controller -P 2>&1 | grep '^[^|]*|accounting-tres|'
}

# gpus_line: qosdeny doctor's gpus line for n1 (-P).
gpus_line() {
	"$QD_BUILD/qosdeny" doctor --node n1 -P 2>&1 | grep '^[^|]*|gpus|'
}

# qos_knows QOS TEXT: slurmctld's view of the QoS has TEXT.
qos_knows() {
	scontrol show assoc_mgr flags=qos qos="$1" 2>/dev/null | grep -q "$2"
}

# compare TRES OPTIONS: Slurm's count of TRES (the ReqTRES of a held job in
# a QoS without caps) against qosdeny's (its message against a cap of 0).
compare() {
	local tres=$1 s q held
	# shellcheck disable=SC2086
	as alice sbatch --parsable --hold -q normal $2 --wrap true
	held=$OUT
	s=$(job_tres "$held" | tr , '\n' | sed -n "s|^$tres=||p")
	scancel "$held"
	# shellcheck disable=SC2086
	as alice sbatch --parsable --hold -q qd-zero $2 --wrap true
	q=$(printf '%s\n' "$OUT" | sed -n "s|.*: $tres requested \([0-9]*\), .*|\1|p")
	[ "$RC" -eq 0 ] && scancel "$OUT"
	check "Slurm counts $tres for '$2'" [ -n "$s" ]
	assert_eq "$tres for '$2'" "$s" "$q"
}

# denied WHAT OUTPUT-NEEDLE ARGS...: alice's (or --user's) job is refused
# with qosdeny's line and Slurm's policy error.
denied() {
	local what=$1 needle=$2 user=alice
	shift 2
	if [ "$1" == --user ]; then
		user=$2
		shift 2
	fi
	as "$user" sbatch -q shared "$@" --wrap true
	check "$what: refused" [ "$RC" -ne 0 ]
	assert_contains "$what: qosdeny says why" "$needle" "$OUT"
	assert_contains "$what: with Slurm's policy error" "$POLICY_ERR" "$OUT"
}

# held_for USER REASON ARGS...: without the record, Slurm queues the same
# job and holds it for REASON; it is then cancelled. Each scheduling pass
# clears a QoS reason before it tests the limits again (acct_policy.c,
# "clear old state reason"), and the backfill pass gives its locks up in
# between: a read may find no reason for a moment, so the reason is the
# one a poll found, never a second read.
held_for() {
	local user=$1 reason=$2 id
	shift 2
	as "$user" sbatch --parsable -q shared "$@" --wrap true
	id=${OUT%%;*}
	check "Slurm alone queues $user's $*" [ "$RC" -eq 0 ]
	SEEN=
	check "Slurm alone holds $user's $* for $reason" \
		wait_for "job $id pending for $reason" 30 reason_is "$id" "$reason"
	echo "# job $id: reason $SEEN, state $(job_state "$id")"
	assert_eq "and does not run it" PENDING "$(job_state "$id")"
	scancel "$id"
}
# reason_is ID REASON: squeue gives the job REASON (the last one read in
# SEEN).
reason_is() {
	SEEN=$(squeue -h -j "$1" -o %r)
	[ "$SEEN" = "$2" ]
}

cp "$GRES" "$GRES.orig"
sacctmgr -i add qos shared qd-zero >/dev/null
sacctmgr -i modify account where name=research,batch set qos+=shared,qd-zero >/dev/null

# --- shards ---------------------------------------------------------------
shares shard 4 QD_SHARD_GRES
sacctmgr -i modify qos shared set MaxTRESPerJob=gres/shard=3 \
	MaxTRESPerUser=gres/shard=4 GrpTRES=gres/shard=6 >/dev/null
wait_for "slurmctld to know the shard caps" 20 qos_knows shared 'GrpTRES=.*gres/shard=6'
write_policy "$EXAMPLE_POLICY
QOS=shared  Flags=DenyOnMaxPerJob,DenyOnMaxPerUser,DenyOnGrp
QOS=qd-zero Flags=DenyOnMaxPerJob MaxTRESPerJob=gres/shard=0,gres/mps=0"

compare gres/shard --gres=shard:2
compare gres/shard "-N 2 --gres=shard:3"
compare gres/shard "-n 4 --gres=shard:1"
# Whole GPUs beside shards, which slurmctld takes once --cpus-per-gpu's
# untyped GPU record and a typed one came first (docs/counting.md).
compare gres/shard "--cpus-per-gpu=2 --gpus=a100:1 --gres=shard:1"
if slurm_at_least 23.11; then
	compare gres/shard "-n 3 --tres-per-task=gres/shard:1"
fi

denied "shard:4 over MaxTRESPerJob=gres/shard=3" \
	"qosdeny: DenyOnMaxPerJob: QOS shared: gres/shard requested 4, MaxTRESPerJob limit 3" \
	--gres=shard:4
as alice salloc -q shared --gres=shard:4 true
check "salloc is refused too" [ "$RC" -ne 0 ]
assert_contains "salloc names gres/shard" "gres/shard requested 4" "$OUT"
as alice srun -q shared --gres=shard:4 true
check "srun too" [ "$RC" -ne 0 ]
assert_contains "srun names gres/shard" "gres/shard requested 4" "$OUT"

A=$(submit_running alice -q shared -w n1 --gres=shard:3)
check "shard:3 is within every cap, and runs" [ -n "$A" ]
denied "alice's shard:2 beside her 3" \
	"qosdeny: DenyOnMaxPerUser: QOS shared: gres/shard requested 2, in use 3, MaxTRESPerUser limit 4" \
	--gres=shard:2
as alice srun -q shared --gres=shard:1 true
assert_eq "alice's shard:1 beside her 3 (4, her cap) runs" 0 "$RC"
as alice "$QD_BUILD/qosdeny" limits -P --qos shared
assert_contains "qosdeny limits: alice's shards in use and what she may ask" \
	"shared|DenyOnMaxPerUser|gres/shard|4|3|1" "$OUT"
B=$(submit_running bob -q shared -w n1 --gres=shard:3)
check "bob's shard:3 (the group at 6, its cap) runs" [ -n "$B" ]
denied "charlie's shard:1 beside the group's 6" \
	"qosdeny: DenyOnGrp: QOS shared: gres/shard requested 1, in use 6, GrpTRES limit 6" \
	--user charlie --gres=shard:1

# The same jobs without the record: Slurm queues each and holds it for the
# same cap, the only one it passes.
write_policy "$EXAMPLE_POLICY"
held_for charlie QOSGrpGRES --gres=shard:1
scancel "$B"
wait_for "job $B to end" 60 job_done "$B"
held_for alice QOSMaxGRESPerUser --gres=shard:2
scancel "$A"
wait_for "job $A to end" 60 job_done "$A"
held_for alice QOSMaxGRESPerJob --gres=shard:4
cancel_all

# Shards capped but not counted: doctor's accounting-tres fails naming
# them, and slurmctld's log names a record's own limit on them.
assert_contains "doctor: the shards capped are counted" "ok|accounting-tres|" \
	"$(doctor_tres)"
write_policy "$EXAMPLE_POLICY
QOS=shared Flags=DenyOnMaxPerJob,DenyOnMaxPerUser,DenyOnGrp MaxTRESPerJob=gres/shard=3"
N=$(log_lines)
export QD_SHARE_TRES=no
check "slurmctld restarted without gres/shard counted" restart_ctld
L=$(doctor_tres)
assert_contains "doctor: accounting-tres fails" "FAIL|accounting-tres|" "$L"
assert_contains "doctor: naming the share and its QoS" "gres/shard (QOS shared)" "$L"
assert_contains "slurmctld's log names the uncounted share" \
	"qosdeny: QOS shared: AccountingStorageTRES lacks 'gres/shard'" \
	"$(log_since "$N")"
unset QD_SHARE_TRES
check "slurmctld restarted with gres/shard counted again" restart_ctld
write_policy "$EXAMPLE_POLICY"

# gres.conf's shards add up to slurm.conf's Gres=shard:16; 3 a GPU (12)
# do not: `slurmd -G` refuses that, as slurmd would refuse to start, and
# doctor's gpus check fails with its fatal line.
assert_contains "doctor: n1's shards add up" "ok|gpus|" "$(gpus_line)"
cp "$GRES" "$GRES.shards"
sed -i 's/^\(NodeName=n1 Name=shard\) Count=4/\1 Count=3/' "$GRES"
L=$(gpus_line)
assert_contains "doctor: 12 shards in gres.conf for slurm.conf's 16 fail" \
	"FAIL|gpus|" "$L"
assert_contains "doctor: with slurmd -G's fatal line" \
	"slurmd -G refuses the node's configuration: fatal: " "$L"
# 5 a GPU (20): slurmd takes the 16 of Gres= and drops the rest, without
# a word; doctor warns.
sed -i 's/^\(NodeName=n1 Name=shard\) Count=[0-9]*/\1 Count=5/' "$GRES"
L=$(gpus_line)
assert_contains "doctor: 20 shards in gres.conf for slurm.conf's 16 warn" \
	"warn|gpus|" "$L"
assert_contains "doctor: saying what slurmd takes" \
	"gres.conf gives n1 20 shards, slurmd takes 16 (slurm.conf's Gres=) and drops the rest" "$L"
# A shard on a file that is none of n1's GPUs (n2's first, here): Slurm
# matches a share's File= to a GPU's by name and discards it (the oracle:
# slurmd -G's own error), so doctor fails naming the line.
cp "$GRES.shards" "$GRES"
sed -i "s|^\(NodeName=n1 Name=shard Count=4\) File=$QD_DEV_DIR/nvidia3\$|\1 File=$QD_DEV_DIR/nvidia4|" "$GRES"
n=$(grep -n "^NodeName=n1 Name=shard Count=4 File=$QD_DEV_DIR/nvidia4\$" "$GRES" | cut -d: -f1)
assert_contains "slurmd -G discards the shard on n2's GPU" \
	"without matching" "$(slurmd -G -N n1 -f "$SLURM_CONF" 2>&1)"
L=$(gpus_line)
assert_contains "doctor: a shard on no GPU of n1's fails" "FAIL|gpus|" "$L"
assert_contains "doctor: naming its line and file" \
	"gres.conf:$n: Name=shard File=$QD_DEV_DIR/nvidia4 is no GPU of n1's" "$L"
mv -f "$GRES.shards" "$GRES"
whole_gpus

# --- MPS ------------------------------------------------------------------
shares mps 100 QD_MPS_GRES
sacctmgr -i modify qos shared set MaxTRESPerJob=gres/mps=100 >/dev/null
wait_for "slurmctld to know the MPS cap" 20 qos_knows shared 'MaxTRESPJ=.*gres/mps=100'
write_policy "$EXAMPLE_POLICY
QOS=shared  Flags=DenyOnMaxPerJob
QOS=qd-zero Flags=DenyOnMaxPerJob MaxTRESPerJob=gres/shard=0,gres/mps=0"
compare gres/mps --gres=mps:50
compare gres/mps "-N 2 --gres=mps:30"
denied "mps:150 over MaxTRESPerJob=gres/mps=100" \
	"qosdeny: DenyOnMaxPerJob: QOS shared: gres/mps requested 150, MaxTRESPerJob limit 100" \
	--gres=mps:150
as alice srun -q shared --gres=mps:100 true
assert_eq "mps:100, at the cap, runs" 0 "$RC"
write_policy "$EXAMPLE_POLICY"
held_for alice QOSMaxGRESPerJob --gres=mps:150

whole_gpus
rm -f "$GRES.orig"
finish
