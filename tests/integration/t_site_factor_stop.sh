#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# site_factor/qosdeny's stop (docs/fair-share.md, "GPU fair share in job priority"):
# with a Redis that answers every command late, but each within timeout_ms,
# a refresh over eight clusters takes about eight seconds. Stopping
# slurmctld (and from 23.11 a reconfigure, which stops the plugin too)
# waits only for the Redis call in progress: the plugin's stop, which it
# logs with its time ("site factor: stopped in N ms"), stays within
# 2 x timeout_ms + 100 ms, and the refresh reads no cluster after it. Then
# a Redis that accepts and never answers, the same bound. slurmctld's whole
# shutdown is reported beside it, not judged: it varies by seconds here
# with or without Redis.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
source "$(dirname "$0")/usage-lib.sh"
EXTRA=$QD_CLUSTER_DIR/site-factor-stop.conf
TIMEOUT=1000
DELAY=300 # per reply: 8 clusters of about 4 commands each
BOUND=$((2 * TIMEOUT + 100))
PIDFILE=$QD_CLUSTER_DIR/run/slurmctld.pid
tmp=$(mktemp -d)
proxy_pid=
trap '[ -n "$proxy_pid" ] && kill "$proxy_pid"; rm -rf "$tmp"' EXIT

cat >"$EXTRA" <<EOF
PriorityType=priority/multifactor
PrioritySiteFactorPlugin=site_factor/qosdeny
PrioritySiteFactorParameters=weight=10000,interval=5
EOF
write_policy "$EXAMPLE_POLICY
FairShareClusters=$QD_CLUSTER_NAME,c1,c2,c3,c4,c5,c6,c7"
check "slurmctld with the site factor" bash -c \
	"QD_SLURM_CONF_EXTRA='$EXTRA' bash '$CLUSTER' write-conf >/dev/null && bash '$CLUSTER' restart-ctld >/dev/null"

"$QD_BUILD/tests/redis_drop_proxy" -d "$DELAY" "$tmp/port" 127.0.0.1 \
	"$QD_REDIS_PORT" 2>"$tmp/proxy.log" &
proxy_pid=$!
check "the slow proxy listens" wait_for "the proxy's port" 10 test -s "$tmp/port"
SLOW=127.0.0.1:$(cat "$tmp/port")

now_ms() { date +%s%3N; }
# refreshing: a refresh through the proxy has just begun (its first call,
# the running jobs' publication, arrived).
refreshing() {
	local n
	n=$(grep -c '^redis_drop_proxy: EVALSHA' "$tmp/proxy.log")
	wait_for "a refresh to begin" 30 bash -c \
		"[ \$(grep -c '^redis_drop_proxy: EVALSHA' '$tmp/proxy.log') -gt $n ]"
}
# use ADDR: the site factor's Redis from its next refresh on.
use() {
	echo "required spank_qosdeny.so redis=$1 timeout_ms=$TIMEOUT" >"$PLUGSTACK"
}
lines() { ctld_log | wc -l; }
# stopped_ms N: the time of the plugin's stop logged after line N.
stopped_ms() {
	ctld_log | tail -n +$(($1 + 1)) |
		sed -n 's/.*qosdeny: site factor: stopped in \([0-9]*\) ms$/\1/p' | tail -n 1
}
# stop: SIGTERM to slurmctld, waits until it is gone; prints its whole
# shutdown's ms.
stop() {
	local pid t0
	pid=$(slurm_pid "$PIDFILE")
	t0=$(now_ms)
	kill -TERM "$pid"
	wait_for "slurmctld $pid to exit" 60 bash -c "! kill -0 $pid 2>/dev/null"
	echo $(($(now_ms) - t0))
}
start() { bash "$CLUSTER" restart-ctld >/dev/null 2>&1; }
# within WHAT N: the plugin's stop after line N is logged and in the bound.
within() {
	local ms
	ms=$(stopped_ms "$2")
	echo "# $1: the plugin's stop took ${ms:-?} ms"
	check "$1: the site factor stopped within $BOUND ms (${ms:-no line})" \
		test -n "$ms" -a "${ms:-0}" -le $BOUND
}

use "$SLOW"
check "a refresh through the slow Redis begins" refreshing
n=$(lines)
whole=$(stop)
# The refresh reads each of the 8 clusters' running jobs (HGETALL) in turn.
read=$(grep -c '^redis_drop_proxy: HGETALL' "$tmp/proxy.log")
echo "# slurmctld's whole shutdown: $whole ms"
within "slurmctld stopped in a slow refresh" "$n"
check "the refresh stopped where it was: $read of 8 clusters read" test "$read" -lt 8
use "$QD_REDIS_ADDR"
start

if slurm_at_least 23.11; then
	use "$SLOW"
	check "a refresh through the slow Redis begins again" refreshing
	n=$(lines)
	t0=$(now_ms)
	bash "$CLUSTER" reconfigure >/dev/null 2>&1
	echo "# scontrol reconfigure took $(($(now_ms) - t0)) ms in all"
	within "scontrol reconfigure in a slow refresh" "$n"
	use "$QD_REDIS_ADDR"
fi

# Silent: the server accepts and never answers (DEBUG SLEEP blocks it),
# from a moment the site factor waits on it.
rcli debug sleep 10 >/dev/null &
sleeper=$!
silent() { ! timeout 1 redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" ping >/dev/null 2>&1; }
wait_for "Redis to sleep" 5 silent
n=$(lines)
whole=$(stop)
echo "# slurmctld's whole shutdown with Redis silent: $whole ms"
within "slurmctld stopped with Redis silent" "$n"
wait "$sleeper"

use "$QD_REDIS_ADDR"
rm -f "$EXTRA"
check "slurmctld back without the site factor" bash -c \
	"bash '$CLUSTER' write-conf >/dev/null && bash '$CLUSTER' restart-ctld >/dev/null"
finish
