# SPDX-License-Identifier: GPL-2.0-or-later
# A replicated usage store for t_redis_failover.sh (bash, sourced after
# lib.sh and usage-lib.sh): a primary, its replica and three sentinels on
# loopback, set up as docs/high-availability.md tells a site to, under
# $QD_CLUSTER_DIR/ha: an ACL user for qosdeny with a password file, TLS with
# a private CA where this build has it (HA_TLS=1). Servers are started
# daemonized with pid files and stopped by their pids (ha_stop).
HA=$QD_CLUSTER_DIR/ha
HA_NAME=qdha
HA_USER=qosdeny
HA_PW=qdha-node-password
HA_ADMIN_PW=qdha-admin-password
# The node's and slurmctld's least ACLs of docs/gpu-and-usage.md together:
# the tool, the site factor and the nodes read the one plugstack.conf line.
HA_ACL="~qosdeny:* resetchannels -@all +evalsha +eval +script|load +time"
HA_ACL="$HA_ACL +type +hmget +hget +hgetall +set +expire +hset +hdel +del"
HA_ACL="$HA_ACL +scan +zscore +zadd +zremrangebyscore +wait +role"
HA_TLS=""
HA_PORT=()  # the servers: [0] starts as the primary, [1] as its replica
HA_SPORT=() # the sentinels

# ha_cli PORT ARGS...: redis-cli to a server, as the admin user.
ha_cli() {
	local port=$1
	shift
	redis-cli -h 127.0.0.1 -p "$port" ${HA_TLS:+--tls --cacert "$HA/ca.pem"} \
		--user admin --pass "$HA_ADMIN_PW" --no-auth-warning "$@"
}
# ha_scli PORT ARGS...: redis-cli to a sentinel (its default user).
ha_scli() {
	local port=$1
	shift
	redis-cli -h 127.0.0.1 -p "$port" ${HA_TLS:+--tls --cacert "$HA/ca.pem"} "$@"
}

# The CA and one certificate for 127.0.0.1 that every server and sentinel
# shows (docs/high-availability.md, "TLS": an IP address in subjectAltName).
ha_pki() {
	local q=(-batch -nodes -newkey rsa:2048 -days 2)
	(
		cd "$HA" &&
			openssl req -x509 "${q[@]}" -subj /CN=qdha-ca -keyout ca.key -out ca.pem &&
			openssl req "${q[@]}" -subj /CN=127.0.0.1 -keyout server.key -out server.csr &&
			printf 'subjectAltName=IP:127.0.0.1\n' >san &&
			openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key \
				-CAcreateserial -days 2 -extfile san -out server.pem
	) >"$HA/pki.log" 2>&1
}

# ha_listen PORT: the lines that make a server or sentinel listen there.
ha_listen() {
	if [ -z "$HA_TLS" ]; then
		echo "port $1"
		return
	fi
	cat <<EOF
port 0
tls-port $1
tls-cert-file $HA/server.pem
tls-key-file $HA/server.key
tls-ca-cert-file $HA/ca.pem
tls-auth-clients no
tls-replication yes
EOF
}

# ha_server_conf I: server I's redis.conf (the replica's names the primary).
ha_server_conf() {
	local i=$1 dir=$HA/r$1
	mkdir -p "$dir"
	cat >"$dir/redis.conf" <<EOF
bind 127.0.0.1
$(ha_listen "${HA_PORT[i]}")
daemonize yes
pidfile $dir/redis.pid
logfile $dir/redis.log
dir $dir
appendonly yes
appendfsync always
save ""
enable-debug-command local
user default off
user admin on >$HA_ADMIN_PW ~* &* +@all
user $HA_USER on >$HA_PW $HA_ACL
masteruser admin
masterauth $HA_ADMIN_PW
# A replica's full sync at once, not after Redis 7's 5 s wait for others.
repl-diskless-sync-delay 0
EOF
	[ "$i" = 0 ] || echo "replicaof 127.0.0.1 ${HA_PORT[0]}" >>"$dir/redis.conf"
}

