#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Slurm 24.11 and later take several QoS for one job (--qos=a,b) and run it
# under any of them: qosdeny denies it only when every one denies it, with
# the first listed QoS's line; an update of the list is checked again.
source "$(dirname "$0")/lib.sh"

if ! slurm_at_least 24.11; then
	echo "# Slurm $(scontrol --version | awk '{ print $2 }') takes one QoS per job: nothing to check"
	finish
	exit
fi

# interactive: 4 GPUs per job, 2 per user; research: 8 per job.
as alice sbatch --parsable --hold --qos=interactive,research --gres=gpu:3 --wrap true
J=$OUT
assert_eq "over interactive's per-user cap, within research's: accepted" 0 "$RC"

as alice sbatch --qos=interactive,research --gpus=9 --wrap true
check "over both QoS' caps: denied" [ "$RC" -ne 0 ]
assert_contains "with the first listed QoS's line" \
	'qosdeny: DenyOnMaxPerJob: QOS interactive: gres/gpu requested 9, MaxTRESPerJob limit 4' "$OUT"
assert_contains "and Slurm's own" "Job violates accounting/QOS policy" "$OUT"

as alice sbatch --qos=research,interactive --gpus=9 --wrap true
assert_contains "listed the other way round, the other line" \
	'qosdeny: DenyOnMaxPerJob: QOS research: gres/gpu requested 9, MaxTRESPerJob limit 8' "$OUT"

as alice sbatch --qos=interactive,interactive --gpus=5 --wrap true
assert_contains "a QoS listed twice counts once" \
	'qosdeny: DenyOnMaxPerJob: QOS interactive: gres/gpu requested 5, MaxTRESPerJob limit 4' "$OUT"

# --- updates of a pending job with several QoS ---------------------------
as alice scontrol update jobid="$J" gres=gpu:9
check "raising its GPUs past both QoS' caps is refused" [ "$RC" -ne 0 ]
assert_contains "saying why, for the first QoS" \
	'qosdeny: DenyOnMaxPerJob: QOS interactive: gres/gpu requested 9, MaxTRESPerJob limit 4' "$OUT"
as alice scontrol update jobid="$J" gres=gpu:5
assert_eq "5 GPUs fit research's cap: accepted" 0 "$RC"

as alice scontrol update jobid="$J" qos=interactive
check "narrowing the list to interactive, over its cap, is refused" [ "$RC" -ne 0 ]
assert_contains "with interactive's line" \
	'qosdeny: DenyOnMaxPerJob: QOS interactive: gres/gpu requested 5, MaxTRESPerJob limit 4' "$OUT"
as alice scontrol update jobid="$J" qos=research,interactive
assert_eq "a list that holds research again is accepted" 0 "$RC"

as alice sbatch --parsable --hold --qos=research --gpus=5 --wrap true
K=$OUT
as alice scontrol update jobid="$K" qos=interactive,normal
assert_eq "a list with a QoS qosdeny leaves alone (normal) is accepted" 0 "$RC"

cancel_all
finish
