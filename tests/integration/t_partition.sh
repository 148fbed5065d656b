#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A partition's QoS (QOS= on the partition in slurm.conf) is checked too.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"

partition_qos_on

as alice sbatch -p short -n 8 --wrap true
assert_eq "over the partition QoS's cap is refused" 1 "$RC"
assert_contains "the message names the partition's QoS" \
	'qosdeny: DenyOnMaxPerJob: QOS pq-short: cpu requested 8, MaxTRESPerJob limit 4' "$OUT"
as alice sbatch --parsable --hold -p short -n 4 --wrap true
assert_eq "within the partition QoS's cap is accepted" 0 "$RC"
as alice sbatch --parsable --hold -p short,gpu -n 8 --wrap true
assert_eq "a job that may run in another partition is accepted" 0 "$RC"
as alice sbatch -p short -q interactive --gpus=5 --wrap true
assert_contains "the partition QoS sets no gres/gpu limit: the job QoS's is in force" \
	'QOS interactive: gres/gpu requested 5' "$OUT"

as alice sbatch --parsable --hold -p gpu -n 8 --wrap true
J=$OUT
as alice scontrol update jobid="$J" partition=short
check "moving a pending job into the partition is checked too" [ "$RC" -ne 0 ]
assert_contains "the job stays where it was" "Partition=gpu" \
	"$(scontrol show job "$J")"

cancel_all
write_policy "$EXAMPLE_POLICY"
finish
