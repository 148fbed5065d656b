#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# At slurmctld start every accepted policy is kept in StateSaveLocation; a
# start that finds qosdeny.conf broken or unreadable runs on that copy, and
# only a start with no policy ever accepted is fatal, as a broken slurm.conf
# is. Settings slurm.conf lacks for a record are named in the log.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
CLUSTER="$QD_ROOT/tests/cluster/cluster.sh"
KEPT=$(scontrol show config | awk '$1 == "StateSaveLocation" { print $3 }')/qosdeny.conf.last-good
CONF=$QD_SLURM_ETC/qosdeny.conf

# research capped at 1 GPU per job here (the database says 8): what the
# copy holds is seen in what is denied.
CAPPED="${EXAMPLE_POLICY/QOS=research      Flags=DenyOnMaxPerJob/QOS=research Flags=DenyOnMaxPerJob MaxTRESPerJob=gres/gpu=1}"
write_policy "$CAPPED"
check "slurmctld starts with a valid file" bash "$CLUSTER" restart-ctld
check "the accepted policy is kept in StateSaveLocation" \
	wait_for "the kept copy" 10 kept_has "MaxTRESPerJob=gres/gpu=1"
assert_contains "the copy names its source" "# Source: $CONF" "$(cat "$KEPT")"

# --- A broken file at restart: the kept policy is enforced.
write_policy "QOS=interactive Flags=DenyOnGrp,NoSuchFlag"
n=$(log_lines)
check "slurmctld starts with a broken qosdeny.conf" bash "$CLUSTER" restart-ctld
assert_contains "the log names file, line and offending text, and the copy it runs on" \
	"qosdeny: $CONF:1: unknown flag 'NoSuchFlag'; running on the policy slurmctld accepted at " \
	"$(log_since "$n")"
assert_contains "which says where the copy came from and lives" \
	"from $CONF, kept in $KEPT (3 QOS records, Enforce=yes)" "$(log_since "$n")"
as alice sbatch -q research --gres=gpu:2 --wrap true
assert_eq "a job the kept policy denies is denied" 1 "$RC"
assert_contains "by the kept policy's cap" "MaxTRESPerJob limit 1" "$OUT"
check "the broken file is not kept" kept_has "MaxTRESPerJob=gres/gpu=1"

# --- An unreadable file (a directory in its place) at restart.
rm -f "$CONF"
mkdir "$CONF"
n=$(log_lines)
check "slurmctld starts with an unreadable qosdeny.conf" bash "$CLUSTER" restart-ctld
assert_contains "the log says why it cannot be read, and runs on the copy" \
	"qosdeny: $CONF: Is a directory; running on the policy slurmctld accepted at " \
	"$(log_since "$n")"
as alice sbatch -q research --gres=gpu:2 --wrap true
assert_eq "the kept policy is enforced" 1 "$RC"
rmdir "$CONF"

# --- A first start, no policy ever accepted: fatal, naming file and line.
write_policy "Enforce=yes
QOS=interactive Flags=DenyOnMaxPerJob,DenyOnEverything"
rm -f "$KEPT"
n=$(log_lines)
bash "$CLUSTER" restart-ctld >/dev/null 2>&1
check "slurmctld refuses a first start with a broken qosdeny.conf" \
	[ "$?" -ne 0 ]
assert_contains "the log names file, line and offending text, and qosdeny check" \
	"qosdeny: $CONF:2: unknown flag 'DenyOnEverything'; slurmctld never accepted a policy before (none kept in $KEPT): fix the file (qosdeny check $CONF) and start slurmctld again" \
	"$(log_since "$n")"
assert_contains "and slurmctld stops as for a broken plugin" \
	"fatal: failed to initialize job_submit plugin" "$(log_since "$n")"

write_policy "$EXAMPLE_POLICY
QOS=gpu-h100 Flags=DenyOnMaxPerJob MaxTRESPerJob=gres/gpu:h100=1"
n=$(log_lines)
check "slurmctld starts with a valid file" \
	bash "$CLUSTER" restart-ctld
assert_contains "a typed limit Slurm does not count is named at start" \
	"qosdeny: QOS gpu-h100: AccountingStorageTRES lacks 'gres/gpu:h100'" \
	"$(log_since "$n")"
assert_contains "the start says what was loaded" \
	"qosdeny: policy loaded from $CONF (4 QOS records, Enforce=yes)" \
	"$(log_since "$n")"
check "and keeps it" wait_for "the kept copy" 10 kept_has "QOS=gpu-h100"

write_policy "$EXAMPLE_POLICY"
cancel_all
finish
