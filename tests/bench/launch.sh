#!/usr/bin/env bash
# make bench, part 2: what spank_qosdeny.so adds to a job's launch (job
# prolog + step + job epilog), on one throwaway cluster (cgroup v1 here),
# in one run. docs/performance.md, "Launch cost", says how to read it.
#
# Rounds: in each, both plugstack.conf settings (empty; the plugin
# reporting to the cluster's Redis), in alternating order, each with
# slurmd restarted (slurmd looks for a plugin's job prolog and epilog only
# when it starts) and RUNS timed `srun -n1 --gres=gpu:1 true` as alice
# after one untimed warm-up. srun's wall time holds the job prolog and the
# step, not the epilog, which slurmd runs after srun returned; each srun
# starts once the one before left the queue, its epilog done, so that no
# epilog runs beside a timed srun (on 2 cores it slowed it by tens of ms).
#
# Beside it, the plugin's own time, traced system-wide with uprobes (perf
# probe, as plugin_time.sh) on its SPANK hooks and on the functions they
# spend it in (FUNCS), and the life of each `slurmstepd spank
# prolog|epilog` process (exec to exit, sched tracepoints), which slurmd
# starts per job only because a plugin has these hooks: the prolog's and
# epilog's whole share.
#
# Environment: QD_BENCH_ROUNDS (6), QD_BENCH_RUNS (15 per setting and
# round), QD_BENCH_OUT (tests/bench/launch.txt), QD_BENCH_OPTS (more
# options for the plugin's line, e.g. cgroup=off to leave binding out).
# Needs root and perf.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/bench-lib.sh"
ROUNDS=${QD_BENCH_ROUNDS:-6}
RUNS=${QD_BENCH_RUNS:-15}
out=${QD_BENCH_OUT:-$here/bench/launch.txt}
work=$QD_BUILD/bench-launch
SO=$QD_BUILD/spank_qosdeny.so
T_START=$SECONDS
FUNCS="slurm_spank_init slurm_spank_job_prolog slurm_spank_job_epilog
slurm_spank_task_post_fork slurm_spank_task_exit slurm_spank_exit
qd_reporter_init qd_report_prolog qd_report_epilog qd_spool_write
qd_spool_replay qd_redis_apply qd_job_record qd_adopt_write qd_cg_confine"

command -v perf >/dev/null || die "perf missing (apt-get install linux-perf)"
[ -r "$SO" ] || die "$SO missing (make)"
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing ||
	die "cannot mount tracefs for uprobes"
probes_off() { perf probe -q -d 'qdlaunch:*' 2>/dev/null || true; }
probes_off
for f in $FUNCS; do
	perf probe -q -x "$SO" -a "qdlaunch:$f=$f" -a "qdlaunch:${f}_ret=$f%return" ||
		die "perf probe $f failed"
done
rm -rf "$work"
mkdir -p "$work"
trap 'probes_off; cluster_down' EXIT
cluster_up >/dev/null || die "cluster did not start"
plugstack=$QD_SLURM_ETC/plugstack.conf
rcli() { redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" "$@"; }

# use SETTING: plugstack.conf for it, slurmd restarted.
use() {
	if [ "$1" = plugin ]; then
		echo "required spank_qosdeny.so redis=$QD_REDIS_ADDR ${QD_BENCH_OPTS:-}" >"$plugstack"
	else
		: >"$plugstack"
	fi
	bash "$cluster" restart-slurmd >/dev/null || die "slurmd restart failed"
}

# one_run: microseconds of one srun as alice.
one_run() {
	local t0 t1
	t0=$(date +%s%N)
	as alice srun -n 1 --gres=gpu:1 true
	t1=$(date +%s%N)
	[ "$RC" -eq 0 ] || die "srun failed: $OUT"
	echo $(((t1 - t0) / 1000))
	wait_for "the job's epilog" 30 queue_empty >&2 || die "a job stayed in the queue"
}

# summary: "n median p10 p90 min max" of the numbers on stdin.
summary() {
	sort -n | awk '{ a[NR] = $1 } END {
		if (!NR) { print "0 - - - - -"; exit }
		printf "%d %d %d %d %d %d\n", NR, a[int((NR + 1) / 2)],
			a[int((NR - 1) * 0.1) + 1], a[int((NR - 1) * 0.9) + 1], a[1], a[NR] }'
}

