#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# GPU usage reporting on a cluster without accounting
# (AccountingStorageType=accounting_storage/none): jobs have no account, and
# slurmd sets no SLURM_JOB_ACCOUNT. Each slurmd says so once when it
# starts; its jobs log nothing about it; their GPU time is the user's, with
# an empty account, counted once, and `qosdeny share` shows it. A job that
# names an account no key could hold as typed ('x:y lab') is charged to it,
# escaped (x%3Ay%20lab): before record version 3 it was charged nothing.
# One too long even escaped is charged to its SHA-1, and share prints it
# whole.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
source "$(dirname "$0")/usage-lib.sh"

# accounting VALUE: slurm.conf written again with QD_ACCOUNTING=VALUE ("":
# slurmdbd's), slurmctld restarted on it; slurmd restarts with reporting.
accounting() {
	QD_ACCOUNTING=$1 bash "$CLUSTER" write-conf >/dev/null &&
		bash "$CLUSTER" restart-ctld >/dev/null
}
# new_log NODE: what slurmd on NODE logged since the restart below.
declare -A SINCE
new_log() { tail -c +"$((${SINCE[$1]} + 1))" "$QD_LOG_DIR/slurmd-$1.log"; }

redis_clear
check "slurm.conf without accounting, slurmctld restarted" accounting none
for n in n1 n2; do
	SINCE[$n]=$(stat -c %s "$QD_LOG_DIR/slurmd-$n.log")
done
check "reporting on (plugstack.conf, slurmd restarted)" reporting_on

start_line="qosdeny: accounting is off (AccountingStorageType=accounting_storage/none): GPU usage is reported under the user with an empty account, unless the job names one (--account)"
open_line="qosdeny: warning: redis $QD_REDIS_ADDR answers without AUTH: any job on a node can write the usage store"
for n in n1 n2; do
	assert_eq "slurmd on $n said once, at its start, how usage is reported" 1 \
		"$(new_log $n | grep -cF "$start_line")"
	assert_eq "and once that its password-less Redis is open to any job" 1 \
		"$(new_log $n | grep -cF "$open_line")"
done

jobs=()
for n in n1 n2; do
	as alice sbatch --parsable -N1 -w "$n" --gres=gpu:1 --wrap 'sleep 2'
	assert_eq "alice's job on $n is accepted" 0 "$RC"
	jobs+=("${OUT%%;*}")
done
check "both jobs ended, epilogs included" wait_for "jobs to end" 60 queue_empty
acct=$(scontrol -o show job "${jobs[0]}" | sed -n 's/.* Account=\([^ ]*\).*/\1/p')
check "slurmctld gave the jobs no account (Account=$acct)" \
	test "$acct" == "(null)" -o -z "$acct"

for n in n1 n2; do
	log=$(new_log $n)
	assert_eq "no per-job line about the account on $n" 0 \
		"$(grep -c 'SLURM_JOB_ACCOUNT' <<<"$log")"
	assert_eq "no 'GPU usage not reported' on $n" 0 \
		"$(grep -c 'GPU usage not reported' <<<"$log")"
	assert_eq "no qosdeny error at all on $n" "" \
		"$(grep 'error: qosdeny' <<<"$log")"
done

total=0
for i in 0 1; do
	n=n$((i + 1))
	check_record "job without an account" "${jobs[$i]}" "$n" 1 2
	rec=$(redis_record "${jobs[$i]}" "$n")
	assert_eq "job ${jobs[$i]}'s record is alice's" alice "$(field "$rec" user)"
	assert_contains "with the account empty" " user=alice account= " "$rec"
	gs=$(field "$rec" gpu_seconds)
	total=$((total + ${gs:-0}))
done
assert_eq "the spools are empty" "" "$(spool_records)"
check "alice's usage is her records' ${total} GPU-seconds, once" \
	near "$(stored_usage alice)" "$total" 0.01

OUT=$("$QD" share -P 2>/dev/null)
assert_eq "qosdeny share -P exits 0" 0 "$?"
echo "$OUT" | sed 's/^/# /'
row=$(echo "$OUT" | grep '^|alice|')
IFS='|' read -r _ _ _ _ used _ _ <<<"$row"
assert_eq "share: alice under the empty account, RawUsage ${total}" \
	"$total" "${used:-none}"
row=$(echo "$OUT" | grep '^||')
IFS='|' read -r _ _ _ _ used _ _ <<<"$row"
assert_eq "share: the empty account's own row, RawUsage ${total}" \
	"$total" "${used:-none}"

# Without accounting slurmctld keeps --account as typed: an account no
# usage key could hold as it is is kept escaped (docs/gpu-and-usage.md,
# "Names in the usage store"), charged, not dropped.
redis_clear
as alice sbatch --parsable -N1 -w n1 --gres=gpu:1 -A 'x:y lab' --wrap 'sleep 2'
assert_eq "alice's job with account 'x:y lab' is accepted" 0 "$RC"
odd=${OUT%%;*}
check "it ended, epilog included" wait_for "the job to end" 60 queue_empty
check_record "account 'x:y lab'" "$odd" n1 1 2
rec=$(redis_record "$odd" n1)
assert_contains "its record holds the account escaped" \
	" user=alice account=x%3Ay%20lab " "$rec"
assert_eq "no 'GPU usage not reported' on n1" 0 \
	"$(new_log n1 | grep -c 'GPU usage not reported')"
gs=$(field "$rec" gpu_seconds)
row=$("$QD" share -P 2>/dev/null | grep '^x%3Ay%20lab|alice|')
IFS='|' read -r _ _ _ _ used _ _ <<<"$row"
assert_eq "share: alice under x%3Ay%20lab, RawUsage ${gs:-?}" \
	"${gs:-?}" "${used:-none}"

# An account that even escaped is over 63 characters (30 colons, 90
# escaped) is stored as "~" and its SHA-1, and charged; Redis keeps what
# the hash stands for, and share prints the account whole (escaped).
# Before, its record was refused and the job charged nothing.
long=$(printf ':%.0s' {1..30})
hashed="~$(printf '%s' "$long" | sha1sum | cut -c1-40)"
as alice sbatch --parsable -N1 -w n1 --gres=gpu:1 -A "$long" --wrap 'sleep 2'
assert_eq "alice's job with a 30-colon account is accepted" 0 "$RC"
lj=${OUT%%;*}
check "it ended, epilog included" wait_for "the job to end" 60 queue_empty
check_record "account of 30 colons" "$lj" n1 1 2
rec=$(redis_record "$lj" n1)
assert_contains "its record holds the account hashed" \
	" user=alice account=$hashed " "$rec"
assert_eq "no 'GPU usage not reported' on n1" 0 \
	"$(new_log n1 | grep -c 'GPU usage not reported')"
assert_eq "Redis keeps what $hashed stands for" \
	"$(printf '%%3A%.0s' {1..30})" "$(rcli get "qosdeny:{$QD_CLUSTER_NAME}:name:$hashed")"
gs=$(field "$rec" gpu_seconds)
row=$("$QD" share -P 2>/dev/null | grep "^$(printf '%%3A%.0s' {1..30})|alice|")
IFS='|' read -r _ _ _ _ used _ _ <<<"$row"
assert_eq "share: alice under the account printed whole, RawUsage ${gs:-?}" \
	"${gs:-?}" "${used:-none}"
assert_eq "doctor --node counts no job without a record" "" \
	"$("$QD" doctor -P --node=n1 2>&1 | grep '|spool|' | grep 'without a usage record')"

reporting_off
check "slurm.conf with accounting again, slurmctld restarted" accounting ""
redis_clear
finish
