#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench, part 4: the time slurmctld spends inside a job_submit plugin
# per submission, measured in slurmctld itself with uprobes on the plugin's
# job_submit() entry and return (perf probe), for job_submit/qosdeny (the
# docs/worked-example.md's policy) and job_submit/lua (tests/bench/job_submit.lua),
# at each queue length, in one slurmctld process (bench-lib.sh). Next to
# it, sdiag's average for the whole RPC in the same row and without any
# plugin: the plugin's share of what a submission costs slurmctld, which
# submit.sh's side-by-side table cannot resolve on a small machine (its
# rounds spread by more than the plugin costs).
#
# Rows: accepted (fill_queue --hold --gres gpu:1, one request at a time)
# and denied (-q interactive --gpus 5, over the per-job cap; with no plugin
# slurmctld queues it). A probe pair costs a few microseconds of its own
# (two traps), included in the times: the probe row measures it on
# qd_request_from_desc, a function of a few dozen instructions.
#
# Needs perf (linux-perf; `make bench` installs it) and root.
# Environment: QD_BENCH_QUEUED ("1000 20000"), QD_BENCH_CALLS (2000 per
# row), QD_BENCH_ROUNDS (3), QD_BENCH_OUT (tests/bench/plugin_time.txt).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/bench-lib.sh"
CALLS=${QD_BENCH_CALLS:-2000}
ROUNDS=${QD_BENCH_ROUNDS:-3}
out=${QD_BENCH_OUT:-$here/bench/plugin_time.txt}
work=$QD_BUILD/bench-plugin-time
QD_SO=$QD_BUILD/job_submit_qosdeny.so
LUA_SO=/usr/lib/x86_64-linux-gnu/slurm-wlm/job_submit_lua.so
T_START=$SECONDS

command -v perf >/dev/null || die "perf missing (apt-get install linux-perf)"
[ -r "$QD_SO" ] || die "$QD_SO missing (make)"
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing ||
	die "cannot mount tracefs for uprobes"

probes_off() { perf probe -q -d 'qdbench:*' 2>/dev/null || true; }
probes_off
perf probe -q -x "$QD_SO" -a 'qdbench:qd=job_submit' -a 'qdbench:qd_ret=job_submit%return' \
	-a 'qdbench:nop=qd_request_from_desc' -a 'qdbench:nop_ret=qd_request_from_desc%return' &&
	perf probe -q -x "$LUA_SO" -a 'qdbench:lua=job_submit' -a 'qdbench:lua_ret=job_submit%return' ||
	die "perf probe failed"
trap probes_off EXIT

bench_cluster_up
trap 'probes_off; cluster_down' EXIT
grep -q "$QD_SO" "/proc/$CTLD_PID/maps" 2>/dev/null || use_config qosdeny
grep -q "$QD_SO" "/proc/$CTLD_PID/maps" || die "slurmctld did not load $QD_SO"

# row CONFIG KIND EVENT: CALLS submissions of KIND under perf, probes on
# EVENT (qd, lua, nop; "-" for none); prints "calls rpc_avg_us" and leaves
# the per-call times in $work/times
row() {
	local config=$1 kind=$2 ev=$3 rec=() c avg ctl ack
	local job=(--hold --gres gpu:1)
	[ "$kind" = denied ] && job=(--hold -q interactive --gpus 5 --keep-going)
	: >"$work/times"
	if [ "$ev" != - ]; then
		# started disabled and enabled through its control fifo: the
		# ack says the probes are live before the first request
		rm -f "$work/ctl" "$work/ack"
		mkfifo "$work/ctl" "$work/ack"
		perf record -q -o "$work/perf.data" -p "$CTLD_PID" -D -1 \
			--control "fifo:$work/ctl,$work/ack" \
			-e "qdbench:$ev" -e "qdbench:${ev}_ret__return" 2>"$work/perf.err" &
		rec=($!)
		exec {ctl}>"$work/ctl" {ack}<"$work/ack"
		echo enable >&"$ctl"
		read -r -t 10 -u "$ack" _ || die "perf record: $(cat "$work/perf.err")"
		exec {ctl}>&- {ack}<&-
	fi
	sdiag -r >/dev/null
	"$fill" --user alice --count "$CALLS" "${job[@]}" -J bench >"$work/fill.out" 2>&1
	read -r c avg < <(sdiag_avg REQUEST_SUBMIT_BATCH_JOB)
	if [ ${#rec[@]} -gt 0 ]; then
		kill -INT "${rec[0]}"
		wait "${rec[0]}"
		probe_durations "$work/perf.data" qdbench "$ev" >"$work/times"
	fi
	case $config/$kind in
	*/accepted | none/denied) grep -q " $CALLS accepted 0 rejected" "$work/fill.out" ;;
	*/denied) grep -q " 0 accepted $CALLS rejected" "$work/fill.out" ;;
	esac || die "$config $kind: $(cat "$work/fill.out")"
	[ "$c" -eq "$CALLS" ] || die "$config $kind: sdiag counted $c, sent $CALLS"
	if [ "$ev" != - ] && [ "$(wc -l <"$work/times")" -ne "$CALLS" ]; then
		die "$config $kind: $(wc -l <"$work/times") calls traced, $CALLS sent"
	fi
	clear_bench
	echo "$c $avg"
}

