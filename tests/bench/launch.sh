#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench, part 2: what spank_qosdeny.so adds to a job's launch (job
# prolog + step + job epilog), on one throwaway cluster (cgroup v1 here),
# in one run. docs/performance.md, "Launch cost", says how to read it.
#
# Three slurm.conf setups, one block of output each, all with
# ProctrackType=proctrack/cgroup (CgroupPlugin=cgroup/v1 here) and
# TaskPlugin=task/none:
#   alloc    PrologFlags=Alloc, README's slurm.conf (the job prolog runs
#            at allocation);
#   contain  PrologFlags=Contain, what docs/gpu-and-usage.md asks for when ssh sessions
#            are to be confined (Alloc, and an extern step per job);
#   plain    no PrologFlags (the job prolog runs at the first step).
# proctrack/cgroup matters: with proctrack/linuxproc nothing of Slurm's
# moves a task between cgroups, and the first move after an idle spell,
# the plugin's, waits for an RCU grace period (~11 ms here) that Slurm's
# own move otherwise pays.
#
# Rounds, the settings (empty, hooks: the do-nothing plugin, plugin) and
# the two timings of each job (srun's, and the whole job's to its epilog's
# end): tests/bench/launch-lib.sh. Here each job is `srun -n1 --gres=gpu:1
# true` as alice.
#
# Beside it, traced system-wide with uprobes (perf probe, as
# plugin_time.sh): the plugin's SPANK hooks and the functions they spend
# their time in (FUNCS), and the life of each `slurmstepd spank
# prolog|epilog` process (exec to exit, sched tracepoints) of both
# plugins. per_job sums, per job, the medians of what the job waits for
# or the node spends on it: srun's difference from empty (median of the
# rounds) plus the epilog process.
#
# The whole job's rounds give Slurm's charge (hooks - empty) and qosdeny's
# own (plugin - hooks), the goal's measure (docs/performance.md "Launch
# cost"): under 2 ms per whole job, judged here with the time the plugin's
# processes spent in fsync(2) taken out and said beside it (this host's
# disk syncs several times slower than a node's). Then the client: CLIENT_RUNS `sbatch --test-only` as alice with
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
source "$here/bench/launch-lib.sh"
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

# launch_use SETTING (launch-lib.sh): plugstack.conf for it, slurmd
# restarted.
launch_use() {
	case $1 in
	plugin) echo "required $SO redis=$QD_REDIS_ADDR ${QD_BENCH_OPTS:-}" >"$plugstack" ;;
	hooks) echo "required $HOOKS_SO" >"$plugstack" ;;
	*) : >"$plugstack" ;;
	esac
	bash "$cluster" restart-slurmd >/dev/null || die "slurmd restart failed"
}

launch_job() { as alice srun -n 1 --gres=gpu:1 true; }
LAUNCH_LOGS=("$QD_CLUSTER_DIR"/log/slurmd-*.log)

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
	local d=$work/$1 k n m p10 p90 lo hi own=0 calls jobs sync
	echo "## $1: $(prolog_flags "$1" | grep . || echo no PrologFlags), proctrack/cgroup, task/none"
	launch_table "$d"
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
	sync=$(plus "$(awk '$1 == "fsync_job_prolog" { print $2 }' "$d/traced" | median)" \
		"$(awk '$1 == "fsync_job_epilog" { print $2 }' "$d/traced" | median)")
	launch_goal "$d" fsync "$sync"
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
	setup "$setup_name"
	perf record -q -a -o "$d/perf.data" -e 'qdlaunch:*' \
		-e sched:sched_process_exec -e sched:sched_process_exit \
		-e 'syscalls:sys_enter_fsync' -e 'syscalls:sys_exit_fsync' \
		-e 'syscalls:sys_enter_fdatasync' -e 'syscalls:sys_exit_fdatasync' \
		2>"$d/perf.err" &
	rec=$!
	launch_rounds "$d" || die "$setup_name: a job failed"
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
