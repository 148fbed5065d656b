#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench: site_factor/qosdeny inside the real slurmctld (22.05 here),
# timed with uprobes (perf probe) on the plugin's entry points and on the
# background refresh's steps, on the throwaway bench cluster (bench-lib.sh)
# with priority/multifactor, PriorityCalcPeriod=1 and
# PrioritySiteFactorParameters=weight=10000,interval=5.
#
# Associations: 1,000 accounts (sfa0000-sfa0999, 10 share classes), 100
# users without Unix accounts (sfu000-sfu099, 10 per account: 10,000 user
# associations, two share classes per 100 accounts) and the test users in
# the first 100 accounts (300 more), so that held jobs can be spread over
# 300 associations; usage hashes in Redis for every user association.
#
# 1. Submission cost, site factor off (PrioritySiteFactorPlugin unset) and
#    on, with QD_BENCH_QUEUED (1000 20000) held jobs queued: sdiag's
#    REQUEST_SUBMIT_BATCH_JOB average over CALLS submissions (pending in a
#    DOWN partition: held jobs skip the priority plugin), and the
#    time inside site_factor_p_set (uprobes, perf record). Switching costs a
#    slurmctld restart (state kept): 22.05 loads the site factor plugin
#    once. ROUNDS rounds, the order alternating.
# 2. site_factor_p_update every PriorityCalcPeriod (1 minute) with
#    QD_BENCH_PENDING (1000 10000 100000) held jobs: SAMPLES calls each,
#    traced through a tracefs instance of our own (read while it runs), and
#    beside them the refresh's steps in slurmctld: the snapshot
#    (qd_sf_snapshot_take: association read lock, then the job read lock
#    while it walks every job), publishing running jobs and reading usage
#    (Redis), qd_fs_compute, qd_factor_table_build.
#
# Needs root and perf (linux-perf). Set QD_CLUSTER_DIR to keep clear of
# another cluster on the host. Environment: QD_BENCH_QUEUED,
# QD_BENCH_PENDING, QD_BENCH_CALLS (1000), QD_BENCH_ROUNDS (2),
# QD_BENCH_SAMPLES (2), QD_BENCH_ACCOUNTS (1000, a multiple of 100),
# QD_BENCH_OUT (tests/bench/site_factor_ctld.txt).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/bench-lib.sh"
SUBMIT_Q=${QD_BENCH_QUEUED:-1000 20000}
PENDING=${QD_BENCH_PENDING:-1000 10000 100000}
QUEUED="$SUBMIT_Q $PENDING" # bench_cluster_up's MaxJobCount
CALLS=${QD_BENCH_CALLS:-1000}
ROUNDS=${QD_BENCH_ROUNDS:-2}
SAMPLES=${QD_BENCH_SAMPLES:-2}
# hundreds of accounts with 10 users each: slurmdbd adds associations
# slower the more it has (~4 per second near 2,000 on a loaded 2-core VM)
ACCOUNTS=${QD_BENCH_ACCOUNTS:-1000}
out=${QD_BENCH_OUT:-$here/bench/site_factor_ctld.txt}
work=$QD_BUILD/bench-site-factor
# The plugins slurmctld loads, copied: a rebuild of build/*.so during the
# run must not change what is traced.
plugdir=$QD_BUILD/bench-site-factor-plugins
SF_SO=$plugdir/site_factor_qosdeny.so
TR=/sys/kernel/tracing
INST=$TR/instances/qdsfbench
T_START=$SECONDS

command -v perf >/dev/null || die "perf missing (apt-get install linux-perf)"
[ -r "$QD_BUILD/site_factor_qosdeny.so" ] || die "site_factor_qosdeny.so missing (make)"
mountpoint -q $TR || mount -t tracefs nodev $TR || die "cannot mount tracefs"
rm -rf "$plugdir"
mkdir -p "$plugdir"
cp "$QD_BUILD/site_factor_qosdeny.so" "$QD_BUILD/spank_qosdeny.so" "$plugdir/" ||
	die "cannot copy the plugins"
