#!/usr/bin/env bash
# At slurmctld start a broken qosdeny.conf is fatal, as a broken slurm.conf
# is; settings slurm.conf lacks for a record are named in the log.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
CLUSTER="$QD_ROOT/tests/cluster/cluster.sh"

write_policy "Enforce=yes
QOS=interactive Flags=DenyOnMaxPerJob,DenyOnEverything"
bash "$CLUSTER" restart-ctld >/dev/null 2>&1
check "slurmctld refuses to start with a broken qosdeny.conf" \
	[ "$?" -ne 0 ]
assert_contains "the log names file, line and offending text" \
	"qosdeny.conf:2: unknown flag 'DenyOnEverything'" "$(ctld_log)"
assert_contains "and slurmctld stops as for a broken plugin" \
	"fatal: failed to initialize job_submit plugin" "$(ctld_log)"

write_policy "$EXAMPLE_POLICY
QOS=gpu-h100 Flags=DenyOnMaxPerJob MaxTRESPerJob=gres/gpu:h100=1"
check "slurmctld starts with a valid file" \
	bash "$CLUSTER" restart-ctld
assert_contains "a typed limit Slurm does not count is named at start" \
	"qosdeny: QOS gpu-h100: AccountingStorageTRES lacks 'gres/gpu:h100'" \
	"$(ctld_log)"
assert_contains "the start says what was loaded" \
	"qosdeny: policy loaded from $QD_SLURM_ETC/qosdeny.conf (4 QOS records, Enforce=yes)" \
	"$(ctld_log)"

write_policy "$EXAMPLE_POLICY"
finish
