#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qosdeny.conf changes take effect without a restart, and each one accepted
# is kept in StateSaveLocation; a broken edit keeps the last good policy, at
# a re-read and at scontrol reconfigure (from 23.11 a new slurmctld, which
# runs on the kept copy), and so does a FIFO or no file in its place;
# Enforce=no accepts and logs.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
CLUSTER="$QD_ROOT/tests/cluster/cluster.sh"
KEPT=$(scontrol show config | awk '$1 == "StateSaveLocation" { print $3 }')/qosdeny.conf.last-good
CONF=$QD_SLURM_ETC/qosdeny.conf
said_since() { log_since "$1" | grep -qF -- "$2"; } # N TEXT

# An override: research's per-job cap lowered from the database's 8 to 1,
# written as an administrator would, and in force within a second: judged
# from the file's mtime to the watcher's reload line, which it logs once
# the new policy is swapped in, both on this host's clock. A client's
# sbatch on a busy host may take longer than that second; the policy does
# not.
printf '%s\n' "${EXAMPLE_POLICY/QOS=research      Flags=DenyOnMaxPerJob/QOS=research Flags=DenyOnMaxPerJob MaxTRESPerJob=gres/gpu=1}" >"$CONF.new"
n=$(policy_lines)
mv "$CONF.new" "$CONF"
written=$(stat -c %.3Y "$CONF")
check "the watcher takes the edit in" wait_for "the reload line" 30 \
	eval '[ "$(policy_lines)" -gt "$n" ]'
line=$(ctld_log | grep -F "qosdeny: policy reloaded from" | tail -n 1)
reloaded=$(date -d "$(expr "$line" : '\[\([^]]*\)\]')" +%s.%3N)
ms=$(awk -v a="$reloaded" -v b="$written" 'BEGIN { printf "%d", (a - b) * 1000 }')
echo "# in force $ms ms after the write"
check "the edit is in force within a second ($ms ms)" test "$ms" -le 1000
denied_now() {
	as alice sbatch --test-only -q research --gres=gpu:2 --wrap true
	[ "$RC" -ne 0 ]
}
check "a submission after the reload line meets the edit" denied_now
as alice sbatch -q research --gres=gpu:2 --wrap true
assert_eq "the edited cap applies" 1 "$RC"
assert_contains "the message shows the file's limit" \
	'qosdeny: DenyOnMaxPerJob: QOS research: gres/gpu requested 2, MaxTRESPerJob limit 1' "$OUT"
assert_contains "slurmctld logs the reload" "qosdeny: policy reloaded from" \
	"$(ctld_log)"
check "the reloaded policy is kept in StateSaveLocation" \
	wait_for "the kept copy" 10 kept_has "MaxTRESPerJob=gres/gpu=1"

write_policy "$EXAMPLE_POLICY
QOS=gpu-debug Flags=DenyOnNothing"
as alice sbatch -q research --gres=gpu:2 --wrap true
assert_eq "a broken edit keeps the last good policy" 1 "$RC"
assert_contains "the old override still applies" "MaxTRESPerJob limit 1" "$OUT"
assert_contains "slurmctld logs the error with file and line" \
	"qosdeny.conf:7: " "$(ctld_log)"
assert_contains "and says the previous policy stays" \
	"the previous policy stays in force" "$(ctld_log)"
check "the broken file is not kept" kept_has "MaxTRESPerJob=gres/gpu=1"

# The same broken file at scontrol reconfigure.
n=$(log_lines)
check "scontrol reconfigure with the broken file" bash "$CLUSTER" reconfigure
if slurm_at_least 23.11; then
	assert_contains "the new slurmctld runs on the kept policy" \
		"qosdeny: $CONF:7: unknown flag 'DenyOnNothing'; running on the policy slurmctld accepted at " \
		"$(log_since "$n")"
fi
as alice sbatch -q research --gres=gpu:2 --wrap true
assert_eq "after it the last good policy is enforced" 1 "$RC"
assert_contains "with its override" "MaxTRESPerJob limit 1" "$OUT"

# A FIFO in the file's place (as a careless `mkfifo` or a config
# management tool might leave): refused, never opened for reading, so
# nothing waits for a writer; submissions go on, on the last good policy.
# The log's length first: the watcher may refuse the FIFO (within 250 ms)
# before a count taken after mkfifo.
n=$(log_lines)
rm -f "$CONF"
mkfifo -m 0644 "$CONF"
check "a FIFO as qosdeny.conf is refused with its reason" wait_for "the error line" 5 \
	said_since "$n" "qosdeny: $CONF: not a regular file; the previous policy stays in force"
QD_CLIENT_TIMEOUT=20 as alice sbatch -q research --gres=gpu:2 --wrap true
assert_eq "submissions are answered meanwhile, on the last good policy" 1 "$RC"
assert_contains "with its override" "MaxTRESPerJob limit 1" "$OUT"
# Old code blocked opening it, slurmctld's locks held: a writer frees it.
timeout 1 bash -c "printf '%s\n' \"\$1\" >'$CONF'" _ "$EXAMPLE_POLICY" 2>/dev/null

# No file at all (removed, as before a config management tool writes it
# anew): said once, and the last good policy stays.
n=$(log_lines)
rm -f "$CONF"
check "a removed qosdeny.conf is logged" wait_for "the error line" 5 \
	said_since "$n" "qosdeny: $CONF: No such file or directory; the previous policy stays in force"
as alice sbatch -q research --gres=gpu:2 --wrap true
assert_eq "and the last good policy stays in force" 1 "$RC"
assert_contains "with its override" "MaxTRESPerJob limit 1" "$OUT"

write_policy "${EXAMPLE_POLICY/Enforce=yes/Enforce=no}"
as bob sbatch --parsable --hold -q interactive --gpus=5 --wrap true
assert_eq "Enforce=no accepts a job over the cap" 0 "$RC"
assert_contains "and logs what it would have denied" \
	'qosdeny: DenyOnMaxPerJob: QOS interactive: gres/gpu requested 5, MaxTRESPerJob limit 4 (user=bob account=research; Enforce=no, accepted)' \
	"$(ctld_log)"

write_policy "$EXAMPLE_POLICY"
as alice sbatch --parsable --hold -q research --gres=gpu:2 --wrap true
assert_eq "the restored policy applies again" 0 "$RC"

cancel_all
finish
