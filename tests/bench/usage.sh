#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench, part 2: GPU usage reporting (build/tests/bench_usage, see
# tests/bench/bench_usage.c) against a redis-server of its own and its
# replica: Debian's, on free loopback ports, persistence off, in a temporary
# directory that also holds the benchmark's site (conf.example/qosdeny.conf)
# and spool, stopped by pid at exit. Writes tests/bench/usage.txt.
set -u -o pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=$here/build/tests/bench_usage
out=$here/tests/bench/usage.txt
dir=$(mktemp -d /tmp/qd-bench-usage.XXXXXX) || exit 1
pid=

stop() {
	if [ -n "${rpid:-}" ]; then
		kill "$rpid" 2>/dev/null
		wait "$rpid" 2>/dev/null
	fi
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	rm -rf "$dir"
}
trap stop EXIT

# Ours once it answers with its own pid: another Redis may hold a port
# chosen at random, and then ours exits; a taken port is tried again.
started() {
	local i
	for ((i = 0; i < 200; i++)); do
		kill -0 "$pid" 2>/dev/null || return 1
		redis-cli -p "$port" info server 2>/dev/null |
			grep -q "^process_id:$pid" && return 0
		sleep 0.05
	done
	return 1
}

for try in 1 2 3 4 5; do
	port=$((20000 + RANDOM % 30000))
	redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" \
		--save '' --appendonly no >>"$dir/redis.log" 2>&1 &
	pid=$!
	started && break
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
done
[ -n "$pid" ] || { echo "usage.sh: redis-server did not start:" >&2; cat "$dir/redis.log" >&2; exit 1; }

# A replica, for the rows with redis_replicas=1 (WAIT).
rpid=
for try in 1 2 3 4 5; do
	rport=$((20000 + RANDOM % 30000))
	mkdir -p "$dir/replica"
	redis-server --port "$rport" --bind 127.0.0.1 --dir "$dir/replica" \
		--save '' --appendonly no --replicaof 127.0.0.1 "$port" \
		>>"$dir/replica.log" 2>&1 &
	rpid=$!
	linked=
	for ((i = 0; i < 200; i++)); do
		kill -0 "$rpid" 2>/dev/null || break
		if redis-cli -p "$rport" info replication 2>/dev/null |
			grep -q '^master_link_status:up'; then
			linked=1
			break
		fi
		sleep 0.05
	done
	[ -n "$linked" ] && break
	kill "$rpid" 2>/dev/null
	wait "$rpid" 2>/dev/null
	rpid=
done
[ -n "$rpid" ] || { echo "usage.sh: the replica did not start:" >&2; cat "$dir/replica.log" >&2; exit 1; }

mkdir "$dir/site" && cp "$here/conf.example/qosdeny.conf" "$dir/site/" || exit 1
{
	echo "# make bench: GPU usage reporting (tests/bench/bench_usage.c), $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "# $(nproc) cores, $(grep -m1 '^model name' /proc/cpuinfo | sed 's/.*: //'), $(systemd-detect-virt 2>/dev/null || echo unknown) guest,"
	echo "# $(uname -sr), $(redis-server --version | cut -d' ' -f1-3), spool on $(df -T "$dir" | awk 'NR == 2 { print $2 }'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
	"$bin" "127.0.0.1:$port" "$dir/site"
} | tee "$out"
