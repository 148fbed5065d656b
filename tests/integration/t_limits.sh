#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qosdeny limits: each cap's numbers are the plugin's, so a job asking for
# "can ask for now" is accepted and one asking for one more is denied.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
QD=$QD_BUILD/qosdeny
HEADER='QOS|Flag|TRES|Limit|InUse|CanAskNow'

# limits USER ARGS...: `qosdeny limits -P ARGS` as USER, into OUT and RC.
limits() {
	local user=$1
	shift
	as "$user" "$QD" limits -P "$@"
}

# The -P row of QOS, FLAG and TRES in OUT.
row() { printf '%s\n' "$OUT" | grep -m1 "^$1|$2|$3|"; }
starts_with() { [[ $1 == "$2"* ]]; } # TEXT PREFIX

# accepted USER ARGS...: whether an sbatch --test-only with ARGS passes.
accepted() {
	as "$1" sbatch --test-only "${@:2}" --wrap true
	[ "$RC" -eq 0 ]
}
denied_by_qosdeny() {
	as "$1" sbatch --test-only "${@:2}" --wrap true
	[ "$RC" -ne 0 ] && [[ "$OUT" == *"qosdeny: "* ]]
}

# --- the seed: alice holds 2 interactive GPUs ------------------------------
A1=$(submit_running alice -q interactive --gres=gpu:2)
check "alice's 2-GPU interactive job runs" [ -n "$A1" ]
limits alice --qos interactive
assert_eq "limits exits 0" 0 "$RC"
assert_eq "-P starts with the header" "$HEADER" "$(printf '%s\n' "$OUT" | head -1)"
assert_eq "per job: limit 4, no in-use, nothing left for alice" \
	"interactive|DenyOnMaxPerJob|gres/gpu|4||0" \
	"$(row interactive DenyOnMaxPerJob gres/gpu)"
assert_eq "alice sees 0 under MaxTRESPerUser" \
	"interactive|DenyOnMaxPerUser|gres/gpu|2|2|0" \
	"$(row interactive DenyOnMaxPerUser gres/gpu)"
assert_eq "group: everyone's 2 of 4 in use" \
	"interactive|DenyOnGrp|gres/gpu|4|2|0" \
	"$(row interactive DenyOnGrp gres/gpu)"
check "alice's one more GPU is denied" \
	denied_by_qosdeny alice -q interactive --gpus=1

limits bob --qos interactive
assert_eq "bob may still ask for 2" \
	"interactive|DenyOnMaxPerUser|gres/gpu|2|0|2" \
	"$(row interactive DenyOnMaxPerUser gres/gpu)"
check "bob's 2 GPUs are accepted" accepted bob -q interactive --gpus=2
check "bob's 3 are denied" denied_by_qosdeny bob -q interactive --gpus=3

# --- charlie with 24 CPUs running in batch-lowprio sees 8 -----------------
C1=$(submit_running charlie -q batch-lowprio -c 24)
check "charlie's 24-CPU job runs" [ -n "$C1" ]
limits charlie
assert_eq "charlie sees 8 CPUs left" "batch-lowprio|DenyOnMaxPerUser|cpu|32|24|8" \
	"$(row batch-lowprio DenyOnMaxPerUser cpu)"
check "charlie's 8 CPUs are accepted" accepted charlie -q batch-lowprio -c 8
check "charlie's 9 are denied" denied_by_qosdeny charlie -q batch-lowprio -c 9
limits charlie
assert_eq "every record shows, sorted by QOS" \
	"batch-lowprio interactive research" \
	"$(printf '%s\n' "$OUT" | tail -n +2 | cut -d'|' -f1 | uniq | xargs)"
assert_eq "research is not allowed to charlie's account" \
	"research|NotAllowed||||0" "$(row research NotAllowed '')"
as charlie sbatch --test-only -q research --wrap true
check "and Slurm refuses it" [ "$RC" -ne 0 ]

as charlie "$QD" limits --qos batch-lowprio
assert_contains "the aligned layout has sshare's dashes" \
	"--------------- ---------------- ---------------" "$OUT"
assert_contains "and one row per cap" \
	"batch-lowprio   DenyOnMaxPerUser cpu                     32         24          8" "$OUT"

# --- another user's limits --------------------------------------------------
limits alice --user charlie --qos batch-lowprio
assert_eq "without PrivateData anyone sees charlie's" \
	"batch-lowprio|DenyOnMaxPerUser|cpu|32|24|8" \
	"$(row batch-lowprio DenyOnMaxPerUser cpu)"
cp "$SLURM_CONF" "$QD_CLUSTER_DIR/slurm.conf.saved"
echo "PrivateData=usage,users" >>"$SLURM_CONF"
limits alice --user charlie
assert_eq "with PrivateData=users alice may not" 1 "$RC"
assert_contains "and is told why" \
	"qosdeny: limits: PrivateData=usage,users in $SLURM_CONF: only root, SlurmUser and operators may see another user's limits" "$OUT"
limits alice
assert_eq "she still sees her own" 0 "$RC"
OUT=$(SLURM_CONF=$SLURM_CONF "$QD" limits -P --user charlie --qos batch-lowprio 2>&1)
assert_eq "root sees charlie's" "batch-lowprio|DenyOnMaxPerUser|cpu|32|24|8" \
	"$(row batch-lowprio DenyOnMaxPerUser cpu)"
cp "$QD_CLUSTER_DIR/slurm.conf.saved" "$SLURM_CONF"
scancel "$A1" "$C1"
cancel_all

