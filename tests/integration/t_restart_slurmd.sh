#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The test cluster's restart-slurmd (tests/cluster/cluster.sh), which the
# usage and GPU tests lean on: it stops the node's slurmd even while the
# pidfile names one that has ended, as it does in the middle of a slurmd
# reconfigure from 24.05 (the restart-ctld before it starts one), so that
# the new slurmd can bind the node's port.
source "$(dirname "$0")/lib.sh"
CLUSTER=$QD_ROOT/tests/cluster/cluster.sh
pidf=$QD_CLUSTER_DIR/run/slurmd-n1.pid

# A process is its pid and its start time: make check's lanes can go
# through every pid within a minute.
started() { { read -r st <"/proc/$1/stat"; } 2>/dev/null && read -r -a st <<<"${st##*) }" && echo "${st[19]}"; }
old=$(slurm_pid "$pidf")
old_start=$(started "$old")
check "slurmd n1 runs" test -n "$old_start"
# No process has pid_max's number: the pidfile names an ended slurmd.
cat /proc/sys/kernel/pid_max >"$pidf"
check "restart-slurmd n1 succeeds" bash "$CLUSTER" restart-slurmd n1
check "the slurmd the pidfile did not name has ended" \
	wait_for "slurmd $old to end" 20 eval '[ "$(started "$old")" != "$old_start" ]'
new=$(slurm_pid "$pidf")
new_start=$(started "$new")
check "the pidfile names the new one, which runs" \
	test -n "$new_start" -a "$new.$new_start" != "$old.$old_start"
check "n1 takes jobs" srun -N1 -w n1 true
finish
