#!/usr/bin/env bash
# Launch cost on the pure cgroup v2 node: what spank_qosdeny.so adds to a
# job (job prolog + step + job epilog) on Slurm 24.11's cgroup/v2, beside
# task/cgroup with ConstrainDevices=no (the plugin's device program is the
# step's only one). Not a test (run.sh runs only t_*.sh by default):
#
#   bash tests/vm/run.sh bench_launch.sh      # figures in OUT/bench_launch/
#
# Rounds as tests/bench/launch.sh's: both plugstack.conf settings (empty;
# the plugin reporting to the VM's Redis) in alternating order, slurmd
# restarted for each, RUNS timed `srun -n1 --gres=gpu:1 true` as alice after
# one untimed warm-up, each once the one before left the queue (its
# epilog done, not beside a timed srun). The VM has no perf: the job prolog's and epilog's
# share is slurmd's own timing of `slurmstepd spank prolog|epilog`, from
# its debug2 lines ("calling ... spank MODE" to "spank/MODE returned
# success"), which it runs only for a plugin with those hooks. SlurmdDebug
# is debug2 in both settings. TCG: every figure is a software CPU's.
source "$(dirname "$0")/vm-lib.sh"
ROUNDS=${QD_BENCH_ROUNDS:-5}
RUNS=${QD_BENCH_RUNS:-10}
OUTDIR=/out/bench_launch
mkdir -p "$OUTDIR"
PLUGSTACK=$QD_CLUSTER_DIR/etc/plugstack.conf

vm_slurm task/cgroup no
sed -i 's/^SlurmdDebug=.*/SlurmdDebug=debug2/' "$SLURM_CONF"
redis-cli flushall >/dev/null

use() { # SETTING: plugstack.conf for it, slurmd restarted
	if [ "$1" = plugin ]; then
		echo "required $QD_VM_PLUGIN redis=127.0.0.1:6379" >"$PLUGSTACK"
	else
		: >"$PLUGSTACK"
	fi
	bash "$VMDIR/slurm.sh" restart-slurmd && wait_for "node idle" 30 node_idle
}

one_run() { # microseconds of one srun as alice
	local t0 t1
	t0=$(date +%s%N)
	as alice srun -A research -n 1 --gres=gpu:1 true
	t1=$(date +%s%N)
	[ "$RC" -eq 0 ] || {
		echo "# srun failed: $OUT"
		return 1
	}
	echo $(((t1 - t0) / 1000))
	wait_for "the job's epilog" 60 queue_empty >&2
}

summary() { # "n median p10 p90 min max" of the numbers on stdin
	sort -n | awk '{ a[NR] = $1 } END {
		if (!NR) { print "0 - - - - -"; exit }
		printf "%d %d %d %d %d %d\n", NR, a[int((NR + 1) / 2)],
			a[int((NR - 1) * 0.1) + 1], a[int((NR - 1) * 0.9) + 1], a[1], a[NR] }'
}

: >"$OUTDIR/srun"
failed=0
for ((r = 0; r < ROUNDS; r++)); do
	order="empty plugin"
	[ $((r % 2)) -eq 1 ] && order="plugin empty"
	for s in $order; do
		use "$s" || failed=1
		one_run >/dev/null || failed=1
		for ((i = 0; i < RUNS; i++)); do
			t=$(one_run) || failed=1
			echo "$s $r $t" >>"$OUTDIR/srun"
		done
	done
done
check "every srun ran" test "$failed" = 0
check "the plugin's epilogs reported to Redis" test "$(redis-cli dbsize)" -gt 0

# slurmd's log: "[2026-11-25T19:30:00.123] debug:  _run_spank_job_script:
# calling /usr/sbin/slurmstepd spank prolog", then "debug2: spank/prolog
# returned success": milliseconds between, per MODE.
spank_ms() { # MODE
	sed -n "s/^\[[^T]*T\([0-9:.]*\)\].*\(calling .* spank $1\|spank\/$1 returned\).*/\1 \2/p" \
		"$SLURMD_LOG" | awk '{ split($1, t, ":"); s = t[1] * 3600 + t[2] * 60 + t[3] }
		$2 == "calling" { c = s; next }
		c != "" { printf "%d\n", (s - c) * 1e6; c = "" }'
}
cp "$SLURMD_LOG" "$OUTDIR/slurmd.log"
{
	echo "# what spank_qosdeny.so adds to a job's launch on the pure cgroup v2 VM"
	echo "# (qemu TCG, 2 vCPUs), Slurm 24.11 cgroup/v2, task/cgroup ConstrainDevices=no,"
	echo "# Redis reporting on; $ROUNDS rounds x $RUNS jobs per setting, alternating,"
	echo "# slurmd restarted (SlurmdDebug=debug2) for each. srun: srun -n1 --gres=gpu:1"
	echo "# true (prolog + step), each once the job before left the queue; spank_*:"
	echo "# slurmstepd spank prolog|epilog as slurmd timed it (the plugin's rounds,"
	echo "# warm-ups included). Microseconds."
	printf '%-14s %4s %8s %8s %8s %8s %8s\n' what n median p10 p90 min max
	for s in empty plugin; do
		read -r n m p10 p90 lo hi < <(awk -v s="$s" '$1 == s { print $3 }' "$OUTDIR/srun" | summary)
		printf '%-14s %4s %8s %8s %8s %8s %8s\n' "srun_$s" "$n" "$m" "$p10" "$p90" "$lo" "$hi"
	done
	for ((r = 0; r < ROUNDS; r++)); do
		a=$(awk -v r="$r" '$1 == "empty" && $2 == r { print $3 }' "$OUTDIR/srun" | summary | cut -d' ' -f2)
		b=$(awk -v r="$r" '$1 == "plugin" && $2 == r { print $3 }' "$OUTDIR/srun" | summary | cut -d' ' -f2)
		printf 'round_%-8s %4s %8s\n' "$r" "$RUNS" "$((b - a))"
	done
	for m in prolog epilog; do
		read -r n md p10 p90 lo hi < <(spank_ms "$m" | summary)
		printf '%-14s %4s %8s %8s %8s %8s %8s\n' "spank_$m" "$n" "$md" "$p10" "$p90" "$lo" "$hi"
	done
} | tee "$OUTDIR/launch.txt" | sed 's/^/# /'
finish