# --- typed GPU caps, set in qosdeny.conf over the database's ---------------
write_policy "$EXAMPLE_POLICY
QOS=limited Flags=DenyOnMaxPerUser,DenyOnGrp MaxTRESPerUser=gres/gpu:a100=3 GrpTRES=gres/gpu=5"
sacctmgr -i add qos limited >/dev/null
sacctmgr -i modify account research set qos+=limited >/dev/null
wait_for "slurmctld to know QOS limited" 20 \
	bash -c 'scontrol show assoc_mgr flags=qos qos=limited | grep -q limited'
B1=$(submit_running bob -q limited --gpus=a100:1)
check "bob's a100 job runs" [ -n "$B1" ]
limits bob --qos limited
assert_eq "the type's row counts bob's a100" \
	"limited|DenyOnMaxPerUser|gres/gpu:a100|3|1|2" \
	"$(row limited DenyOnMaxPerUser gres/gpu:a100)"
assert_eq "the group row counts every GPU; an untyped job may ask for 2 (a100's room)" \
	"limited|DenyOnGrp|gres/gpu|5|1|2" "$(row limited DenyOnGrp gres/gpu)"
check "2 a100 are accepted" accepted bob -q limited --gpus=a100:2
check "3 a100 are denied" denied_by_qosdeny bob -q limited --gpus=a100:3
check "2 untyped GPUs are accepted" accepted bob -q limited --gpus=2
check "3 untyped GPUs are denied" denied_by_qosdeny bob -q limited --gpus=3
scancel "$B1"
cancel_all

# --- a partition's QoS -------------------------------------------------------
partition_qos_on
limits alice --qos pq-short
assert_eq "a partition's QoS is allowed, though no account lists it" \
	"pq-short|DenyOnMaxPerJob|cpu|4||4" "$(row pq-short DenyOnMaxPerJob cpu)"
check "4 CPUs in the partition are accepted" accepted alice -p short -n 4
check "5 are denied" denied_by_qosdeny alice -p short -n 5
partition_qos_off

# --- Enforce=no: the numbers, and a note that nothing is denied -------------
write_policy "${EXAMPLE_POLICY/Enforce=yes/Enforce=no}"
limits bob --qos interactive
assert_eq "Enforce=no still shows the caps" \
	"interactive|DenyOnMaxPerUser|gres/gpu|2|0|2" \
	"$(row interactive DenyOnMaxPerUser gres/gpu)"
assert_contains "and says jobs over them are accepted" \
	"Enforce=no in $QD_CLUSTER_DIR/etc/qosdeny.conf: jobs over these caps are accepted" "$OUT"
check "a job over them is accepted" accepted bob -q interactive --gpus=3
write_policy "$EXAMPLE_POLICY"

# --- the default partition's QoS sets a limit first -------------------------
# gpu (the default) given a QoS whose GrpTRES gres/gpu=8 Slurm applies
# before interactive's 4: interactive keeps its per-job and per-user rows,
# its group row goes.
cancel_all
sacctmgr -i add qos lq-gpu >/dev/null
sacctmgr -i modify qos lq-gpu set GrpTRES=gres/gpu=8 >/dev/null
knows_lq() {
	scontrol show assoc_mgr flags=qos qos=lq-gpu 2>/dev/null |
		grep -q 'GrpTRES=.*gres/gpu=8('
}
check "slurmctld knows lq-gpu" wait_for "lq-gpu" 30 knows_lq
scontrol update partitionname=gpu qos=lq-gpu
limits alice --qos interactive
check "interactive's per-job row stays" starts_with \
	"$(row interactive DenyOnMaxPerJob gres/gpu)" "interactive|DenyOnMaxPerJob|gres/gpu|4|"
check "and its per-user row" starts_with \
	"$(row interactive DenyOnMaxPerUser gres/gpu)" "interactive|DenyOnMaxPerUser|gres/gpu|2|"
assert_eq "no group row: the partition QoS's limit is in force" "" \
	"$(row interactive DenyOnGrp gres/gpu)"
scontrol update partitionname=gpu qos=
sacctmgr -i delete qos lq-gpu >/dev/null
limits alice --qos interactive
check "without it, the group row is back" starts_with \
	"$(row interactive DenyOnGrp gres/gpu)" "interactive|DenyOnGrp|gres/gpu|4|"

# --- what cannot be shown ---------------------------------------------------
limits alice --qos normal
assert_eq "a QoS without a record exits 1" 1 "$RC"
assert_contains "saying qosdeny does not check it" \
	"qosdeny: limits: QOS normal has no record in $QD_CLUSTER_DIR/etc/qosdeny.conf: qosdeny does not check it" "$OUT"
limits alice --user nosuchuser
assert_eq "an unknown user exits 1" 1 "$RC"
assert_contains "naming it" "qosdeny: limits: no such user 'nosuchuser'" "$OUT"
limits alice --qos
assert_eq "--qos without a name is a usage error" 2 "$RC"

sed -e "s/^SlurmctldPort=.*/SlurmctldPort=9/" -e "s/^MessageTimeout=.*/MessageTimeout=2/" \
	"$SLURM_CONF" >"$QD_CLUSTER_DIR/etc/unreachable.conf"
t0=$(date +%s)
OUT=$(SLURM_CONF=$QD_CLUSTER_DIR/etc/unreachable.conf "$QD" limits 2>&1)
RC=$?
assert_eq "slurmctld unreachable: exit 1" 1 "$RC"
assert_contains "with a clear line" "qosdeny: limits: cannot ask slurmctld: Unable to contact slurm controller" "$OUT"
check "within MessageTimeout and a little ($(($(date +%s) - t0)) s)" \
	[ $(($(date +%s) - t0)) -le 15 ]
rm -f "$QD_CLUSTER_DIR/etc/unreachable.conf"
finish
