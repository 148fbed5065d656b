#!/usr/bin/env bash
# site_factor/qosdeny's stop (README "GPU fair share in job priority"):
# with a Redis that answers every command late, but each within timeout_ms,
# a refresh over eight clusters takes about ten seconds. Stopping slurmctld
# (and from 24.05 a reconfigure, which stops the plugin too) waits only for
# the Redis call in progress: no more than 2 x timeout_ms + 100 ms longer
# than with Redis answering at once, measured in the same run. Then Redis
# that accepts and never answers, the same bound.
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
PrioritySiteFactorParameters=weight=10000,interval=1
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
# stop_ms: the ms slurmctld takes to exit after SIGTERM, the plugin's stop
# included.
stop_ms() {
	local pid t0
	pid=$(cat "$PIDFILE")
	t0=$(now_ms)
	kill -TERM "$pid"
	wait_for "slurmctld $pid to exit" 60 bash -c "! kill -0 $pid 2>/dev/null"
	echo $(($(now_ms) - t0))
}
start() { bash "$CLUSTER" restart-ctld >/dev/null 2>&1; }
reconfigure_ms() {
	local t0
	t0=$(now_ms)
	bash "$CLUSTER" reconfigure >/dev/null 2>&1
	echo $(($(now_ms) - t0))
}

use "$QD_REDIS_ADDR"
base=$(stop_ms)
start
use "$SLOW"
check "a refresh through the slow Redis begins" refreshing
slow=$(stop_ms)
# The refresh reads each of the 8 clusters' running jobs (HGETALL) in turn.
read=$(grep -c '^redis_drop_proxy: HGETALL' "$tmp/proxy.log")
use "$QD_REDIS_ADDR"
start
echo "# slurmctld's stop: ${base} ms with Redis answering, ${slow} ms in a slow refresh (it read $read of 8 clusters)"
check "the slow Redis delays slurmctld's stop by no more than $BOUND ms ($((slow - base)) ms)" \
	test $((slow - base)) -le $BOUND
check "the refresh stopped where it was: not all 8 clusters read" test "$read" -lt 8

if slurm_at_least 24.05; then
	base=$(reconfigure_ms)
	use "$SLOW"
	check "a refresh through the slow Redis begins again" refreshing
	slow=$(reconfigure_ms)
	use "$QD_REDIS_ADDR"
	echo "# scontrol reconfigure: ${base} ms with Redis answering, ${slow} ms in a slow refresh"
	check "the slow Redis delays scontrol reconfigure by no more than $BOUND ms ($((slow - base)) ms)" \
		test $((slow - base)) -le $BOUND
fi

# Silent: the server accepts and never answers (DEBUG SLEEP blocks it),
# from a moment the site factor is waiting on it.
base=$(stop_ms)
start
rcli debug sleep 8 >/dev/null &
sleeper=$!
silent=$(stop_ms)
echo "# slurmctld's stop: ${base} ms with Redis answering, ${silent} ms with Redis silent"
check "a silent Redis delays slurmctld's stop by no more than $BOUND ms ($((silent - base)) ms)" \
	test $((silent - base)) -le $BOUND
wait "$sleeper"

use "$QD_REDIS_ADDR"
rm -f "$EXTRA"
check "slurmctld back without the site factor" bash -c \
	"bash '$CLUSTER' write-conf >/dev/null && bash '$CLUSTER' restart-ctld >/dev/null"