export QD_PLUGINDIR=$plugdir

# probes: function name -> event name (entry; the return is NAME_ret__return)
PROBES="site_factor_p_set:set site_factor_p_update:upd qd_sf_snapshot_take:snap
qd_redis_publish_running:pub qd_fs_read_usage:read qd_fs_compute:comp
qd_factor_table_build:tab"
probes_off() {
	[ -d "$INST" ] && { echo 0 >"$INST/tracing_on"; rmdir "$INST" 2>/dev/null; }
	perf probe -q -d 'qdsf:*' 2>/dev/null || true
}
probes_off
args=()
for p in $PROBES; do
	args+=(-a "qdsf:${p#*:}=${p%:*}" -a "qdsf:${p#*:}_ret=${p%:*}%return")
done
perf probe -q -x "$SF_SO" "${args[@]}" || die "perf probe failed"
trap probes_off EXIT
# a signal still runs the EXIT trap (probes removed, cluster stopped)
trap 'exit 143' INT TERM

# no job_submit plugin: the site factor alone
unset QD_JOBSUBMIT
bench_cluster_up
trap 'probes_off; cluster_down' EXIT
echo "optional spank_qosdeny.so redis=127.0.0.1:$QD_REDIS_PORT" >"$QD_SLURM_ETC/plugstack.conf"
base_extra=$(cat "$QD_SLURM_CONF_EXTRA")

# set_factor on|off: slurmctld restarted (state kept) with or without the
# site factor; priority/multifactor in both.
FACTOR=
set_factor() {
	[ "$FACTOR" = "$1" ] && return 0
	{
		echo "$base_extra"
		# the measured jobs wait here, not held: slurmctld gives a held
		# job priority 0 without asking the priority plugin (no p_set)
		echo "PartitionName=parked Nodes=n1,n2 MaxTime=INFINITE State=DOWN"
		echo "PriorityType=priority/multifactor"
		echo "PriorityCalcPeriod=1"
		echo "PriorityWeightAge=1000"
		echo "PriorityWeightFairshare=10000"
		if [ "$1" = on ]; then
			echo "PrioritySiteFactorPlugin=site_factor/qosdeny"
			echo "PrioritySiteFactorParameters=weight=10000,interval=5"
		fi
	} >"$QD_SLURM_CONF_EXTRA"
	bash "$cluster" write-conf && bash "$cluster" restart-ctld >"$work/restart.out" 2>&1 ||
		die "slurmctld did not restart with the site factor $1: $(tail -5 "$work/restart.out")"
	wait_for "slurmctld" 60 scontrol ping >/dev/null || die "slurmctld not answering"
	CTLD_PID=$(ctld_pid)
	# (22.05's scontrol show config prints PrioritySiteFactorPlugin as
	# (null) either way: the mapped plugin tells)
	if [ "$1" = on ]; then
		grep -q "$SF_SO" "/proc/$CTLD_PID/maps" || die "slurmctld did not load $SF_SO"
	elif grep -q "$SF_SO" "/proc/$CTLD_PID/maps"; then
		die "slurmctld loaded $SF_SO with the site factor off"
	fi
	as alice sbatch -J bench --hold --gres=gpu:1 --wrap true
	[ "$RC" -eq 0 ] || die "site factor $1 warm-up: $OUT"
	scancel -u alice -n bench
	FACTOR=$1
}

# --- Associations and their usage.
t0=$SECONDS
for g in $(seq 0 $((ACCOUNTS / 100 - 1))); do
	accts=$(seq -f 'sfa%04g' $((g * 100)) $((g * 100 + 99)) | paste -sd,)
	sacctmgr -i add account "$accts" parent=root fairshare=$((g * 100 + 50)) >/dev/null ||
		die "sacctmgr add account"
	for h in 0 1; do
		users=$(seq -f 'sfu%03g' $((g * 10 + h * 5)) $((g * 10 + h * 5 + 4)) | paste -sd,)
		sacctmgr -i add user "$users" account="$accts" fairshare=$((h * 40 + g + 1)) \
			>/dev/null 2>&1 || die "sacctmgr add user"
	done
