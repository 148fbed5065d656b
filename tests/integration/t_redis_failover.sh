#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Redis Sentinel failover drill (docs/high-availability.md): a primary,
# one replica and three sentinels on loopback (ha-lib.sh), TLS where this
# build has it, qosdeny's ACL user. GPU jobs of alice, bob and charlie end
# continuously on both nodes while the primary is killed (kill -9), comes
# back as a replica, and the new primary is killed in turn; then a replica
# is promoted while the old primary still runs (CLIENT PAUSE, SENTINEL
# FAILOVER); then every sentinel stops while the primary stays. Afterwards
# every job has its record once, RawUsage is the records' sum, no prolog or
# epilog outlasted timeout_ms, and slurmctld logged each outage once.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
source "$(dirname "$0")/usage-lib.sh"
source "$(dirname "$0")/ha-lib.sh"
EXTRA=$QD_CLUSTER_DIR/site-factor.conf
INTERVAL=5
TIMEOUT_MS=1000
# What a slurmstepd spank prolog or epilog may take beyond timeout_ms:
# starting it and loading the plugins (built with ASan in the side lane),
# on a loaded host. The longest seen: 1,467 to 1,564 ms in make check's
# runs until 57, 1,997 and 2,086 ms in run 58 on a host at load 15 (the
# epilog too, which waits on nothing new). Below 2 x timeout_ms plus a
# start, so that a second wait on Redis still fails it.
STEPD_SLACK_MS=1200
JOBS=$HA/jobs
trap 'touch "$HA/stream.stop" "$HA/timer.stop"; ha_stop' EXIT

now_ms() { date +%s%3N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }
log_count() { grep -c "$1" "$QD_CTLD_LOG"; }
BEGINS="qosdeny: site factor: .*the factors keep their last values"
ENDS="qosdeny: site factor: .* answers again"

rm -rf "$HA"
mkdir -p "$HA"

# --- TLS where hiredis has hiredis_ssl (the build's QD_HAVE_TLS); else
# the TLS options are refused with a qosdeny: line, and the drill runs
# without TLS.
: >"$HA/ca.pem"
echo "required spank_qosdeny.so redis=127.0.0.1:1 redis_tls_ca=$HA/ca.pem" >"$PLUGSTACK"
tls_out=$("$QD" share -P 2>&1)
if [[ "$tls_out" == *"built without TLS"* ]]; then
	assert_contains "redis_tls_ca= on a build without TLS: refused, saying why" \
		"qosdeny: " "$tls_out"
	echo "# TLS: not tested here: $(echo "$tls_out" | grep -m1 'without TLS')"
else
	HA_TLS=1 # read by ha-lib.sh
	echo "# TLS: primary, replica and sentinels on TLS with a private CA"
fi
: >"$PLUGSTACK"
rm -f "$HA/ca.pem"

check "a primary, a replica and three sentinels start, and agree" ha_start
echo "# servers ${HA_PORT[*]}, sentinels ${HA_SPORT[*]}, timeout_ms=$TIMEOUT_MS"
LINE="required spank_qosdeny.so $(ha_options) timeout_ms=$TIMEOUT_MS"
echo "# plugstack.conf: $LINE"

# --- Reporting on, and the site factor reading the same line.
write_policy "$EXAMPLE_POLICY
UsageHalfLife=$HALF_LIFE"
echo "$LINE" >"$PLUGSTACK"
cat >"$EXTRA" <<EOF
PriorityType=priority/multifactor
PrioritySiteFactorPlugin=site_factor/qosdeny
PrioritySiteFactorParameters=weight=10000,interval=$INTERVAL
PriorityCalcPeriod=1
EOF
CTLD_SINCE=$(log_lines)
declare -A SINCE
for n in n1 n2; do SINCE[$n]=$(stat -c %s "$QD_LOG_DIR/slurmd-$n.log"); done
check "slurmctld restarted with the site factor" bash -c \
	"QD_SLURM_CONF_EXTRA='$EXTRA' bash '$CLUSTER' write-conf >/dev/null &&
	bash '$CLUSTER' restart-ctld >/dev/null 2>&1"
check "slurmd restarted with reporting on" bash "$CLUSTER" restart-slurmd
OUT=$("$QD" share -P 2>&1)
assert_eq "qosdeny share through the sentinels exits 0" 0 "$?"

