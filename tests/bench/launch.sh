#!/usr/bin/env bash
# make bench, part 2: what spank_qosdeny.so adds to a job's launch (job
# prolog + step + job epilog), on one throwaway cluster (cgroup v1 here),
# in one run. docs/performance.md, "Launch cost", says how to read it.
#
# Three slurm.conf setups, one block of output each, all with
# ProctrackType=proctrack/cgroup (CgroupPlugin=cgroup/v1 here) and
# TaskPlugin=task/none:
#   alloc    PrologFlags=Alloc, README's slurm.conf (the job prolog runs
#            at allocation);
#   contain  PrologFlags=Contain, what README asks for when ssh sessions
#            are to be confined (Alloc, and an extern step per job);
#   plain    no PrologFlags (the job prolog runs at the first step).
# proctrack/cgroup matters: with proctrack/linuxproc nothing of Slurm's
# moves a task between cgroups, and the first move after an idle spell,
# the plugin's, waits for an RCU grace period (~11 ms here) that Slurm's
# own move otherwise pays.
#
# Rounds: in each, three plugstack.conf settings in rotating order, each
# with slurmd restarted (slurmd looks for a plugin's job prolog and epilog
# only when it starts) and RUNS timed `srun -n1 --gres=gpu:1 true` as alice
# after one untimed warm-up:
#   empty   no plugin;
#   hooks   tests/bench/spank_hooks_only.c, a plugin whose job prolog and
#           epilog do nothing: what Slurm charges any plugin with them;
#   plugin  spank_qosdeny.so reporting to the cluster's Redis.
# srun's wall time holds the job prolog and the step, not the epilog,
# which slurmd runs after srun returned; each srun starts once the one
# before left the queue, its epilog done, so that no epilog runs beside a
# timed srun (on 2 cores it slowed it by tens of ms).
#
# Beside it, traced system-wide with uprobes (perf probe, as
# plugin_time.sh): the plugin's SPANK hooks and the functions they spend
# their time in (FUNCS), and the life of each `slurmstepd spank
# prolog|epilog` process (exec to exit, sched tracepoints) of both
# plugins. per_job sums, per job, the medians of what the job waits for
# or the node spends on it: srun's difference from empty (median of the
# rounds) plus the epilog process.
#
# The whole job: from srun's start to the end of the job's epilog on its
# node, the "completed epilog" line slurmd logs at debug level (its log
# stamps are to the millisecond; the medians are over many jobs); with no
# plugin slurmd runs no epilog, and the job is whole when srun returns. Per
# round, each setting's median minus the one before it: Slurm's charge
# (hooks - empty: the spank prolog and epilog processes and slurmd's 10 ms
# sleep after each) and qosdeny's own (plugin - hooks), the goal's measure
# (docs/performance.md "Launch cost"): under 2 ms per whole job, judged
# here with the time the plugin's processes spent in fsync(2) taken out and
# said beside it (this host's disk syncs several times slower than a
# node's). Then the client: CLIENT_RUNS `sbatch --test-only` as alice with
# and without the plugstack.conf line, alternating in blocks of 20 (the
# goal: under 0.5 ms more). Each prints a "goal:" line, a report, never a
# failure.
#
# Environment: QD_BENCH_SETUPS ("alloc contain plain"), QD_BENCH_ROUNDS (6),
# QD_BENCH_RUNS (15 per setting and round), QD_BENCH_OUT
# (tests/bench/launch.txt), QD_BENCH_OPTS (more options for the plugin's
# line, e.g. cgroup=off to leave binding out), QD_BENCH_SO (the plugin
# measured, this build's by default: another build's to compare),
# QD_BENCH_CLIENT_RUNS (200 per setting; 0: none). Needs root and perf.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/bench-lib.sh"
SETUPS=${QD_BENCH_SETUPS:-alloc contain plain}
ROUNDS=${QD_BENCH_ROUNDS:-6}
RUNS=${QD_BENCH_RUNS:-15}
out=${QD_BENCH_OUT:-$here/bench/launch.txt}
work=$QD_BUILD/bench-launch
SO=${QD_BENCH_SO:-$QD_BUILD/spank_qosdeny.so}
CLIENT_RUNS=${QD_BENCH_CLIENT_RUNS:-200}
# slurmd says when a job's epilog ended at debug level.
export QD_SLURMD_DEBUG=debug
HOOKS_SO=$QD_BUILD/tests/spank_hooks_only.so
SETTINGS=(empty hooks plugin)
T_START=$SECONDS
FUNCS="slurm_spank_init slurm_spank_job_prolog slurm_spank_job_epilog
slurm_spank_task_post_fork slurm_spank_task_exit slurm_spank_exit
qd_reporter_init qd_report_prolog qd_report_epilog qd_spool_write
qd_spool_replay qd_redis_apply qd_job_record qd_adopt_write qd_cg_confine
qd_cg_prepare"
# The plugin's hooks: their medians times their calls per job make its own
# time (slurm_spank_init and _exit run in srun and in each slurmstepd).
OWN="slurm_spank_init slurm_spank_job_prolog slurm_spank_task_post_fork
slurm_spank_task_exit slurm_spank_job_epilog slurm_spank_exit"

