#!/usr/bin/env bash
# Launch cost on the pure cgroup v2 node: what spank_qosdeny.so adds to a
# job (job prolog + step + job epilog) on Slurm 24.11's cgroup/v2, beside
# task/cgroup with ConstrainDevices=no (the plugin's device program is the
# step's only one). Not a test (run.sh runs only t_*.sh by default):
#
#   bash tests/vm/run.sh bench_launch.sh      # figures in OUT/bench_launch/
#
# Rounds as tests/bench/launch.sh's: three plugstack.conf settings (empty;
# hooks: tests/bench/spank_hooks_only.c, whose job prolog and epilog do
# nothing, built beside the plugin; the plugin reporting to the VM's
# Redis) in rotating order, slurmd restarted for each, RUNS timed
# `srun -n1 --gres=gpu:1 true` as alice after one untimed warm-up, each
# once the one before left the queue (its epilog done, not beside a timed
# srun). The VM has no perf: the job prolog's and epilog's share is
# slurmd's own timing of `slurmstepd spank prolog|epilog`, from its debug2
# lines ("calling ... spank MODE" to "spank/MODE returned success"), which
# it runs only for a plugin with those hooks, and which also hold the
# 10 ms slurmd sleeps after each (docs/performance.md "Launch cost").
# SlurmdDebug is debug2 in every setting. The whole job, as
# tests/bench/launch.sh's: srun's start to slurmd's "completed epilog"
# line. TCG: every figure is a software CPU's, reported, never judged.
source "$(dirname "$0")/vm-lib.sh"
ROUNDS=${QD_BENCH_ROUNDS:-5}
RUNS=${QD_BENCH_RUNS:-10}
OUTDIR=/out/bench_launch
mkdir -p "$OUTDIR"
PLUGSTACK=$QD_CLUSTER_DIR/etc/plugstack.conf
HOOKS_SO=$(dirname "$QD_VM_PLUGIN")/tests/spank_hooks_only.so
SETTINGS=(empty hooks plugin)

vm_slurm task/cgroup no
sed -i 's/^SlurmdDebug=.*/SlurmdDebug=debug2/' "$SLURM_CONF"
redis-cli flushall >/dev/null

use() { # SETTING: plugstack.conf for it, slurmd restarted
	case $1 in
	plugin) echo "required $QD_VM_PLUGIN redis=127.0.0.1:6379" >"$PLUGSTACK" ;;
	hooks) echo "required $HOOKS_SO" >"$PLUGSTACK" ;;
	*) : >"$PLUGSTACK" ;;
	esac
	bash "$VMDIR/slurm.sh" restart-slurmd && wait_for "node idle" 30 node_idle
}

# epilog_end T0_US FROM_LINE: when slurmd said a job's epilog completed
# ("completed epilog for jobid", debug), from line FROM_LINE of its log on,
# in epoch microseconds from its millisecond stamps, or nothing.
epilog_end() {
	tail -n +"$2" "$SLURMD_LOG" | awk -v t0="$1" '/completed epilog for jobid/ {
		ts = substr($1, 2, 23); gsub(/[-T:.]/, " ", ts); split(ts, t, " ")
		us = mktime(t[1] " " t[2] " " t[3] " " t[4] " " t[5] " " t[6]) * 1e6 + t[7] * 1000
		if (us >= t0 - 1000 && us > last) last = us } END { if (last) printf "%.0f\n", last }'
}

# one_run SETTING: "SRUN_US WHOLE_US" of one srun as alice, as
# tests/bench/launch.sh's: the whole job ends with the epilog slurmd logs,
# or with srun where no plugin makes slurmd run one (empty).
one_run() {
	local t0 t1 end from
	from=$(($(wc -l <"$SLURMD_LOG") + 1))
	t0=$(date +%s%N)
	as alice srun -A research -n 1 --gres=gpu:1 true
	t1=$(date +%s%N)
	[ "$RC" -eq 0 ] || {
		echo "# srun failed: $OUT"
		return 1
	}
	wait_for "the job's epilog" 60 queue_empty >&2
	if [ "$1" = empty ]; then
		end=$((t1 / 1000))
	else
		end=$(epilog_end $((t0 / 1000)) "$from")
	fi
	echo "$(((t1 - t0) / 1000)) $([ -n "$end" ] && echo $((end - t0 / 1000)) || echo -)"
}

