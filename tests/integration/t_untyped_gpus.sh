#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Untyped GPU requests against typed caps (shared/policy/untyped_gpus.h). Slurm
# alone lets --gres=gpu:3 past MaxTRESPerJob=gres/gpu:a100=2 and then
# allocates three A100s; qosdeny counts untyped GPUs toward every type the
# job's partitions have, up to how many they have. The test cluster: n1 has
# 4 a100, n2 has 4 v100, partition gpu holds both; v100only (made here)
# holds n2, and so does v100.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
POLICY_ERR="Job violates accounting/QOS policy"
NOTE="(untyped GPUs count toward every GPU type the job's partitions have)"

sacctmgr -i add qos ut-job ut-user ut-conf ut-slurm >/dev/null
sacctmgr -i modify qos ut-job set MaxTRESPerJob=gres/gpu:a100=2 >/dev/null
sacctmgr -i modify qos ut-user set MaxTRESPerUser=gres/gpu:a100=2 >/dev/null
sacctmgr -i modify qos ut-slurm set MaxTRESPerJob=gres/gpu:a100=2 >/dev/null
sacctmgr -i modify account research set qos+=ut-job,ut-user,ut-conf,ut-slurm >/dev/null
wait_for "slurmctld to know the QoS" 20 \
	sh -c 'scontrol show assoc_mgr flags=qos qos=ut-slurm | grep -q "MaxTRESPJ=.*gres/gpu:a100=2"'
scontrol create PartitionName=v100only Nodes=n2 State=UP
scontrol create PartitionName=v100 Nodes=n2 State=UP
# ut-slurm has no record: Slurm's own behaviour, for comparison.
write_policy "$EXAMPLE_POLICY
QOS=ut-job  Flags=DenyOnMaxPerJob
QOS=ut-user Flags=DenyOnMaxPerUser
QOS=ut-conf Flags=DenyOnMaxPerJob MaxTRESPerJob=gres/gpu:a100=2"

alloc_tres() { job_tres "$1" alloc; }

# --- the escape, in Slurm alone ------------------------------------------
J=$(submit_running alice -q ut-slurm -w n1 --gres=gpu:3)
assert_contains "without a record, Slurm runs gpu:3 on three A100s" \
	"gres/gpu:a100=3" "$(alloc_tres "$J")"
cancel_all

# --- per job --------------------------------------------------------------
for q in ut-job ut-conf; do
	as alice sbatch -q "$q" --gres=gpu:3 --wrap true
	check "$q: --gres=gpu:3 is refused" [ "$RC" -ne 0 ]
	assert_contains "$q: saying which type and why" \
		"qosdeny: DenyOnMaxPerJob: QOS $q: gres/gpu:a100 requested 3, MaxTRESPerJob limit 2 $NOTE" "$OUT"
	assert_contains "$q: with Slurm's policy error" "$POLICY_ERR" "$OUT"
done
as alice sbatch -q ut-job --gpus=8 --wrap true
assert_contains "counted up to the partition's 4 A100s" \
	"gres/gpu:a100 requested 4, MaxTRESPerJob limit 2" "$OUT"
as alice salloc -q ut-job -n1 --gpus=3 true
check "salloc is refused too" [ "$RC" -ne 0 ]
assert_contains "salloc names the type" "gres/gpu:a100 requested 3" "$OUT"
as alice srun -q ut-job -n1 --gres=gpu:3 true
check "srun too" [ "$RC" -ne 0 ]
assert_contains "srun names the type" "gres/gpu:a100 requested 3" "$OUT"

J=$(submit_running alice -q ut-job --gres=gpu:2)
check "gpu:2 is within the cap, and runs" [ -n "$J" ]
as alice sbatch --parsable --hold -q ut-job --gres=gpu:v100:3 --wrap true
assert_eq "a typed request for another type is accepted" 0 "$RC"
as alice sbatch --parsable --hold -q ut-job -p v100only --gres=gpu:3 --wrap true
assert_eq "untyped in a partition without A100s is accepted" 0 "$RC"
as alice sbatch -q ut-job -p v100only,gpu --gres=gpu:3 --wrap true
assert_contains "untyped with a partition with A100s in the list is refused" \
	"gres/gpu:a100 requested 3" "$OUT"