command -v perf >/dev/null || die "perf missing (apt-get install linux-perf)"
[ -r "$SO" ] || die "$SO missing (make)"
[ -r "$HOOKS_SO" ] || die "$HOOKS_SO missing (make $HOOKS_SO)"
[ -x "$QD_BUILD/tests/load_cost" ] || die "$QD_BUILD/tests/load_cost missing (make bench)"
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing ||
	die "cannot mount tracefs for uprobes"
probes_off() { perf probe -q -d 'qdlaunch:*' 2>/dev/null || true; }
probes_off
for f in $FUNCS; do
	perf probe -q -x "$SO" -a "qdlaunch:$f=$f" -a "qdlaunch:${f}_ret=$f%return" ||
		die "perf probe $f failed"
done
for f in job_prolog job_epilog; do
	perf probe -q -x "$HOOKS_SO" -a "qdlaunch:hooks_$f=slurm_spank_$f" ||
		die "perf probe $HOOKS_SO $f failed"
done
rm -rf "$work"
mkdir -p "$work"
rec=
trap '[ -z "$rec" ] || kill -INT "$rec" 2>/dev/null; probes_off; cluster_down' EXIT
cluster_up >/dev/null || die "cluster did not start"
plugstack=$QD_SLURM_ETC/plugstack.conf
rcli() { redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" "$@"; }

# prolog_flags NAME: the setup's slurm.conf line, none for plain.
prolog_flags() {
	case $1 in
	alloc) echo "PrologFlags=Alloc" ;;
	contain) echo "PrologFlags=Contain" ;;
	esac
}

# setup NAME: slurm.conf and cgroup.conf for it, slurmctld restarted.
setup() {
	printf 'CgroupPlugin=cgroup/v1\n' >"$QD_SLURM_ETC/cgroup.conf"
	prolog_flags "$1" >"$work/slurm.conf.extra"
	QD_SLURM_CONF_EXTRA=$work/slurm.conf.extra QD_PROCTRACK=proctrack/cgroup \
		bash "$cluster" write-conf >/dev/null &&
		bash "$cluster" restart-ctld >/dev/null || die "setup $1 failed"
}

# use SETTING: plugstack.conf for it, slurmd restarted.
use() {
	case $1 in
	plugin) echo "required $SO redis=$QD_REDIS_ADDR ${QD_BENCH_OPTS:-}" >"$plugstack" ;;
	hooks) echo "required $HOOKS_SO" >"$plugstack" ;;
	*) : >"$plugstack" ;;
	esac
	bash "$cluster" restart-slurmd >/dev/null || die "slurmd restart failed"
}