summary() { # "n median p10 p90 min max" of the numbers on stdin
	sort -n | awk '{ a[NR] = $1 } END {
		if (!NR) { print "0 - - - - -"; exit }
		printf "%d %d %d %d %d %d\n", NR, a[int((NR + 1) / 2)],
			a[int((NR - 1) * 0.1) + 1], a[int((NR - 1) * 0.9) + 1], a[1], a[NR] }'
}

check "the do-nothing plugin is there ($HOOKS_SO)" test -r "$HOOKS_SO"
: >"$OUTDIR/srun"
failed=0
for ((r = 0; r < ROUNDS; r++)); do
	for ((k = 0; k < ${#SETTINGS[@]}; k++)); do
		s=${SETTINGS[$(((k + r) % ${#SETTINGS[@]}))]}
		log_mark
		use "$s" || failed=1
		one_run "$s" >/dev/null || failed=1
		for ((i = 0; i < RUNS; i++)); do
			if t=$(one_run "$s"); then
				echo "$s $r $t" >>"$OUTDIR/srun"
			else
				failed=1
			fi
		done
		log_since >>"$OUTDIR/slurmd-$s.log" # for spank_ms
	done
done
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
	printf '%-20s %4s %8s %8s %8s %8s %8s\n' what n median p10 p90 min max
	for s in "${SETTINGS[@]}"; do
		read -r n m p10 p90 lo hi < <(awk -v s="$s" '$1 == s { print $3 }' "$OUTDIR/srun" | summary)
		printf '%-20s %4s %8s %8s %8s %8s %8s\n' "srun_$s" "$n" "$m" "$p10" "$p90" "$lo" "$hi"
	done
	for s in "${SETTINGS[@]}"; do
		read -r n m p10 p90 lo hi < <(awk -v s="$s" '$1 == s && $4 != "-" { print $4 }' "$OUTDIR/srun" | summary)
		printf '%-20s %4s %8s %8s %8s %8s %8s\n' "whole_$s" "$n" "$m" "$p10" "$p90" "$lo" "$hi"
	done
	echo "# whole job per round: hooks - empty (Slurm's charge), plugin - hooks (qosdeny's own)"
	printf '%-20s %4s %8s %8s\n' round runs slurm qosdeny
	for ((r = 0; r < ROUNDS; r++)); do
		m=()
		for s in "${SETTINGS[@]}"; do
			m+=("$(awk -v s="$s" -v r="$r" '$1 == s && $2 == r && $4 != "-" { print $4 }' "$OUTDIR/srun" | summary | cut -d' ' -f2)")
		done
		for k in 2 1; do
			[ "${m[k]}" = - ] || [ "${m[k - 1]}" = - ] || m[k]=$((m[k] - m[k - 1]))
		done
		printf 'whole_round_%-8s %4s %8s %8s\n' "$r" "$RUNS" "${m[1]}" "${m[2]}"
	done
	printf '%-20s %4s %8s %8s\n' round runs hooks plugin
	for ((r = 0; r < ROUNDS; r++)); do
		m=()
		for s in "${SETTINGS[@]}"; do
			m+=("$(awk -v s="$s" -v r="$r" '$1 == s && $2 == r { print $3 }' "$OUTDIR/srun" | summary | cut -d' ' -f2)")
		done
		for k in 1 2; do
			[ "${m[k]}" = - ] || [ "${m[0]}" = - ] || m[k]=$((m[k] - m[0]))
		done
		printf 'round_%-14s %4s %8s %8s\n' "$r" "$RUNS" "${m[1]}" "${m[2]}"
	done
	for s in hooks plugin; do
		for m in prolog epilog; do
			read -r n md p10 p90 lo hi < <(spank_ms "$m" "$s" | summary)
			printf '%-20s %4s %8s %8s %8s %8s %8s\n' "spank_${m}_$s" "$n" "$md" "$p10" "$p90" "$lo" "$hi"
		done
	done
} | tee "$OUTDIR/launch.txt" | sed 's/^/# /'
finish
