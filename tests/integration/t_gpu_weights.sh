#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# GPU types weighed by the partition's TRESBillingWeights (docs/gpu-and-
# usage.md, "GPU types and billing weights"): in a partition that sets
# GRES/gpu:a100=0.5 and GRES/gpu:v100=0.25, an a100 (n1) held for T seconds
# is charged T/2 GPU-seconds and a v100 (n2) T/4; a share of a GPU its part
# of that; an untyped GRES/gpu= weight changes nothing, nor does a
# partition without weights. The site factor's running usage weighs the
# same while the job runs. Weights qosdeny cannot read leave each GPU at 1,
# and slurmd's log says so.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/gpu-lib.sh"
source "$(dirname "$0")/example-policy.sh"
source "$(dirname "$0")/usage-lib.sh"
GRES=$QD_SLURM_ETC/gres.conf

# charged WHAT USER MGPUS NODE ARGS...: USER's job of ARGS runs 1 s on
# NODE, queued beside the others; verify_charged then checks that its
# record there charges MGPUS thousandths of GPUs for the seconds it ran.
# Sets J.
WHATS=() JOBS=() MS=() NODES=()
charged() {
	local what=$1 user=$2 m=$3 node=$4
	shift 4
	as "$user" sbatch --parsable -w "$node" "$@" --wrap 'sleep 1'
	J=${OUT%%;*}
	check "$what: queued" [ "$RC" -eq 0 ]
	WHATS+=("$what") JOBS+=("$J") MS+=("$m") NODES+=("$node")
}
verify_charged() {
	local i rec s
	wait_for "the jobs to end" 120 queue_empty
	for i in "${!JOBS[@]}"; do
		rec=$(redis_record "${JOBS[i]}" "${NODES[i]}")
		if [ -z "$rec" ]; then
			fail "${WHATS[i]}: no record of job ${JOBS[i]} on ${NODES[i]} in Redis"
			continue
		fi
		s=$(($(field "$rec" end) - $(field "$rec" start)))
		assert_eq "${WHATS[i]}: job ${JOBS[i]}'s GPUs on ${NODES[i]}" "${MS[i]}" \
			"$(awk -v g="$(field "$rec" gpus)" 'BEGIN { printf "%d", g * 1000 + 0.5 }')"
		assert_eq "${WHATS[i]}: its GPU-seconds, ${MS[i]} thousandths x ${s}s" \
			"$(awk -v v=$((MS[i] * s)) 'BEGIN { printf "%.3f", v / 1000 }')" \
			"$(awk -v g="$(field "$rec" gpu_seconds)" 'BEGIN { printf "%.3f", g }')"
	done
	WHATS=() JOBS=() MS=() NODES=()
}

export QD_SLURM_CONF_EXTRA=$QD_CLUSTER_DIR/weights.conf
partitions() {
	cat >"$QD_SLURM_CONF_EXTRA" <<CONF
PartitionName=weighed Nodes=n1,n2 MaxTime=INFINITE State=UP TRESBillingWeights="CPU=1,GRES/gpu=4,GRES/gpu:a100=0.5,GRES/gpu:v100=0.25"
PartitionName=DEFAULT TRESBillingWeights=CPU=1,GRES/gpu:A100=0.75
PartitionName=bydefault Nodes=n1,n2 MaxTime=INFINITE State=UP
PartitionName=untyped Nodes=n1,n2 MaxTime=INFINITE State=UP TRESBillingWeights=CPU=1,GRES/gpu=4
PartitionName=toomuch Nodes=n1,n2 MaxTime=INFINITE State=UP TRESBillingWeights=GRES/gpu:a100=2000
PriorityType=priority/multifactor
PrioritySiteFactorPlugin=site_factor/qosdeny
PrioritySiteFactorParameters=interval=5
CONF
}
cp "$GRES" "$GRES.orig"
redis_clear
partitions
check "four partitions with weights, the site factor" reconfigure_nodes
check "reporting on" reporting_on

# doctor's gpus check on n1: the weight it cannot read (toomuch's). (GPUs
# without Type= where types weigh need a node whose slurm.conf Gres= has
# no type either: slurmd -G refuses the mix.)
gpus_line() { "$QD_BUILD/qosdeny" doctor --node n1 -P 2>&1 | grep '^[^|]*|gpus|'; }
L=$(gpus_line)
assert_contains "doctor warns of a weight it cannot read" "warn|gpus|" "$L"
assert_contains "naming the partition and the item" \
	"partition toomuch: TRESBillingWeights: GRES/gpu:a100=2000: the weight is not a number from 0 to 1000: its GPUs weigh 1 in usage records" "$L"

# The site factor's running usage weighs the same: Slurm's allocation
# counts gres/gpu:a100 for an untyped request, which the weight names.
RUNNING=$(submit_running alice -w n1 -p weighed --gres=gpu:1) ||
	fail "alice's long job did not run"
assert_contains "Slurm counts the untyped request's a100" "gres/gpu:a100=1" \
	"$(scontrol -o show job "$RUNNING")"

charged "an a100 at 0.5" alice 500 n1 -p weighed --gres=gpu:1
charged "two v100s at 0.25" bob 500 n2 -p weighed --gres=gpu:v100:2
charged "an a100, weighed by PartitionName=DEFAULT's 0.75" alice 750 n1 \
	-p bydefault --gres=gpu:1
charged "a v100 where only a100s are weighed: 1" charlie 1000 n2 \
	-p bydefault --gres=gpu:1
charged "an untyped GRES/gpu=4 changes nothing" alice 1000 n1 \
	-p untyped --gres=gpu:1
charged "no weights at all" bob 2000 n1 -p gpu --gres=gpu:2
# What the user sets does not weigh: SLURM_JOB_PARTITION and
# SLURM_JOB_GPUS exported, a job name naming a partition.
charged "an a100, the job posing as in another partition" alice 500 n1 \
	-p weighed --gres=gpu:1 -J 'partition=gpu' \
	--export=ALL,SLURM_JOB_PARTITION=gpu,SLURM_JOB_GPUS=0-3
# A weight qosdeny cannot read (above 1000, which Slurm takes): each GPU
# weighs 1, and slurmd's log says so.
charged "a weight above 1000: 1" alice 1000 n1 -p toomuch --gres=gpu:1
TOOMUCH=$J

running_half "alice's long a100 job" "$RUNNING"
scancel "$RUNNING"
verify_charged
assert_contains "a weight above 1000: slurmd logged why" \
	"qosdeny: job $TOOMUCH prolog: its GPUs on n1 are not weighed by partition toomuch's TRESBillingWeights (" \
	"$(cat "$QD_LOG_DIR/slurmd-n1.log")"

# A share of a weighed GPU: shard:2 of an a100's 4 is half of its 0.5.
share_lines shard 4 >>"$GRES"
export QD_SHARD_GRES=yes
check "4 shards on each GPU" add_gres_type
charged "shard:2 of an a100's 4 at 0.5" alice 250 n1 -p weighed --gres=shard:2
charged "shard:1 of a v100's 4 at 0.25" bob 63 n2 -p weighed --gres=shard:1
verify_charged

cp "$GRES.orig" "$GRES"
unset QD_SHARD_GRES
rm -f "$GRES.orig" "$QD_SLURM_CONF_EXTRA"
unset QD_SLURM_CONF_EXTRA
check "the cluster's own slurm.conf again" reconfigure_nodes
reporting_off
finish
