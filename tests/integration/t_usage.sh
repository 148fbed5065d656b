#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# GPU usage reporting end to end: alice, bob and charlie run GPU jobs of
# known length on one node and on both (batch, array, srun, batch + srun);
# each job's prolog and epilog on each node report GPUs x seconds to Redis,
# and `qosdeny share -P` shows them with the fair share computed from the
# sacctmgr FairShare values.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
source "$(dirname "$0")/usage-lib.sh"

sacctmgr -i modify account research set fairshare=500 >/dev/null
sacctmgr -i modify account batch set fairshare=100 >/dev/null
sacctmgr -i modify user alice,bob,charlie set fairshare=1 >/dev/null
redis_clear
check "reporting on (plugstack.conf, slurmd restarted)" reporting_on

# sbatch_id USER ARGS...: submits, prints the job id.
sbatch_id() {
	local user=$1
	shift
	as "$user" sbatch --parsable "$@"
	echo "${OUT%%;*}"
}

a1=$(sbatch_id alice -N1 -w n1 --gres=gpu:2 --wrap 'sleep 3')
a2=$(sbatch_id alice -N1 --array=1-2 --gres=gpu:1 --wrap 'sleep 2')
c1=$(sbatch_id charlie -N2 --gres=gpu:1 --wrap 'srun sleep 2')
c2=$(sbatch_id charlie -N1 --wrap 'sleep 1')
as bob srun -N2 --gpus-per-node=1 bash -c 'sleep 3; echo "job=$SLURM_JOB_ID"'
b1=$(echo "$OUT" | sed -n 's/^job=//p' | head -1)
assert_eq "bob's srun over both nodes ran" 2 "$(echo "$OUT" | grep -c "^job=$b1\$")"
check "all jobs ended, epilogs included" wait_for "jobs to end" 60 queue_empty

check_record "batch" "$a1" n1 2 3
tasks=$(job_ids "$a2" | sort -n)
assert_eq "the array has two tasks, each its own job id" 2 "$(echo "$tasks" | wc -w)"
for t in $tasks; do
	check_record "array task" "$t" "$(job_nodes "$t")" 1 2
done
for n in n1 n2; do
	check_record "srun -N2" "$b1" "$n" 1 3
done
# The batch script runs on n1 from the job's start; n2's prolog waits for
# the srun's step.
check_record "batch -N2 + srun" "$c1" n1 1 2
check_record "batch -N2 + srun" "$c1" n2 1 2 from-step
assert_eq "a job without GPUs leaves no record" "" "$(redis_record "$c2" n1)"
assert_eq "every record is in Redis once, and only those" 7 \
	"$(rcli --scan --pattern "qosdeny:{$QD_CLUSTER_NAME}:rec:*" | wc -l)"
assert_eq "the spools are empty" "" "$(spool_records)"

# Each record is charged to the user and account slurmctld recorded for
# the job, as sacct shows them (docs/gpu-and-usage.md): here each user's
# default account.
in_sacct() { [ -n "$(sacct -n -X -j "$1" -o Account 2>/dev/null | tr -d ' ')" ]; }
for j in "$a1" "$b1" "$c1"; do
	wait_for "job $j in sacct" 30 in_sacct "$j"
	rec=$(redis_record "$j" n1)
	assert_eq "job $j: the record's user and account are sacct's" \
		"$(sacct -n -P -X -j "$j" -o User,Account | head -n 1)" \
		"$(field "$rec" user)|$(field "$rec" account)"
done

OUT=$("$QD" share -P 2>&1)
assert_eq "qosdeny share -P exits 0" 0 "$?"
echo "$OUT" | sed 's/^/# /'
assert_eq "the header" "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare" \
	"$(echo "$OUT" | head -1)"

# The expected table from the sacctmgr shares and the usage the records
# add up to (docs/fair-share.md, "qosdeny share"), to 6 decimals.
u_a=${USED[alice]:-0} u_b=${USED[bob]:-0} u_c=${USED[charlie]:-0}
expected=$(awk -v a="$u_a" -v b="$u_b" -v c="$u_c" 'BEGIN {
	tot = a + b + c
	row("batch", "", 100, 100 / 600, c)
	row("batch", "charlie", 1, 100 / 600, c)
	row("research", "", 500, 500 / 600, a + b)
	row("research", "alice", 1, 250 / 600, a)
	row("research", "bob", 1, 250 / 600, b)
}
function row(acct, user, raw, norm, used) {
	printf "%s|%s|%d|%.6f|%d|%.6f|%.6f\n", acct, user, raw, norm, used,
		used / tot, 2 ^ (-(used / tot) / norm)
}')
while IFS='|' read -r acct user raw norm used eff fs; do
	row=$(echo "$OUT" | grep "^$acct|$user|")
	IFS='|' read -r _ _ graw gnorm gused geff gfs <<<"$row"
	what="share row $acct|$user"
	assert_eq "$what: RawShares" "$raw" "$graw"
	assert_eq "$what: NormShares" "$norm" "$gnorm"
	check "$what: RawUsage $gused, the records add up to $used" near "$gused" "$used" 1
	check "$what: EffectvUsage $geff, expected $eff" near "$geff" "$eff" 0.000002
	check "$what: FairShare $gfs, expected $fs" near "$gfs" "$fs" 0.000002
done <<<"$expected"
reporting_off
redis_clear
sacctmgr -i modify account research,batch set fairshare=1 >/dev/null
finish