# A job that runs through the drill: the site factor publishes it to
# Redis at each refresh, which shows where the site factor writes.
marker=$(submit_running bob -N1 -w n2 --gres=gpu:1)
echo "$marker" >>"$JOBS"
running_ts() { # PORT: the marker's last publication time there
	ha_cli "$1" hget "qosdeny:{$QD_CLUSTER_NAME}:running" "$marker" 2>/dev/null |
		awk '{ print $NF }'
}
server_time() { ha_cli "$1" time | head -n 1; }
published_since() { # PORT TIME
	local t
	t=$(running_ts "$1")
	[ -n "$t" ] && [ "$t" -ge "$2" ]
}
check "the site factor publishes the running job to the primary" wait_for \
	"the marker's running entry" $((INTERVAL * 3)) published_since "${HA_PORT[0]}" 0

# --- Jobs end continuously on both nodes: alice, bob, charlie in turn,
# 1 or 2 GPUs, one node each, at most 5 in the queue.
stream() {
	local i=0 users=(alice bob charlie)
	while [ ! -e "$HA/stream.stop" ]; do
		if [ "$(squeue -h -o %i | wc -l)" -ge 6 ]; then
			nap 0.2
			continue
		fi
		as "${users[i % 3]}" sbatch --parsable -N1 -w "n$((i % 2 + 1))" \
			--gres=gpu:$((i / 2 % 2 + 1)) --wrap 'sleep 1'
		[ "$RC" -eq 0 ] && echo "${OUT%%;*}" >>"$JOBS"
		i=$((i + 1))
	done
}
stepd_timer "$HA/timer" &
timer=$!
stream &
streamer=$!
jobs_ended() { # N: at least N stream jobs have left the queue
	local all
	all=$(($(wc -l <"$JOBS") - 1))
	[ $((all - $(squeue -h -o %i | wc -l) + 1)) -ge "$1" ]
}
ended_count() { echo $(($(wc -l <"$JOBS") - $(squeue -h -o %i | wc -l))); }
rec_count() { # PORT
	ha_cli "$1" --scan --pattern "qosdeny:{$QD_CLUSTER_NAME}:rec:*" 2>/dev/null | wc -l
}
check "jobs run and end while the primary serves" wait_for "6 jobs" 60 jobs_ended 6
has_records() { [ "$(rec_count "$1")" -gt 0 ]; }
check "their records reach the primary" wait_for "records" 30 has_records "${HA_PORT[0]}"

# failover N HOW...: the primary gone by HOW; measures until the sentinels
# name the other server, qosdeny share answers, a record lands there and
# the site factor writes there. Sets NEW (the new primary's index).
failover() {
	local n=$1 old new t0 t_named t_rec t_site recs0 b0 e0 ts
	shift
	old=$(ha_index "$(ha_primary_port)")
	new=$((1 - old))
	NEW=$new
	b0=$(log_count "$BEGINS")
	e0=$(log_count "$ENDS")
	recs0=$(rec_count "${HA_PORT[new]}")
	t0=$(now_ms)
	"$@" "$old"
	check "failover $n: the sentinels name :${HA_PORT[new]}" \
		wait_for "the new primary" 30 ha_named "${HA_PORT[new]}"
	t_named=$(now_ms)
	ts=$(server_time "${HA_PORT[new]}")
	OUT=$("$QD" share -P 2>&1)
	assert_eq "failover $n: qosdeny share answers from the new primary at once" 0 "$?"
	OUT=$("$QD" share -P --redis "$(ha_addr)" 2>&1)
	assert_eq "failover $n: so does qosdeny share --redis sentinel:..." 0 "$?"
	new_record() { [ "$(rec_count "${HA_PORT[NEW]}")" -gt "$recs0" ]; }
	check "failover $n: records land on the new primary" \
		wait_for "a new record" 30 new_record
	t_rec=$(now_ms)
	check "failover $n: the site factor writes to the new primary within one refresh" \
		wait_for "the site factor" $((INTERVAL + 2)) published_since "${HA_PORT[new]}" "$ts"
	t_site=$(now_ms)
	echo "# failover $n (:${HA_PORT[old]} -> :${HA_PORT[new]}):" \
		"named after $(secs "$t0" "$t_named") s, first record there after" \
		"$(secs "$t0" "$t_rec") s, site factor there after $(secs "$t0" "$t_site") s"
	# The outage's lines, if a refresh fell in it: one each, no more.
	outage_logged() {
		[ "$(log_count "$ENDS")" -eq $(($(log_count "$BEGINS") - b0 + e0)) ]
	}
	wait_for "the recovery line" $((INTERVAL * 2)) outage_logged
	local b=$(($(log_count "$BEGINS") - b0)) e=$(($(log_count "$ENDS") - e0))
	echo "# failover $n: slurmctld logged $b outage line(s), $e recovery line(s)"
	check "failover $n: at most one outage line ($b), as many recovery lines ($e)" \
		test "$b" -le 1 -a "$b" -eq "$e"
}
kill9() { ha_kill "$1" 9; }
# Paused for writes, the old primary answers the sentinels' pings while
# SENTINEL FAILOVER promotes its replica.
partition() {
	ha_cli "${HA_PORT[$1]}" client pause 3000 write >/dev/null
	ha_scli "${HA_SPORT[0]}" sentinel failover "$HA_NAME" >/dev/null
}
# back I: server I restarted; it returns as a replica of the new primary.
back() {
	check "server :${HA_PORT[$1]} restarted" ha_start_server "$1"
	check "it returns as a replica of :${HA_PORT[1 - $1]}" \
		wait_for "server $1 to be a replica" 60 ha_is_replica "$1"
	local e
	e=$(ended_count)
	check "and jobs go on ending" wait_for "jobs" 60 jobs_ended $((e + 4))
}

