#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The issue's scenario on the real cluster: the three flags on every path,
# counting what is already running.
source "$(dirname "$0")/lib.sh"

POLICY_LINE='sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user'"'"'s size and/or time limits)'
START=$(date +%Y-%m-%dT%H:%M:%S)

# --- bob: 5 GPUs in interactive, on each path -> DenyOnMaxPerJob ---------
MSG='qosdeny: DenyOnMaxPerJob: QOS interactive: gres/gpu requested 5, MaxTRESPerJob limit 4'
as bob sbatch -q interactive --gpus=5 -J qd-deny-sbatch --wrap true
assert_eq "sbatch over per-job cap exits non-zero" 1 "$RC"
assert_contains "sbatch prints the qosdeny line" "sbatch: error: $MSG" "$OUT"
assert_contains "sbatch prints Slurm's policy line" "$POLICY_LINE" "$OUT"
check "the qosdeny line comes before Slurm's" \
	[ "$(printf '%s\n' "$OUT" | grep -n "$MSG" | cut -d: -f1)" -lt \
	"$(printf '%s\n' "$OUT" | grep -n 'Batch job submission failed' | cut -d: -f1)" ]

as bob salloc -q interactive --gpus=5 -J qd-deny-salloc true
check "salloc over per-job cap exits non-zero" [ "$RC" -ne 0 ]
assert_contains "salloc prints the qosdeny line" "salloc: error: $MSG" "$OUT"
assert_contains "salloc prints Slurm's policy line" \
	"Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)" "$OUT"

as bob srun -q interactive --gpus=5 -J qd-deny-srun true
check "srun over per-job cap exits non-zero" [ "$RC" -ne 0 ]
assert_contains "srun prints the qosdeny line" "srun: error: $MSG" "$OUT"

as bob sbatch -q interactive --gres=gpu:5 -J qd-deny-gres --wrap true
assert_contains "--gres=gpu:5 is counted like --gpus=5" "$MSG" "$OUT"

as bob sbatch --test-only -q interactive --gpus=5 --wrap true
check "--test-only over the cap exits non-zero" [ "$RC" -ne 0 ]
assert_contains "--test-only prints the qosdeny line" "$MSG" "$OUT"

as bob sbatch --test-only -q interactive --gpus=1 --wrap true
assert_eq "--test-only within the caps is answered" 0 "$RC"
assert_contains "with Slurm's own estimate" "to start at" "$OUT"

assert_eq "denied and test-only jobs are not queued" "" "$(squeue -h -u bob -o %i)"
# Accounting lags: once an accepted job submitted after the denials shows up
# in sacct, the denied ones would have too.
as bob sbatch --parsable -q research --gpus=1 -J qd-accepted --wrap true
in_sacct() { sacct -n -X -u bob -S "$START" -o JobName%30 | grep -q qd-accepted; }
check "an accepted job reaches accounting" wait_for "sacct" 30 in_sacct
assert_eq "denied jobs are not in accounting" "" \
	"$(sacct -n -X -u bob -S "$START" -o JobID,JobName%30 | grep qd-deny)"
assert_contains "slurmctld logs the line with user and account" \
	"$MSG (user=bob account=research)" "$(ctld_log)"

# --- alice holds 2, asks 1 more -> DenyOnMaxPerUser ----------------------
A1=$(submit_running alice -q interactive --gres=gpu:2)
check "alice's 2-GPU interactive job runs" [ -n "$A1" ]
as alice sbatch -q interactive --gres=gpu:1 --wrap true
assert_eq "alice's 3rd GPU is refused" 1 "$RC"
assert_contains "per-user message counts the running job" \
	'qosdeny: DenyOnMaxPerUser: QOS interactive: gres/gpu requested 1, in use 2, MaxTRESPerUser limit 2' "$OUT"

# --- bob takes 2: accepted; charlie asks 1 -> DenyOnGrp ------------------
B1=$(submit_running bob -q interactive --gres=gpu:2)
check "bob's 2-GPU interactive job is accepted and runs" [ -n "$B1" ]
as charlie sbatch -q interactive -A batch --gres=gpu:1 --wrap true
assert_eq "charlie's GPU is refused with the group full" 1 "$RC"
assert_contains "group message counts everyone's running jobs" \
	'qosdeny: DenyOnGrp: QOS interactive: gres/gpu requested 1, in use 4, GrpTRES limit 4' "$OUT"

# --- charlie: 24 CPUs running, 16 more denied, 8 more accepted ------------
C1=$(submit_running charlie -q batch-lowprio -n 24)
check "charlie's 24-CPU job runs" [ -n "$C1" ]
as charlie sbatch -q batch-lowprio -n 16 --wrap true
assert_eq "16 more CPUs are refused" 1 "$RC"
assert_contains "cpu per-user message" \
	'qosdeny: DenyOnMaxPerUser: QOS batch-lowprio: cpu requested 16, in use 24, MaxTRESPerUser limit 32' "$OUT"
as charlie sbatch --parsable -q batch-lowprio -n 8 --wrap true
assert_eq "8 more CPUs are accepted" 0 "$RC"

# --- the default QoS: charlie's account defaults to batch-lowprio --------
as charlie sbatch -n 16 --wrap true
assert_contains "a job without --qos is checked against its default QoS" \
	'QOS batch-lowprio: cpu requested 16, in use' "$OUT"

cancel_all
finish
