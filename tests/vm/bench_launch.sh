#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Launch cost on the pure cgroup v2 node: what spank_qosdeny.so adds to a
# job (job prolog + step + job epilog) on Slurm 24.11's cgroup/v2, beside
# task/cgroup with ConstrainDevices=no (the plugin's device program is the
# step's only one). Not a test (run.sh runs only t_*.sh by default):
#
#   bash tests/vm/run.sh bench_launch.sh      # figures in OUT/bench_launch/
#
# Rounds, settings and timings: tests/bench/launch-lib.sh, each job
# `srun -n1 --gres=gpu:1 true` as alice. The VM has no perf: the job
# prolog's and epilog's share is slurmd's own timing of `slurmstepd spank
# prolog|epilog`, from its debug2 lines ("calling ... spank MODE" to
# "spank/MODE returned success"), which it runs only for a plugin with
# those hooks, and which also hold the 10 ms slurmd sleeps after each
# (docs/performance.md "Launch cost"). SlurmdDebug is debug2 in every
# setting. TCG: every figure is a software CPU's, reported, never judged.
source "$(dirname "$0")/vm-lib.sh"
source /qosdeny/tests/bench/launch-lib.sh
ROUNDS=${QD_BENCH_ROUNDS:-5}
RUNS=${QD_BENCH_RUNS:-10}
OUTDIR=/out/bench_launch
mkdir -p "$OUTDIR"
PLUGSTACK=$QD_CLUSTER_DIR/etc/plugstack.conf
HOOKS_SO=$(dirname "$QD_VM_PLUGIN")/tests/spank_hooks_only.so
LAUNCH_LOGS=("$SLURMD_LOG")

vm_slurm task/cgroup no
sed -i 's/^SlurmdDebug=.*/SlurmdDebug=debug2/' "$SLURM_CONF"
redis-cli flushall >/dev/null

# setting_log: what slurmd logged since the last setting began, to that
# setting's log (for spank_ms below).
CUR=
setting_log() {
	[ -z "$CUR" ] || log_since >>"$OUTDIR/slurmd-$CUR.log"
	log_mark
}

launch_use() { # SETTING: plugstack.conf for it, slurmd restarted
	setting_log
	CUR=$1
	case $1 in
	plugin) echo "required $QD_VM_PLUGIN redis=127.0.0.1:6379" >"$PLUGSTACK" ;;
	hooks) echo "required $HOOKS_SO" >"$PLUGSTACK" ;;
	*) : >"$PLUGSTACK" ;;
	esac
	bash "$VMDIR/slurm.sh" restart-slurmd && wait_for "node idle" 30 node_idle
}

launch_job() { as alice srun -A research -n 1 --gres=gpu:1 true; }

check "the do-nothing plugin is there ($HOOKS_SO)" test -r "$HOOKS_SO"
failed=0
launch_rounds "$OUTDIR" || failed=1
setting_log
check "every srun ran" test "$failed" = 0
check "the plugin's epilogs reported to Redis" test "$(redis-cli dbsize)" -gt 0

# slurmd's log: "[2026-11-25T19:30:00.123] debug:  _run_spank_job_script:
# calling /usr/sbin/slurmstepd spank prolog", then "debug2: spank/prolog
# returned success": milliseconds between, per MODE.
spank_ms() { # MODE SETTING
	sed -n "s/^\[[^T]*T\([0-9:.]*\)\].*\(calling .* spank $1\|spank\/$1 returned\).*/\1 \2/p" \
		"$OUTDIR/slurmd-$2.log" | awk '{ split($1, t, ":"); s = t[1] * 3600 + t[2] * 60 + t[3] }
		$2 == "calling" { c = s; next }
		c != "" { printf "%d\n", (s - c) * 1e6; c = "" }'
}
cp "$SLURMD_LOG" "$OUTDIR/slurmd.log"
{
	echo "# what spank_qosdeny.so adds to a job's launch on the pure cgroup v2 VM"
	echo "# (qemu TCG, 2 vCPUs), Slurm 24.11 cgroup/v2, task/cgroup ConstrainDevices=no,"
	echo "# Redis reporting on, beside a plugin whose job prolog and epilog do nothing"
	echo "# (hooks); $ROUNDS rounds x $RUNS jobs per setting, rotating, slurmd restarted"
	echo "# (SlurmdDebug=debug2) for each. srun: srun -n1 --gres=gpu:1 true (prolog +"
	echo "# step), each once the job before left the queue; round_*: median srun minus"
	echo "# empty's in the round; spank_*: slurmstepd spank prolog|epilog as slurmd"
	echo "# timed it, with its 10 ms sleep after each (warm-ups included). Microseconds."
	launch_table "$OUTDIR"
	launch_goal "$OUTDIR" reported
	for s in hooks plugin; do
		for m in prolog epilog; do
			read -r n md p10 p90 lo hi < <(spank_ms "$m" "$s" | summary)
			printf '%-20s %4s %8s %8s %8s %8s %8s\n' "spank_${m}_$s" "$n" "$md" "$p10" "$p90" "$lo" "$hi"
		done
	done
} | tee "$OUTDIR/launch.txt" | sed 's/^/# /'
finish