as alice sbatch --parsable --hold -q research --gres=gpu:3 --wrap true
assert_eq "a QoS with only untyped caps is unaffected" 0 "$RC"
# 1024 characters, the most Slurm takes for a partition list, ending in
# gpu: an earlier version copied lists into 1024 bytes and read "gp". The
# list is read whole, once per distinct partition.
long=$(printf 'v100only,%.0s' $(seq 109))$(printf 'v100,%.0s' $(seq 8))gpu
assert_eq "(the list is 1024 characters)" 1024 "${#long}"
as alice sbatch -q ut-job -p "$long" --gres=gpu:3 --wrap true
assert_contains "a partition with A100s after a long list is still seen" \
	"gres/gpu:a100 requested 3" "$OUT"
as alice sbatch --parsable --hold -q ut-job -p "${long%,gpu}" --gres=gpu:3 --wrap true
assert_eq "the long list without it is accepted" 0 "$RC"
cancel_all

# --- updates of a pending job ---------------------------------------------
as alice sbatch --parsable --hold -q ut-job -p v100only --gres=gpu:3 --wrap true
J=$OUT
before=$(ctld_log | wc -l)
as alice scontrol update jobid="$J" partition=gpu
check "moving it to a partition with A100s is refused" [ "$RC" -ne 0 ]
assert_contains "it stays in v100only" "Partition=v100only" "$(scontrol show job "$J")"
assert_contains "slurmctld logs why" \
	"qosdeny: DenyOnMaxPerJob: QOS ut-job: gres/gpu:a100 requested 3, MaxTRESPerJob limit 2 $NOTE (user=alice" \
	"$(ctld_log | tail -n +$((before + 1)))"
as alice sbatch --parsable --hold -q ut-job --gres=gpu:1 --wrap true
K=$OUT
as alice scontrol update jobid="$K" gres=gpu:3
check "raising an untyped request from 1 to 3 GPUs is refused" [ "$RC" -ne 0 ]
as alice sbatch --parsable --hold -q ut-slurm --gres=gpu:1 --wrap true
as alice scontrol update jobid="$OUT" gres=gpu:3
assert_eq "(without a record, Slurm takes that update)" 0 "$RC"
as alice sbatch --parsable --hold -q research -p gpu --gres=gpu:3 --wrap true
L=$OUT
as alice scontrol update jobid="$L" qos=ut-job
check "switching an untyped gpu:3 job into the typed-capped QoS is refused" \
	[ "$RC" -ne 0 ]
as alice scontrol update jobid="$L" qos=ut-slurm
assert_eq "(without a record, Slurm takes that switch)" 0 "$RC"
cancel_all

# --- per user, with what is running ---------------------------------------
J=$(submit_running alice -q ut-user --gres=gpu:a100:2)
as alice sbatch -q ut-user --gres=gpu:1 --wrap true
check "with 2 A100s in use, one more untyped GPU is refused" [ "$RC" -ne 0 ]
assert_contains "naming what is in use" \
	"qosdeny: DenyOnMaxPerUser: QOS ut-user: gres/gpu:a100 requested 1, in use 2, MaxTRESPerUser limit 2 $NOTE" "$OUT"
as alice sbatch --parsable --hold -q ut-user --gres=gpu:v100:1 --wrap true
assert_eq "a typed v100 request is accepted" 0 "$RC"
as alice sbatch --parsable --hold -q ut-user -p v100only --gres=gpu:1 --wrap true
assert_eq "an untyped one where no A100 can be given is accepted" 0 "$RC"
as bob sbatch --parsable --hold -q ut-user --gres=gpu:2 --wrap true
assert_eq "another user's untyped request is not charged alice's use" 0 "$RC"
cancel_all

# --- het job: the components' untyped GPUs add up -------------------------
as alice sbatch -q ut-user --gres=gpu:1 : -q ut-user --gres=gpu:2 --wrap true
check "het components of 1 and 2 untyped GPUs are refused" [ "$RC" -ne 0 ]
assert_contains "by the per-user cap on A100s" \
	"gres/gpu:a100 requested 2, in use 1, MaxTRESPerUser limit 2" "$OUT"
cancel_all

scontrol delete PartitionName=v100only
scontrol delete PartitionName=v100
sacctmgr -i modify account research set qos-=ut-job,ut-user,ut-conf,ut-slurm >/dev/null
sacctmgr -i delete qos ut-job ut-user ut-conf ut-slurm >/dev/null
write_policy "$EXAMPLE_POLICY"
finish