# epilog_end T0_US: when slurmd last said a job's epilog completed, after
# T0_US (epoch microseconds, from its millisecond stamps; the logs from the
# byte offsets in $work/log-offsets on), or nothing.
epilog_end() {
	local f off
	while read -r f off; do
		tail -c +"$((off + 1))" "$f"
	done <"$work/log-offsets" | awk -v t0="$1" '/completed epilog for jobid/ {
		ts = substr($1, 2, 23); gsub(/[-T:.]/, " ", ts); split(ts, t, " ")
		us = mktime(t[1] " " t[2] " " t[3] " " t[4] " " t[5] " " t[6]) * 1e6 + t[7] * 1000
		if (us >= t0 - 1000 && us > last) last = us } END { if (last) printf "%.0f\n", last }'
}

# log_offsets: where the slurmd logs end now.
log_offsets() {
	local f
	for f in "$QD_CLUSTER_DIR"/log/slurmd-*.log; do
		echo "$f $(stat -c %s "$f")"
	done >"$work/log-offsets"
}

# one_run SETTING: "SRUN_US WHOLE_US" of one srun as alice: its wall
# time, and from its start to the end of the job's epilog (- when slurmd
# said none). With no plugin slurmd runs no epilog at all (no Epilog=, no
# SPANK job epilog: src/slurmd/slurmd/req.c answers the job's end at once),
# so there the job is whole when srun returns.
one_run() {
	local t0 t1 end
	log_offsets
	t0=$(date +%s%N)
	as alice srun -n 1 --gres=gpu:1 true
	t1=$(date +%s%N)
	[ "$RC" -eq 0 ] || die "srun failed: $OUT"
	wait_for "the job's epilog" 30 queue_empty >&2 || die "a job stayed in the queue"
	if [ "$1" = empty ]; then
		end=$((t1 / 1000))
	else
		end=$(epilog_end $((t0 / 1000)))
	fi
	echo "$(((t1 - t0) / 1000)) $([ -n "$end" ] && echo $((end - t0 / 1000)) || echo -)"
}

# summary: "n median p10 p90 min max" of the numbers on stdin.
summary() {
	sort -n | awk '{ a[NR] = $1 } END {
		if (!NR) { print "0 - - - - -"; exit }
		printf "%d %d %d %d %d %d\n", NR, a[int((NR + 1) / 2)],
			a[int((NR - 1) * 0.1) + 1], a[int((NR - 1) * 0.9) + 1], a[1], a[NR] }'
}
median() { summary | cut -d' ' -f2; }
# minus A B / plus A B: arithmetic on medians, "-" when either is "-" (no
# runs or no traced process), so that a short run still writes its report.
minus() { if [ "$1" = - ] || [ "$2" = - ]; then echo -; else echo $(($1 - $2)); fi; }
plus() { if [ "$1" = - ] || [ "$2" = - ]; then echo -; else echo $(($1 + $2)); fi; }
row() { printf '%-26s %6s %8s %8s %8s %8s %8s\n' "$@"; }

# traced FILE: the hooks' calls, and the spank prolog/epilog processes:
# from the exec of a pid that ran a job prolog|epilog hook to its exit,
# named process_job_* (the plugin's) or process_hooks_job_* (hooks only).
traced() {
	perf script -i "$1" --ns -F pid,tid,time,event 2>/dev/null |
		awk '{ split($1, id, "/"); pid = id[1]; tid = id[2]; t = $2; sub(":", "", t)
		ev = $3; sub(":$", "", ev) }
	ev == "sched:sched_process_exec" { exec_t[pid] = t; sync_us[pid] = 0 }
	ev ~ /^syscalls:sys_enter_f(data)?sync$/ { sync_t[tid] = t }
	ev ~ /^syscalls:sys_exit_f(data)?sync$/ && (tid in sync_t) {
		sync_us[pid] += (t - sync_t[tid]) * 1e6; delete sync_t[tid] }
	ev == "sched:sched_process_exit" && pid == tid && (pid in kind) && (pid in exec_t) {
		printf "process_%s %.0f\n", kind[pid], (t - exec_t[pid]) * 1e6
		printf "fsync_%s %.0f\n", kind[pid], sync_us[pid]; delete kind[pid] }
	ev ~ /^qdlaunch:hooks_/ { h = ev; sub("qdlaunch:", "", h); kind[pid] = h; next }
	ev ~ /^qdlaunch:/ && ev !~ /_ret__return$/ { h = ev; sub("qdlaunch:", "", h)
		start[tid " " h] = t
		if (h ~ /^slurm_spank_job_/) { kind[pid] = h; sub("slurm_spank_", "", kind[pid]) } }
	ev ~ /_ret__return$/ { h = ev; sub("qdlaunch:", "", h); sub("_ret__return", "", h)
		if ((tid " " h) in start) {
			printf "%s %.0f\n", h, (t - start[tid " " h]) * 1e6; delete start[tid " " h] } }'
}

