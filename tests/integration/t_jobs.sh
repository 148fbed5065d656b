#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Job arrays, heterogeneous jobs, exempt users.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"

as alice sbatch --parsable --hold --array=0-9 -q interactive --gres=gpu:1 --wrap true
assert_eq "an array of 1-GPU tasks is checked per task: accepted" 0 "$RC"
as alice sbatch --array=0-3 -q interactive --gres=gpu:3 --wrap true
assert_contains "an array whose tasks break the cap is refused" \
	'qosdeny: DenyOnMaxPerUser: QOS interactive: gres/gpu requested 3, in use 0, MaxTRESPerUser limit 2' "$OUT"
scancel -u alice

as bob sbatch -q interactive --gres=gpu:2 : -q interactive --gres=gpu:1 --wrap true
check "a het job whose components together pass the per-user cap is refused" \
	[ "$RC" -ne 0 ]
assert_contains "the later component counts the earlier ones as in use" \
	'qosdeny: DenyOnMaxPerUser: QOS interactive: gres/gpu requested 1, in use 2, MaxTRESPerUser limit 2' "$OUT"
as bob sbatch --parsable --hold -q interactive --gres=gpu:1 : -q interactive --gres=gpu:1 --wrap true
assert_eq "a het job within the caps is accepted" 0 "$RC"
as bob sbatch -q interactive --gres=gpu:1 : -q interactive --gpus=5 --wrap true
assert_contains "each het component is checked against the per-job cap" \
	'qosdeny: DenyOnMaxPerJob: QOS interactive: gres/gpu requested 5, MaxTRESPerJob limit 4' "$OUT"
scancel -u bob

write_policy "${EXAMPLE_POLICY/ExemptUsers=root,slurm/ExemptUsers=root,slurm,bob}"
as bob sbatch --parsable --hold -q interactive --gpus=5 --wrap true
assert_eq "an exempt user is never checked" 0 "$RC"
as alice sbatch -q interactive --gpus=5 --wrap true
assert_eq "others still are" 1 "$RC"

cancel_all
write_policy "$EXAMPLE_POLICY"
finish