done
MYACCTS=$(seq -f 'sfa%04g' 0 99)
sacctmgr -i add user alice,bob,charlie account="$(echo $MYACCTS | tr ' ' ,)" >/dev/null 2>&1 ||
	die "sacctmgr add user (test users)"
N_ASSOC=$(sacctmgr -n -P show assoc format=user | wc -l)
N_USER_ASSOC=$(sacctmgr -n -P show assoc format=user | grep -c '[a-z]')
assoc_s=$((SECONDS - t0))
# usage hashes (v: decayed GPU-seconds, t: when) for every user
# association and its account, as usage records leave them
now=$(date +%s)
sacctmgr -n -P show assoc format=account,user | awk -F'|' -v c="$QD_CLUSTER_NAME" -v now="$now" '
	BEGIN { srand(7) }
	$2 != "" && $1 != "root" {
		if (rand() < 0.1) next
		v = int((1 + rand() * 1000) * 2 ^ int(rand() * 14))
		printf "HSET qosdeny:{%s}:assoc:%s:%s v %d t %d\n", c, $1, $2, v, now
		acc[$1] += v
	}
	END { for (a in acc) printf "HSET qosdeny:{%s}:account:%s v %d t %d\n", c, a, acc[a], now }' |
	redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" --pipe >"$work/redis.out" 2>&1 ||
	die "redis: $(cat "$work/redis.out")"
