#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scontrol update of a pending job is checked like a submission.
source "$(dirname "$0")/lib.sh"

as alice sbatch --parsable --hold -q interactive --gres=gpu:1 --wrap true
J=$OUT
assert_eq "held interactive job is accepted" 0 "$RC"

as alice scontrol update jobid="$J" gres=gpu:5
check "raising its GPUs over the per-job cap is refused" [ "$RC" -ne 0 ]
assert_contains "scontrol shows Slurm's policy error" \
	"Job violates accounting/QOS policy" "$OUT"
MSG='qosdeny: DenyOnMaxPerJob: QOS interactive: gres/gpu requested 5, MaxTRESPerJob limit 4'
if slurm_at_least 23.02; then
	assert_contains "and, from 23.02, the qosdeny line" "$MSG" "$OUT"
	check "the qosdeny line comes before Slurm's" \
		[ "$(printf '%s\n' "$OUT" | grep -n "$MSG" | cut -d: -f1)" -lt \
		"$(printf '%s\n' "$OUT" | grep -n 'Job violates' | cut -d: -f1)" ]
else
	assert_not_contains "22.05's job_modify has no room for the qosdeny line" \
		"qosdeny:" "$OUT"
fi
gres=gres:gpu:1
slurm_at_least 23.11 && gres=gres/gpu:1
assert_contains "the job keeps its request" "$gres" \
	"$(scontrol show job "$J" | grep -i TresPerNode)"
assert_contains "slurmctld logs why" \
	'qosdeny: DenyOnMaxPerJob: QOS interactive: gres/gpu requested 5, MaxTRESPerJob limit 4 (user=alice' \
	"$(ctld_log)"

as alice scontrol update jobid="$J" gres=gpu:2
assert_eq "an update within the cap is accepted" 0 "$RC"

as bob sbatch --parsable --hold -q research --gres=gpu:4 --wrap true
K=$OUT
as bob scontrol update jobid="$K" qos=interactive
check "switching to a QoS whose cap the job breaks is refused" [ "$RC" -ne 0 ]
if slurm_at_least 23.02; then
	assert_contains "saying why" \
		'qosdeny: DenyOnMaxPerUser: QOS interactive: gres/gpu requested 4, in use 0, MaxTRESPerUser limit 2' \
		"$OUT"
fi
assert_contains "the job stays in its QoS" "QOS=research" \
	"$(scontrol show job "$K")"

as bob scontrol update jobid="$K" numnodes=2
check "raising nodes doubles per-node GPUs: 8 within research's cap" \
	[ "$RC" -eq 0 ]
as bob scontrol update jobid="$K" numnodes=3
check "3 nodes x 4 GPUs = 12 over research's cap of 8 is refused" \
	[ "$RC" -ne 0 ]

cancel_all
finish