failover 1 kill9
first=$((1 - NEW))
check "jobs end with no replica left" wait_for "jobs" 60 jobs_ended $(($(ended_count) + 4))
back "$first"
failover 2 kill9
back $((1 - NEW))
check "all servers agree again" wait_for "the sentinels" 60 ha_ready "${HA_PORT[NEW]}"
failover 3 partition
check "the old primary is a replica after its pause" \
	wait_for "the old primary to follow" 60 ha_is_replica $((1 - NEW))

touch "$HA/stream.stop"
wait "$streamer"
only_marker() { [ "$(squeue -h -o %i)" == "$marker" ]; }
check "the stream's jobs all ended" wait_for "the queue" 120 only_marker

# --- Every sentinel down, the primary up: the site factor keeps the
# primary it found, with a warning, once it connects again.
P=${HA_PORT[NEW]}
for k in 0 1 2; do kill -9 "$(ha_pid "$HA/s$k/sentinel.pid")"; done
warned0=$(log_count "no sentinel answered .*using the primary found before, 127.0.0.1:$P")
ts=$(server_time "$P")
ha_cli "$P" client kill type normal >/dev/null
warned() {
	[ "$(log_count "no sentinel answered .*using the primary found before, 127.0.0.1:$P")" -gt "$warned0" ]
}
check "sentinels down: slurmctld warns it uses the primary found before" \
	wait_for "the warning" $((INTERVAL * 3)) warned
check "and the site factor goes on writing there" \
	wait_for "the site factor" $((INTERVAL * 2)) published_since "$P" "$ts"
ctld_log | grep -m1 "no sentinel answered" | sed 's/^/# /'
for k in 0 1 2; do
	check "sentinel $k back" ha_start_sentinel "$k"
done
check "the sentinels agree again" wait_for "the sentinels" 60 ha_ready "$P"

scancel "$marker"
check "the queue drained" wait_for "the queue" 60 queue_empty
for n in n1 n2; do
	check "qosdeny flush of $n's spool" "$QD" flush --spool "$QD_SPOOL_DIR/$n/qosdeny"
done
assert_eq "the spools are empty" "" "$(spool_records)"
touch "$HA/timer.stop"
wait "$timer"

# --- No prolog or epilog outlasted timeout_ms (plus starting slurmstepd).
for mode in prolog epilog; do
	max=$(awk -v m="$mode" '$1 == m && $2 > x { x = $2 } END { print x + 0 }' "$HA/timer")
	cnt=$(grep -c "^$mode " "$HA/timer")
	echo "# $cnt spank ${mode}s seen, the longest ${max} ms"
	check "the ${mode}s of the drill's jobs were timed ($cnt)" test "$cnt" -ge 20
	check "no $mode took longer than timeout_ms + ${STEPD_SLACK_MS} ms (${max} ms)" \
		test "$max" -le $((TIMEOUT_MS + STEPD_SLACK_MS))