ha_sentinel_conf() {
	local dir=$HA/s$1
	mkdir -p "$dir"
	cat >"$dir/sentinel.conf" <<EOF
bind 127.0.0.1
$(ha_listen "${HA_SPORT[$1]}")
daemonize yes
pidfile $dir/sentinel.pid
logfile $dir/sentinel.log
dir $dir
sentinel monitor $HA_NAME 127.0.0.1 ${HA_PORT[0]} 2
sentinel down-after-milliseconds $HA_NAME 1000
sentinel failover-timeout $HA_NAME 4000
sentinel auth-user $HA_NAME admin
sentinel auth-pass $HA_NAME $HA_ADMIN_PW
user $HA_USER on >$HA_PW -@all +sentinel|get-master-addr-by-name
EOF
}

ha_pid() { cat "$1" 2>/dev/null; }
ha_server_pid() { ha_pid "$HA/r$1/redis.pid"; }

# ha_start_server I: starts server I from its redis.conf (a restarted one
# keeps what it had on disk, as after a crash).
ha_start_server() {
	redis-server "$HA/r$1/redis.conf" >>"$HA/start.log" 2>&1 &&
		wait_for "server $1" 20 ha_answers "${HA_PORT[$1]}"
}
ha_answers() { [ "$(ha_cli "$1" ping 2>/dev/null)" == PONG ]; }
ha_start_sentinel() {
	redis-server "$HA/s$1/sentinel.conf" --sentinel >>"$HA/start.log" 2>&1 &&
		wait_for "sentinel $1" 20 ha_sentinel_answers "${HA_SPORT[$1]}"
}
ha_sentinel_answers() { [ "$(ha_scli "$1" ping 2>/dev/null)" == PONG ]; }

# ha_kill I SIGNAL: signals server I by its pid, and waits until it is gone.
ha_kill() {
	local pid
	pid=$(ha_server_pid "$1")
	[ -n "$pid" ] && kill "-$2" "$pid" 2>/dev/null
	wait_for "server $1 to end" 20 bash -c "! kill -0 $pid 2>/dev/null"
}

# ha_master_field SENTINEL FIELD: a field of SENTINEL MASTER.
ha_master_field() {
	ha_scli "${HA_SPORT[$1]}" sentinel master "$HA_NAME" 2>/dev/null |
		awk -v f="$2" 'prev == f { print; exit } { prev = $0 }'
}