N_KEYS=$(redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" dbsize)
echo "bench: $N_ASSOC associations ($N_USER_ASSOC of users), $N_KEYS Redis keys, ${assoc_s}s" >&2

# fill_spread Q: held filler jobs topped up to Q, spread over the test
# users' 300 associations in the first 100 accounts.
fill_spread() {
	local have need per u a n i=0
	have=$(pending fill)
	need=$(($1 - have))
	[ "$need" -gt 0 ] || return 0
	per=$(((need + 299) / 300))
	for a in $MYACCTS; do
		for u in alice bob charlie; do
			n=$((need < per ? need : per))
			[ "$n" -gt 0 ] || break 2
			"$fill" --user $u --account "$a" --count "$n" --hold --gres gpu:1 -J fill \
				>>"$work/fill.log" 2>&1 || die "fill_queue: $(tail -3 "$work/fill.log")"
			need=$((need - n))
			i=$((i + 1))
		done
	done
	[ "$(pending fill)" -eq "$1" ] || die "queue holds $(pending fill) jobs, not $1"
}

# submit_row Q CONFIG: CALLS held submissions (alice, gpu:1, one account),
# p_set traced when on; "Q CONFIG rpc_avg" into rpcs, p_set times into sets
submit_row() {
	local rec=() c avg ctl ack
	if [ "$2" = on ]; then
		rm -f "$work/ctl" "$work/ack"
		mkfifo "$work/ctl" "$work/ack"
		perf record -q -o "$work/perf.data" -p "$CTLD_PID" -D -1 \
			--control "fifo:$work/ctl,$work/ack" \
			-e qdsf:set -e qdsf:set_ret__return 2>"$work/perf.err" &
		rec=($!)
		exec {ctl}>"$work/ctl" {ack}<"$work/ack"
		echo enable >&"$ctl"
		read -r -t 10 -u "$ack" _ || die "perf record: $(cat "$work/perf.err")"
		exec {ctl}>&- {ack}<&-
	fi
	sdiag -r >/dev/null
	"$fill" --user alice --account sfa0000 --count "$CALLS" --partition parked --gres gpu:1 -J bench \
		>"$work/fill.out" 2>&1
	read -r c avg < <(sdiag_avg REQUEST_SUBMIT_BATCH_JOB)
	if [ ${#rec[@]} -gt 0 ]; then
		kill -INT "${rec[0]}"
		wait "${rec[0]}"
		probe_durations "$work/perf.data" qdsf set >"$work/times"
		awk -v q="$1" '{ print q, $1 }' "$work/times" >>"$work/sets"
		[ "$(wc -l <"$work/times")" -ge "$CALLS" ] ||
			die "$1 on: $(wc -l <"$work/times") p_set calls traced, $CALLS sent"
	fi
	grep -q " $CALLS accepted 0 rejected" "$work/fill.out" || die "$1 $2: $(cat "$work/fill.out")"
	[ "$c" -eq "$CALLS" ] || die "$1 $2: sdiag counted $c, sent $CALLS"
	echo "$1 $2 $avg" >>"$work/rpcs"
	echo "bench: $1 queued, site factor $2: rpc_avg=$avg us" >&2
	clear_bench
}

# --- 1. Submissions, site factor off and on.
: >"$work/rpcs"
: >"$work/sets"
t1=$SECONDS
qi=0
for q in $SUBMIT_Q; do
	fill_spread "$q"
	for ((r = 0; r < ROUNDS; r++)); do
		# alternating, and the first of a queue length the last before it
		order="off on"
		[ $(((r + qi) % 2)) -eq 1 ] && order="on off"
		for config in $order; do
			set_factor "$config"
			submit_row "$q" "$config"
		done
	done
	qi=$((qi + ROUNDS))
done
submit_s=$((SECONDS - t1))

# calls FILE EV: milliseconds of each entry-return pair of EV (per thread)
calls() {
	awk -v e="$2:" -v r="$2_ret__return:" '
		/^#/ { next }
		{
			for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i; sub(":", "", t); ev = $(i + 1) }
			tid = $1; sub(/.*-/, "", tid)
		}
		ev == e { start[tid] = t }
		ev == r && (tid in start) { printf "%.3f\n", (t - start[tid]) * 1e3; delete start[tid] }' "$1"
}

# --- 2. p_update and the refresh, site factor on.
set_factor on
mkdir "$INST" || die "cannot make the tracefs instance $INST"
echo 8192 >"$INST/buffer_size_kb"
echo 0 >"$INST/tracing_on"
for p in $PROBES; do
	ev=${p#*:}
	[ "$ev" = set ] && continue
	echo 1 >"$INST/events/qdsf/$ev/enable"
	echo 1 >"$INST/events/qdsf/${ev}_ret__return/enable"
done
# complete p_update calls (entry and return) traced so far with q queued
upd_count() { calls "$work/trace.$q" upd | wc -l; }
# wait_samples: until SAMPLES calls are traced; 1 when a minute more passed
wait_samples() {
	local until=$((SECONDS + SAMPLES * 60 + 70))
	while [ $SECONDS -lt $until ]; do
		cat "$INST/trace" >"$work/trace.$q"
		[ "$(upd_count)" -ge "$SAMPLES" ] && return 0
		sleep 2
	done
	return 1
}
t2=$SECONDS
for q in $PENDING; do
	fill_spread "$q"
	echo 0 >"$INST/tracing_on"
	echo >"$INST/trace"
	echo 1 >"$INST/tracing_on"
	# a call whose entry came before this window is not counted
	wait_samples || die "p_update was not called $SAMPLES times with $q queued"
	echo 0 >"$INST/tracing_on"
	echo "bench: $q pending: $(pending fill) held jobs, $(upd_count) p_update calls" >&2
done
update_s=$((SECONDS - t2))
same_ctld
elapsed=$((SECONDS - T_START))


{
	echo "# site_factor/qosdeny inside slurmctld $(slurmctld -V | awk '{ print $2 }'), traced with uprobes"
	echo "# (perf probe on build/site_factor_qosdeny.so), tests/bench/site_factor.sh"
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(machine), $(uname -r), load average"
	echo "# $(cut -d' ' -f1-3 /proc/loadavg) at the end; run took ${elapsed}s (associations ${assoc_s}s,"
	echo "# submissions ${submit_s}s, p_update ${update_s}s). Other tests may have run on the"
	echo "# same 2 cores: these are noisy; tests/bench/site_factor.txt has the in-process figures."
	echo "# $N_ASSOC associations ($N_USER_ASSOC of users: $ACCOUNTS accounts x 10 users without Unix"
	echo "# accounts, and alice, bob, charlie in 100 of the accounts), $N_KEYS usage hashes in"
	echo "# Redis. priority/multifactor, PriorityCalcPeriod=1,"
	echo "# PrioritySiteFactorParameters=weight=10000,interval=5."
	echo "#"
	echo "# site_factor_p_update, once a minute from the decay thread under the job"
	echo "# write lock: each call, ms (the probe pair's own cost, ~5 us, included),"
	echo "# held jobs of alice, bob and charlie spread over their 300 associations"
	printf '%-13s %s\n' pending_jobs p_update_ms
	for q in $PENDING; do
		printf '%-13s %s\n' "$q" "$(calls "$work/trace.$q" upd | head -n "$SAMPLES" | paste -sd' ')"
	done
	echo "#"
	echo "# the background refresh (every 5 s) in the same windows, median ms per call:"
	echo "# snapshot = qd_sf_snapshot_take (assoc_mgr read lock, then slurmctld's job read"
	echo "# lock while it walks every job); publish = running jobs into Redis; read ="
	echo "# usage out of Redis (SCAN, HMGET); compute = qd_fs_compute; table ="
	echo "# qd_factor_table_build"
	printf '%-13s %-6s %-9s %-8s %-8s %-8s %s\n' pending_jobs calls snapshot publish read compute table
	for q in $PENDING; do
		row=()
		for ev in snap pub read comp tab; do
			calls "$work/trace.$q" $ev | sort -n >"$work/sorted"
			n=$(wc -l <"$work/sorted")
			[ "$ev" = snap ] && row+=("$n")
			row+=("$( [ "$n" -gt 0 ] && pick "$n" 0.5 <"$work/sorted" || echo -)")
		done
		printf '%-13s %-6s %-9s %-8s %-8s %-8s %s\n' "$q" "${row[@]}"
	done
	echo "#"
	echo "# submissions: $CALLS submissions per row (fill_queue, alice, gpu:1, pending in a DOWN"
	echo "# partition: slurmctld calls no priority plugin for a held job), one"
	echo "# request at a time, $ROUNDS rounds; rpc_avg: sdiag's REQUEST_SUBMIT_BATCH_JOB"
	echo "# average, us, each round's; p_set: time inside site_factor_p_set, us (probe"
	echo "# pair included), pooled over the rounds; off: no PrioritySiteFactorPlugin"
	printf '%-7s %-7s %-20s %7s %7s %7s\n' queued factor rpc_avg_us p_set_p50 p90 p99
	for q in $SUBMIT_Q; do
		for config in off on; do
			avgs=$(awk -v q="$q" -v c="$config" '$1 == q && $2 == c { print $3 }' "$work/rpcs" | paste -sd' ')
			if [ "$config" = on ]; then
				awk -v q="$q" '$1 == q { print $2 }' "$work/sets" | sort -n >"$work/sorted"
				n=$(wc -l <"$work/sorted")
				printf '%-7s %-7s %-20s %7s %7s %7s\n' "$q" "$config" "$avgs" \
					"$(pick "$n" 0.5 <"$work/sorted")" "$(pick "$n" 0.9 <"$work/sorted")" \
					"$(pick "$n" 0.99 <"$work/sorted")"
			else
				printf '%-7s %-7s %-20s %7s %7s %7s\n' "$q" "$config" "$avgs" - - -
			fi
		done
	done
} | tee "$out"