# report NAME: the block of one setup.
report() {
	local d=$work/$1 s r k n m p10 p90 lo hi e h p own=0 calls jobs
	echo "## $1: $(prolog_flags "$1" | grep . || echo no PrologFlags), proctrack/cgroup, task/none"
	row what n median p10 p90 min max
	for s in "${SETTINGS[@]}"; do
		read -r n m p10 p90 lo hi < <(awk -v s="$s" '$1 == s { print $3 }' "$d/srun" | summary)
		row "srun_$s" "$n" "$m" "$p10" "$p90" "$lo" "$hi"
	done
	for s in "${SETTINGS[@]}"; do
		read -r n m p10 p90 lo hi < <(awk -v s="$s" '$1 == s && $4 != "-" { print $4 }' "$d/srun" | summary)
		row "whole_$s" "$n" "$m" "$p10" "$p90" "$lo" "$hi"
	done
	echo "# per round: median srun minus empty's in the same round, microseconds"
	printf '%-26s %6s %8s %8s\n' round runs hooks plugin
	: >"$d/rounds"
	for ((r = 0; r < ROUNDS; r++)); do
		read -r e h p < <(round_medians "$d" "$r" 3)
		printf '%-26s %6s %8s %8s\n' "round_$r" "$RUNS" "$(minus "$h" "$e")" "$(minus "$p" "$e")"
		echo "$(minus "$h" "$e") $(minus "$p" "$e")" >>"$d/rounds"
	done
	whole_rounds "$d"
	for k in process_hooks_job_prolog process_hooks_job_epilog \
		process_job_prolog process_job_epilog fsync_hooks_job_prolog \
		fsync_hooks_job_epilog fsync_job_prolog fsync_job_epilog $FUNCS; do
		read -r n m p10 p90 lo hi < <(awk -v k="$k" '$1 == k { print $2 }' "$d/traced" | summary)
		row "$k" "$n" "$m" "$p10" "$p90" "$lo" "$hi"
	done
	jobs=$(awk '$1 == "plugin"' "$d/srun" | wc -l)
	for k in $OWN; do
		calls=$(awk -v k="$k" '$1 == k' "$d/traced" | wc -l)
		m=$(awk -v k="$k" '$1 == k { print $2 }' "$d/traced" | median)
		[ "$m" = - ] || own=$((own + m * calls / (jobs + ROUNDS)))
	done
	echo "# per job, microseconds: srun's median difference from empty over the"
	echo "# rounds, plus the epilog process; own: the plugin's hooks (init and exit"
	echo "# in each process, job prolog, task_post_fork of each step, task_exit, job"
	echo "# epilog), medians x calls per job"
	printf 'per_job_hooks %s\n' "$(plus "$(cut -d' ' -f1 "$d/rounds" | grep -v '^-$' | median)" \
		"$(awk '$1 == "process_hooks_job_epilog" { print $2 }' "$d/traced" | median)")"
	printf 'per_job_plugin %s\n' "$(plus "$(cut -d' ' -f2 "$d/rounds" | grep -v '^-$' | median)" \
		"$(awk '$1 == "process_job_epilog" { print $2 }' "$d/traced" | median)")"
	printf 'per_job_plugin_own %s\n' "$own"
	goal "$d"
}

# col FILE N: column N of FILE's lines, "-" left out.
col() { cut -d' ' -f"$2" "$1" | grep -v '^-$'; }