# perf records through every round; the probes fire in the plugin's rounds
# only (the empty ones load no plugin), adding a few microseconds per
# probed call to those (plugin_time.sh measures a probe pair: ~5 us).
rcli flushall >/dev/null
: >"$work/srun"
perf record -q -a -o "$work/perf.data" -e 'qdlaunch:*' \
	-e sched:sched_process_exec -e sched:sched_process_exit \
	2>"$work/perf.err" &
rec=$!
for ((r = 0; r < ROUNDS; r++)); do
	order="empty plugin"
	[ $((r % 2)) -eq 1 ] && order="plugin empty"
	for s in $order; do
		use "$s"
		one_run >/dev/null
		for ((i = 0; i < RUNS; i++)); do
			t=$(one_run) || exit 1
			echo "$s $r $t" >>"$work/srun"
		done
		echo "bench: round $r $s done" >&2
	done
done
kill -INT "$rec"
wait "$rec"
[ "$(rcli dbsize)" -gt 0 ] || die "the plugin reported nothing to Redis"
elapsed=$((SECONDS - T_START))

# The hooks' calls, and the spank prolog/epilog processes: from the exec of
# a pid that ran slurm_spank_job_prolog|epilog to its exit.
perf script -i "$work/perf.data" --ns -F pid,tid,time,event 2>/dev/null |
	awk '{ split($1, id, "/"); pid = id[1]; tid = id[2]; t = $2; sub(":", "", t)
		ev = $3; sub(":$", "", ev) }
	ev == "sched:sched_process_exec" { exec_t[pid] = t }
	ev == "sched:sched_process_exit" && pid == tid && (pid in kind) && (pid in exec_t) {
		printf "process_%s %.0f\n", kind[pid], (t - exec_t[pid]) * 1e6; delete kind[pid] }
	ev ~ /^qdlaunch:/ && ev !~ /_ret__return$/ { h = ev; sub("qdlaunch:", "", h)
		start[tid " " h] = t
		if (h ~ /^slurm_spank_job_/) { kind[pid] = h; sub("slurm_spank_", "", kind[pid]) } }
	ev ~ /_ret__return$/ { h = ev; sub("qdlaunch:", "", h); sub("_ret__return", "", h)
		if ((tid " " h) in start) {
			printf "%s %.0f\n", h, (t - start[tid " " h]) * 1e6; delete start[tid " " h] } }' \
	>"$work/traced"

{
	echo "# what spank_qosdeny.so adds to a job's launch, cgroup v1 test cluster (2 slurmd"
	echo "# on this host, task/none, the plugin's devices cgroup), Redis reporting on;"
	echo "# $ROUNDS rounds x $RUNS jobs per setting, settings alternating, slurmd restarted"
	echo "# for each. srun: wall time of srun -n1 --gres=gpu:1 true (prolog + step),"
	echo "# each started once the job before left the queue (its epilog done)."
	echo "# traced (the plugin's rounds): slurm_spank_*: time inside each SPANK hook,"
	echo "# qd_*: inside the functions of the plugin's they spend it in;"
	echo "# process_*: slurmstepd spank prolog|epilog from exec to exit (slurmd runs"
	echo "# them only for a plugin with those hooks). Microseconds."
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(machine), $(uname -r), run took ${elapsed}s"
	printf '%-26s %6s %8s %8s %8s %8s %8s\n' what n median p10 p90 min max
	for s in empty plugin; do
		read -r n m p10 p90 lo hi < <(awk -v s="$s" '$1 == s { print $3 }' "$work/srun" | summary)
		printf '%-26s %6s %8s %8s %8s %8s %8s\n' "srun_$s" "$n" "$m" "$p10" "$p90" "$lo" "$hi"
	done
	echo "# per round: median srun with the plugin minus without, microseconds"
	for ((r = 0; r < ROUNDS; r++)); do
		a=$(awk -v r="$r" '$1 == "empty" && $2 == r { print $3 }' "$work/srun" | summary | cut -d' ' -f2)
		b=$(awk -v r="$r" '$1 == "plugin" && $2 == r { print $3 }' "$work/srun" | summary | cut -d' ' -f2)
		printf 'round_%-20s %6s %8s\n' "$r" "$RUNS" "$((b - a))"
	done
	for k in process_job_prolog process_job_epilog $FUNCS; do
		read -r n m p10 p90 lo hi < <(awk -v k="$k" '$1 == k { print $2 }' "$work/traced" | summary)
		printf '%-26s %6s %8s %8s %8s %8s %8s\n' "$k" "$n" "$m" "$p10" "$p90" "$lo" "$hi"
	done
} | tee "$out"