times=$work/times.all
rpcs=$work/rpc.all
: >"$times"
: >"$rpcs"
# keep ROW_KEY EVENT CONFIG KIND: the row's figures into the run's files
keep() {
	local try
	for try in 1 2; do
		read -r c avg < <(row "$3" "$4" "$2") && [ -n "${avg:-}" ] && break
		# seen once in ~100,000 requests: "Broken pipe" from slurmctld
		# right after a reconfigure; a dropped request is no figure
		[ "$try" -eq 1 ] || exit 1
		echo "bench: $1: row failed, measured again" >&2
		clear_bench
	done
	echo "$1 $avg" >>"$rpcs"
	awk -v p="$1" '{ print p, $1 }' "$work/times" >>"$times"
	echo "$1: rpc_avg=$avg traced=$(wc -l <"$work/times")" >&2
}
for q in $QUEUED; do
	for ((r = 0; r < ROUNDS; r++)); do
		for ((k = 0; k < ${#CONFIGS[@]}; k++)); do
			config=${CONFIGS[$(((k + r) % ${#CONFIGS[@]}))]}
			use_config "$config"
			fill_to "$q"
			ev=-
			[ "$config" = qosdeny ] && ev=qd
			[ "$config" = lua ] && ev=lua
			for kind in accepted denied; do
				keep "$q $config $kind" "$ev" "$config" "$kind"
			done
			[ "$config" = qosdeny ] && keep "$q probe accepted" nop qosdeny accepted
		done
	done
done
same_ctld
elapsed=$((SECONDS - T_START))


{
	echo "# time inside the job_submit plugin per submission, traced in slurmctld"
	echo "# (uprobes on job_submit entry/return), microseconds, $CALLS calls per row and"
	echo "# $ROUNDS rounds pooled; rpc_avg: sdiag's REQUEST_SUBMIT_BATCH_JOB average over"
	echo "# the same calls (median of the rounds); share: plugin p50 / rpc_avg of"
	echo "# the same row. probe: the tracing's own cost, a probe pair on a function"
	echo "# of a few dozen instructions (qd_request_from_desc), included in every time."
	echo "# accepted: --hold --gres=gpu:1; denied: -q interactive --gpus=5 (no plugin:"
	if slurm_at_least 24.05; then
		echo "# queued). One client, one request at a time; one slurmctld per configuration"
		echo "# (from 24.05 a reconfigure starts a new slurmctld process)."
	else
		echo "# queued). One client, one request at a time; one slurmctld for the run."
	fi
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(machine), $(uname -r), run took ${elapsed}s"
	printf '%-7s %-8s %-9s %6s %7s %7s %7s %8s %7s\n' queued config kind calls p50 p90 \
		p99 rpc_avg share
	for q in $QUEUED; do
		for config in none probe qosdeny lua; do
			for kind in accepted denied; do
				key="$q $config $kind"
				avg=$(awk -v k="$key" '$1 " " $2 " " $3 == k { print $4 }' "$rpcs" |
					sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
				[ -n "$avg" ] || continue
				awk -v k="$key" '$1 " " $2 " " $3 == k { print $4 }' "$times" |
					sort -n >"$work/sorted"
				n=$(wc -l <"$work/sorted")
				if [ "$n" -eq 0 ]; then
					printf '%-7s %-8s %-9s %6s %7s %7s %7s %8d %7s\n' $key - - - - "$avg" -
					continue
				fi
				p50=$(pick "$n" 0.5 <"$work/sorted")
				printf '%-7s %-8s %-9s %6d %7.1f %7.1f %7.1f %8d %6.1f%%\n' $key "$n" "$p50" \
					"$(pick "$n" 0.9 <"$work/sorted")" "$(pick "$n" 0.99 <"$work/sorted")" \
					"$avg" "$(awk -v a="$p50" -v b="$avg" 'BEGIN { print a * 100 / b }')"
			done
		done
	done
} | tee "$out"