# round_medians DIR ROUND COLUMN: "EMPTY HOOKS PLUGIN", the settings'
# medians of that column of DIR/srun in that round ("-" left out).
round_medians() {
	local s
	for s in "${SETTINGS[@]}"; do
		awk -v s="$s" -v r="$2" -v c="$3" '$1 == s && $2 == r && $c != "-" { print $c }' \
			"$1/srun" | median
	done | paste -sd' '
}

# whole_rounds DIR: per round, the whole job's medians' differences:
# Slurm's charge (hooks - empty) and qosdeny's own (plugin - hooks).
whole_rounds() {
	local r e h p
	echo "# whole job (srun's start to the epilog's end), per round: median"
	echo "# hooks - empty (Slurm's charge) and plugin - hooks (qosdeny's own), us"
	printf '%-26s %6s %8s %8s\n' round runs slurm qosdeny
	: >"$1/whole_rounds"
	for ((r = 0; r < ROUNDS; r++)); do
		read -r e h p < <(round_medians "$1" "$r" 4)
		printf '%-26s %6s %8s %8s\n' "whole_round_$r" "$RUNS" "$(minus "$h" "$e")" "$(minus "$p" "$h")"
		echo "$(minus "$h" "$e") $(minus "$p" "$h")" >>"$1/whole_rounds"
	done
}

# goal DIR: qosdeny's own time per whole job against the 2 ms goal, with
# the plugin's fsyncs per job (prolog's and epilog's medians) taken out.
goal() {
	local charge own sync net lo hi
	charge=$(col "$1/whole_rounds" 1 | median)
	own=$(col "$1/whole_rounds" 2 | median)
	read -r lo hi < <(col "$1/whole_rounds" 2 | summary | cut -d' ' -f5,6)
	sync=$(plus "$(awk '$1 == "fsync_job_prolog" { print $2 }' "$1/traced" | median)" \
		"$(awk '$1 == "fsync_job_epilog" { print $2 }' "$1/traced" | median)")
	net=$(minus "$own" "$sync")
	printf 'slurm_charge_per_job %s\n' "$charge"
	printf 'qosdeny_own_per_job %s (rounds %s to %s)\n' "$own" "$lo" "$hi"
	printf 'qosdeny_fsync_per_job %s\n' "$sync"
	if [ "$net" = - ]; then
		echo "goal: qosdeny's own time per whole job under 2 ms: not measured"
	elif [ "$net" -lt 2000 ]; then
		echo "goal: qosdeny's own time per whole job under 2 ms: met, ${net} us without its fsyncs (${sync} us), $((2000 - net)) us to spare"
	else
		echo "goal: qosdeny's own time per whole job under 2 ms: missed, ${net} us without its fsyncs (${sync} us), $((net - 2000)) us over"
	fi
}

# client_runs: "SETTING US" per sbatch --test-only as alice, CLIENT_RUNS per
# setting, empty and plugin alternating in blocks of 20 (no slurmd
# restart: sbatch reads plugstack.conf itself).
client_runs() {
	local b i s t0 t1
	for ((b = 0; b < CLIENT_RUNS / 20; b++)); do
		for s in empty plugin; do
			case $s in
			plugin) echo "required $SO redis=$QD_REDIS_ADDR ${QD_BENCH_OPTS:-}" >"$plugstack" ;;
			*) : >"$plugstack" ;;
			esac
			for ((i = 0; i < 20; i++)); do
				t0=$(date +%s%N)
				as alice sbatch --test-only -n1 --wrap true
				t1=$(date +%s%N)
				[ "$RC" -eq 0 ] || die "sbatch --test-only failed: $OUT"
				echo "$s $(((t1 - t0) / 1000))"
			done
		done
	done
}

# loading: what loading each library costs a fresh process (load_cost):
# the do-nothing plugin, the plugin measured, and the libraries qosdeny
# loads only to talk to Redis (hiredis; with TLS, hiredis_ssl, libssl and
# libcrypto after it).
loading() {
	local so hiredis ssl
	so() { objdump -p "$(cc -print-file-name="lib$1.so")" 2>/dev/null | sed -n 's/^ *SONAME *//p'; }
	hiredis=$(so hiredis)
	ssl=$(so hiredis_ssl)
	echo "## loading: dlopen(RTLD_NOW) in a fresh process, microseconds"
	row what n median p10 p90 min max
	"$QD_BUILD/tests/load_cost" 200 "$HOOKS_SO" "$SO" "$hiredis" \
		${ssl:+"$hiredis+$ssl"}
}

