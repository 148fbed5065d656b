#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# site_factor/qosdeny at slurmctld start, alone (no JobSubmitPlugins, so the
# copy it reads is one it kept itself): the qosdeny.conf it accepts is kept
# in StateSaveLocation, a broken one at start runs on that copy (its
# FairShareClusters in the start line), only a first start with nothing
# kept is fatal; with no qosdeny.conf at all it logs so once, not at every
# refresh.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
CLUSTER="$QD_ROOT/tests/cluster/cluster.sh"
EXTRA=$QD_CLUSTER_DIR/site-factor-start.conf
INTERVAL=5
KEPT=$(scontrol show config | awk '$1 == "StateSaveLocation" { print $3 }')/qosdeny.conf.last-good
CONF=$QD_SLURM_ETC/qosdeny.conf
START_LINE="qosdeny: site factor: weight=10000 interval=$INTERVAL clusters="

cat >"$EXTRA" <<EOF
PriorityType=priority/multifactor
PrioritySiteFactorPlugin=site_factor/qosdeny
PrioritySiteFactorParameters=weight=10000,interval=$INTERVAL
EOF
QD_JOBSUBMIT='' QD_SLURM_CONF_EXTRA=$EXTRA bash "$CLUSTER" write-conf >/dev/null

restart() { bash "$CLUSTER" restart-ctld >/dev/null 2>&1; }

rm -f "$KEPT"
write_policy "FairShareClusters=$QD_CLUSTER_NAME,other"
n=$(log_lines)
check "slurmctld starts with the site factor and a valid qosdeny.conf" restart
assert_contains "its clusters come from the file" \
	"${START_LINE}$QD_CLUSTER_NAME,other" "$(log_since "$n")"
check "the site factor keeps the policy in StateSaveLocation" \
	wait_for "the kept copy" $((INTERVAL * 2)) kept_has "FairShareClusters=$QD_CLUSTER_NAME,other"

# --- Broken at restart: the kept policy, FairShareClusters included.
write_policy "FairShareClusters=$QD_CLUSTER_NAME
QOS=interactive Flags=DenyOnGrp,NoSuchFlag"
n=$(log_lines)
check "slurmctld starts with a broken qosdeny.conf" restart
assert_contains "the site factor names file, line and text, and runs on the copy" \
	"qosdeny: site factor: $CONF:2: unknown flag 'NoSuchFlag'; running on the policy slurmctld accepted at " \
	"$(log_since "$n")"
assert_contains "the kept FairShareClusters apply" \
	"${START_LINE}$QD_CLUSTER_NAME,other" "$(log_since "$n")"

# --- Broken at a first start, nothing ever kept: fatal.
rm -f "$KEPT"
n=$(log_lines)
restart
check "slurmctld refuses a first start with a broken qosdeny.conf" [ "$?" -ne 0 ]
assert_contains "the fatal line names file, line, text and qosdeny check" \
	"fatal: qosdeny: site factor: $CONF:2: unknown flag 'NoSuchFlag'; slurmctld never accepted a policy before (none kept in $KEPT): fix the file (qosdeny check $CONF) and start slurmctld again" \
	"$(log_since "$n")"

# --- No qosdeny.conf and nothing kept: the defaults, said once per start
# (from 23.11 a reconfigure is a start too). The thread refreshes every
# INTERVAL seconds; three of them pass without another line.
rm -f "$CONF" "$KEPT"
n=$(log_lines)
check "slurmctld starts with the site factor and no qosdeny.conf" restart
assert_contains "the start says the defaults apply" \
	"qosdeny: site factor: $CONF: No such file or directory; qosdeny.conf's defaults apply" \
	"$(log_since "$n")"
assert_contains "with this cluster alone" "${START_LINE}$QD_CLUSTER_NAME" \
	"$(log_since "$n")"
said_again() {
	[ "$(log_since "$n" | grep -c "$CONF: No such file")" -gt \
		"$(log_since "$n" | grep -c "$START_LINE")" ]
}
if wait_for "another line (none expected)" $((INTERVAL * 3 + 1)) said_again 2>/dev/null; then
	fail "the missing file is logged again at a refresh"
else
	pass "the missing file is logged once, not at every refresh"
fi

# --- From 23.11 a reconfigure starts a new slurmctld; one that dies of a
# broken qosdeny.conf (nothing kept yet) leaves the running one to go on,
# which starts its plugins again (fini, then init): the site factor logs
# the file there instead of stopping it too, and refreshes once mended.
if slurm_at_least 23.11; then
	pid=$(slurm_pid "$QD_CLUSTER_DIR/run/slurmctld.pid")
	write_policy "QOS=interactive Flags=DenyOnGrp,NoSuchFlag"
	n=$(log_lines)
	scontrol reconfigure >/dev/null 2>&1
	resumed() { log_since "$n" | grep -q "Resuming operation, reconfigure failed"; }
	check "the new slurmctld refuses the broken file, the old one resumes" \
		wait_for "the resumed slurmctld" 60 resumed
	went_on() { log_since "$n" | grep -q "goes on after its failed reconfigure"; }
	wait_for "the site factor's line" 10 went_on
	assert_contains "the site factor names file and line, and goes on" \
		"error: qosdeny: site factor: $CONF:1: unknown flag 'NoSuchFlag'; slurmctld goes on after its failed reconfigure, on qosdeny.conf's defaults until the file is mended" \
		"$(log_since "$n")"
	check "the slurmctld that ran before still runs" kill -0 "$pid"
	check "and answers" bash -c "scontrol ping | grep -q 'is UP'"
	write_policy "FairShareClusters=$QD_CLUSTER_NAME,other"
	check "the mended file is taken and kept" \
		wait_for "the kept copy" $((INTERVAL * 3)) kept_has "FairShareClusters=$QD_CLUSTER_NAME,other"
fi

# --- Back to the suite's configuration.
write_policy "$EXAMPLE_POLICY"
: >"$EXTRA"
check "slurmctld back with job_submit/qosdeny, without the site factor" bash -c \
	"bash '$CLUSTER' write-conf >/dev/null && bash '$CLUSTER' restart-ctld >/dev/null"
finish