# ha_primary_port: the port the sentinels name as primary, once all three
# agree.
ha_primary_port() {
	local k p ports=()
	for k in 0 1 2; do
		p=$(ha_scli "${HA_SPORT[k]}" sentinel get-master-addr-by-name \
			"$HA_NAME" 2>/dev/null | sed -n 2p)
		[ -n "$p" ] && ports+=("$p")
	done
	[ ${#ports[@]} -eq 3 ] && [ "${ports[0]}" == "${ports[1]}" ] &&
		[ "${ports[1]}" == "${ports[2]}" ] && echo "${ports[0]}"
}
ha_named() { [ "$(ha_primary_port)" == "$1" ]; }

# ha_replica_seen SENTINEL PORT: that sentinel's own view of the replica
# on PORT: no flag but "slave", the role its last INFO gave "slave", its
# link up. A sentinel polls a replica's INFO every 10 s: one that last saw
# a returning server still as a primary converts it back to a replica at
# once when it next sees it promoted, and the failover under way then
# times out (CI once saw -failover-abort-slave-timeout so).
ha_replica_seen() {
	ha_scli "${HA_SPORT[$1]}" sentinel replicas "$HA_NAME" 2>/dev/null |
		awk -v p="$2" '
			prev == "port" { port = $0 }
			prev == "flags" { flags = $0 }
			prev == "role-reported" { role = $0 }
			prev == "master-link-status" && port == p {
				ok = flags == "slave" && role == "slave" && $0 == "ok"
			}
			{ prev = $0 }
			END { exit !ok }'
}

# ha_ready PRIMARY_PORT: every sentinel names it, knows the other two
# sentinels and sees the other server as its replica, and the replica's
# link is up.
ha_ready() {
	local k other=${HA_PORT[0]}
	[ "$1" != "${HA_PORT[0]}" ] || other=${HA_PORT[1]}
	ha_named "$1" || return 1
	for k in 0 1 2; do
		[ "$(ha_master_field "$k" num-other-sentinels)" == 2 ] || return 1
		ha_replica_seen "$k" "$other" || return 1
	done
	[ "$(ha_cli "$1" info replication | tr -d '\r' |
		grep -c '^slave[0-9]*:.*state=online')" -ge 1 ]
}

# ha_is_replica I: server I is a replica with its link to the primary up.
ha_is_replica() {
	ha_cli "${HA_PORT[$1]}" info replication 2>/dev/null | tr -d '\r' |
		grep -qx 'master_link_status:up'
}

# ha_index PORT: which server listens on PORT.
ha_index() { [ "$1" == "${HA_PORT[0]}" ] && echo 0 || echo 1; }

ha_start() {
	local i ports
	mkdir -p "$HA"
	# Five at once: two calls each pick among the ports not yet bound, and
	# a sentinel once drew its server's (make check run 47).
	read -r -a ports <<<"$(bash "$CLUSTER" free-ports 5)"
	HA_PORT=("${ports[@]:0:2}")
	HA_SPORT=("${ports[@]:2:3}")
	[ -z "$HA_TLS" ] || ha_pki || return 1
	printf '%s\n' "$HA_PW" >"$HA/qosdeny.pass"
	chmod 600 "$HA/qosdeny.pass"
	for i in 0 1; do
		ha_server_conf $i
		ha_start_server $i || return 1
	done
	for i in 0 1 2; do
		ha_sentinel_conf $i
		ha_start_sentinel $i || return 1
	done
	wait_for "the sentinels to know each other and the replica" 60 \
		ha_ready "${HA_PORT[0]}"
}

# Every server and sentinel, by its pid.
ha_stop() {
	local f pid
	for f in "$HA"/s*/sentinel.pid "$HA"/r*/redis.pid; do
		pid=$(ha_pid "$f")
		[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
		rm -f "$f"
	done
	return 0
}

# The store's address: sentinel:S1,S2,S3/NAME.
ha_addr() {
	local s
	s=$(printf '127.0.0.1:%s,' "${HA_SPORT[@]}")
	echo "sentinel:${s%,}/$HA_NAME"
}

# The plugstack.conf options naming the store (qosdeny(1), PLUGSTACK.CONF OPTIONS).
ha_options() {
	echo "redis=$(ha_addr) redis_user=$HA_USER" \
		"redis_password_file=$HA/qosdeny.pass" \
		"${HA_TLS:+redis_tls_ca=$HA/ca.pem}"
}

# stepd_timer OUT: until OUT.stop exists, notes every 50 ms each `slurmstepd
# spank prolog|epilog` that this cluster's slurmd started (qosdeny's job
# prolog and epilog run in it: Slurm's prep/script plugin forks it from
# slurmd); then writes "MODE MS" per process to OUT: how long it was seen,
# up to 100 ms short of its life. The shell alone reads slurmd's children
# (/proc/PID/task/*/children) and their command lines: twenty polls a
# second with date, pgrep over every process and awk took most of the
# drill's CPU. A process is its pid and its start time (/proc/PID/stat's
# 22nd field): with pid_max at 32768, make check's lanes fork through every
# pid within a minute, and a pid alone made two epilogs 62 s apart one of
# 62,858 ms (make check run 41).
stepd_timer() {
	local out=$1 now p t c kids args st id
	local -A first last kind
	local parents=("$(slurm_pid "$QD_CLUSTER_DIR/run/slurmd-n1.pid")"
		"$(slurm_pid "$QD_CLUSTER_DIR/run/slurmd-n2.pid")")
	while [ ! -e "$out.stop" ]; do
		now=$((${EPOCHREALTIME/./} / 1000))
		for p in "${parents[@]}"; do
			for t in /proc/"$p"/task/*/children; do
				kids=()
				read -r -d '' -a kids <"$t" 2>/dev/null
				for c in "${kids[@]}"; do
					args=()
					mapfile -d '' -t args <"/proc/$c/cmdline" 2>/dev/null
					[[ ${args[0]:-} == *slurmstepd && ${args[1]:-} == spank ]] || continue
					case ${args[2]:-} in prolog | epilog) ;; *) continue ;; esac
					st=""
					read -r st <"/proc/$c/stat" 2>/dev/null || continue
					# After the command's name, in parentheses: the
					# state (field 3) first, the start time 19 later.
					read -r -a st <<<"${st##*) }"
					id=$c.${st[19]:-}
					[ -n "${first[$id]:-}" ] || first[$id]=$now
					last[$id]=$now
					kind[$id]=${args[2]}
				done
			done
		done
		nap 0.05
	done
	for id in "${!first[@]}"; do
		echo "${kind[$id]} $((last[$id] - first[$id]))"
	done >"$out"
}