# client_report FILE
client_report() {
	local n m p10 p90 lo hi e p
	echo "## client: sbatch --test-only as alice, with and without the plugstack.conf line"
	row what n median p10 p90 min max
	for s in empty plugin; do
		read -r n m p10 p90 lo hi < <(awk -v s="$s" '$1 == s { print $2 }' "$1" | summary)
		row "client_$s" "$n" "$m" "$p10" "$p90" "$lo" "$hi"
	done
	e=$(awk '$1 == "empty" { print $2 }' "$1" | median)
	p=$(awk '$1 == "plugin" { print $2 }' "$1" | median)
	if [ "$(minus "$p" "$e")" = - ]; then
		echo "goal: a client command under 0.5 ms more with the plugin: not measured"
	elif [ $((p - e)) -lt 500 ]; then
		echo "goal: a client command under 0.5 ms more with the plugin: met, $((p - e)) us"
	else
		echo "goal: a client command under 0.5 ms more with the plugin: missed, $((p - e)) us"
	fi
}

# perf records through each setup; the probes fire in the plugins'
# settings only, adding a few microseconds per probed call to those
# (plugin_time.sh measures a probe pair: ~5 us).
rcli flushall >/dev/null
for setup_name in $SETUPS; do
	d=$work/$setup_name
	mkdir -p "$d"
	: >"$d/srun"
	setup "$setup_name"
	perf record -q -a -o "$d/perf.data" -e 'qdlaunch:*' \
		-e sched:sched_process_exec -e sched:sched_process_exit \
		-e 'syscalls:sys_enter_fsync' -e 'syscalls:sys_exit_fsync' \
		-e 'syscalls:sys_enter_fdatasync' -e 'syscalls:sys_exit_fdatasync' \
		2>"$d/perf.err" &
	rec=$!
	for ((r = 0; r < ROUNDS; r++)); do
		for ((i = 0; i < ${#SETTINGS[@]}; i++)); do
			s=${SETTINGS[$(((i + r) % ${#SETTINGS[@]}))]}
			use "$s"
			one_run "$s" >/dev/null
			for ((j = 0; j < RUNS; j++)); do
				t=$(one_run "$s") || exit 1
				echo "$s $r $t" >>"$d/srun"
			done
			echo "bench: $setup_name round $r $s done" >&2
		done
	done
	kill -INT "$rec"
	wait "$rec"
	rec=
	traced "$d/perf.data" >"$d/traced"
done
[ "$(rcli dbsize)" -gt 0 ] || die "the plugin reported nothing to Redis"
[ "$CLIENT_RUNS" -gt 0 ] && client_runs >"$work/client"
elapsed=$((SECONDS - T_START))

{
	echo "# what spank_qosdeny.so adds to a job's launch, cgroup v1 test cluster (2 slurmd"
	echo "# on this host, the plugin's devices cgroup), Redis reporting on, beside a"
	echo "# plugin whose job prolog and epilog do nothing (hooks); $ROUNDS rounds x $RUNS"
	echo "# jobs per setting, settings rotating, slurmd restarted for each. srun: wall"
	echo "# time of srun -n1 --gres=gpu:1 true (prolog + step), each started once the"
	echo "# job before left the queue (its epilog done). traced: slurm_spank_*: time"
	echo "# inside each SPANK hook of the plugin's, qd_*: inside the functions they"
	echo "# spend it in; process_*: slurmstepd spank prolog|epilog from exec to exit"
	echo "# (slurmd runs them only for a plugin with those hooks). Microseconds."
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(machine), $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), run took ${elapsed}s"
	echo "# plugin: $SO"
	for setup_name in $SETUPS; do
		report "$setup_name"
	done
	[ "$CLIENT_RUNS" -gt 0 ] && client_report "$work/client"
	loading
} | tee "$out"