done

# --- Every job's record once; RawUsage their sum, sacct's GPU-seconds.
P=${HA_PORT[NEW]}
ids=$(paste -sd, "$JOBS")
declare -A SACCT_GS JOB_GPUS JOB_ELAPSED TOL
# sacct: ElapsedRaw x GPUs of each job (one node each).
acct_ready() {
	[ "$(sacct -n -P -X -j "$ids" -o JobID,State | grep -c COMPLETED\\\|CANCELLED)" \
		-eq "$(wc -l <"$JOBS")" ]
}
wait_for "slurmdbd to have every job" 60 acct_ready
while IFS='|' read -r id user el tres; do
	g=$(echo "$tres" | tr ',' '\n' | sed -n 's/^gres\/gpu=//p')
	JOB_GPUS[$id]=${g:-0} JOB_ELAPSED[$id]=$el
	SACCT_GS[$user]=$((${SACCT_GS[$user]:-0} + ${g:-0} * el))
	TOL[$user]=$((${TOL[$user]:-0} + 2 * ${g:-0}))
done < <(sacct -n -P -X -j "$ids" -o JobID,User,ElapsedRaw,AllocTRES)
sent=$(wc -l <"$JOBS")
mapfile -t keys < <(ha_cli "$P" --scan --pattern "qosdeny:{$QD_CLUSTER_NAME}:rec:*")
counted=${#keys[@]}
echo "# records sent: $sent (one per job, each on one node), counted: $counted"
assert_eq "every job's record is in Redis once" "$sent" "$counted"
declare -A REC_GS
bad="" seen=0
while read -r rec; do
	[ -n "$rec" ] || continue # each record's text ends with a newline
	id=$(field "$rec" job)
	seen=$((seen + 1))
	u=$(field "$rec" user)
	s=$(($(field "$rec" end) - $(field "$rec" start)))
	REC_GS[$u]=$((${REC_GS[$u]:-0} + $(field "$rec" gpu_seconds)))
	[ "$(field "$rec" gpus)" == "${JOB_GPUS[$id]:-x}" ] &&
		[ "$(field "$rec" gpu_seconds)" == $(($(field "$rec" gpus) * s)) ] &&
		[ "$s" -ge $((${JOB_ELAPSED[$id]:-0} - 2)) ] &&
		[ "$s" -le $((${JOB_ELAPSED[$id]:-0} + 2)) ] || bad="$bad $id"
done < <(ha_cli "$P" mget "${keys[@]}")
assert_eq "every record read back" "$counted" "$seen"
assert_eq "each record: sacct's GPUs, its seconds within 2 s of ElapsedRaw" "" "$bad"
OUT=$("$QD" share -P 2>&1)
for u in alice bob charlie; do
	raw=$(echo "$OUT" | awk -F'|' -v u="$u" '$2 == u { print $5 }')
	echo "# $u: RawUsage ${raw:-none}, records ${REC_GS[$u]:-0}, sacct ElapsedRaw x GPUs ${SACCT_GS[$u]:-0}"
	check "$u: RawUsage ${raw:-none} is the sum of the records (${REC_GS[$u]:-0}), each once" \
		near "${raw:-0}" "${REC_GS[$u]:-0}" 1
	check "$u: and within 2 s per job of sacct's (${SACCT_GS[$u]:-0})" \
		near "${raw:-0}" "${SACCT_GS[$u]:-0}" "${TOL[$u]:-0}"
done

# A store that asks for a password is not called open to anyone (the
# warning itself: t_usage_noacct.sh, t_site_factor.sh).
assert_eq "the site factor never calls the store open" 0 \
	"$(log_since "$CTLD_SINCE" | grep -c 'answers without AUTH')"
for n in n1 n2; do
	assert_eq "nor does slurmd on $n" 0 "$(tail -c +$((${SINCE[$n]} + 1)) \
		"$QD_LOG_DIR/slurmd-$n.log" | grep -c 'answers without AUTH')"
done

# --- Back to the suite's configuration, slurmd first: stopped just after
# an ASan slurmctld's restart, a slurmd once took over 15 s to stop.
reporting_off
: >"$EXTRA"
check "slurmctld back without the site factor" bash -c \
	"bash '$CLUSTER' write-conf >/dev/null && bash '$CLUSTER' restart-ctld >/dev/null 2>&1"
ha_stop
finish
