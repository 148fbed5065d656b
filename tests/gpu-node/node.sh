#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The GPU node's Slurm, inside the runtime's chroot (run.sh enters it): one
# node named as the host, running slurmctld and slurmd as root, cgroup/v2
# with proctrack/cgroup and IgnoreSystemd=yes as on a Debian 13 or Ubuntu
# 24.04 GPU node, Gres gpu from the node's /dev/nvidia[0-9]*, accounting
# off (jobs name their account with -A), spank_qosdeny.so reporting to a
# Redis of its own. Ports are picked free at `up`, beside whatever the host
# runs.
#
#   node.sh up                      munged and Redis, the node's name,
#                                   address and ports
#   node.sh start TASKPLUGIN CONSTRAIN [SLURMD_DEBUG]
#                                   Slurm afresh with that TaskPlugin and
#                                   cgroup.conf ConstrainDevices=yes|no
#                                   (and SlurmdDebug), the plugin on; waits
#                                   for the node idle
#   node.sh plugin on|off|hooks     plugstack.conf: spank_qosdeny.so, none,
#                                   or the do-nothing plugin of the launch
#                                   benchmark (empty and plugin: off, on)
#   node.sh restart-slurmd          slurmd again (it looks for a plugin's
#                                   job prolog and epilog only at start);
#                                   waits for the node idle
#   node.sh hooks-so                prints the do-nothing plugin's path
#   node.sh down                    every daemon it started, by pid
#
# Its files are under /var/lib/qd (QD_CLUSTER_DIR for lib.sh), the node's
# settings in /var/lib/qd/node.env.
set -u
D=/var/lib/qd
ETC=$D/etc
export SLURM_CONF=$ETC/slurm.conf
PLUGIN=/usr/lib/x86_64-linux-gnu/slurm-wlm/spank_qosdeny.so
# tests/bench/spank_hooks_only.c, built into the runtime by runtime.sh.
HOOKS_SO=/usr/local/lib/qd-bench/spank_hooks_only.so
# The same one-node configuration as the VM's.
# shellcheck source=tests/vm/node-conf.sh
. /qosdeny/tests/vm/node-conf.sh

stop_pid() { # PIDFILE
	local p i
	p=$(cat "$1" 2>/dev/null) || return 0
	kill "$p" 2>/dev/null || return 0
	for ((i = 0; i < 100; i++)); do
		kill -0 "$p" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -9 "$p" 2>/dev/null
}

wait_until() { # SECONDS COMMAND...
	local i limit=$1
	shift
	for ((i = 0; i < limit * 10; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# free_ports N: N unused TCP ports (none in /proc/net/tcp*, any state).
free_ports() {
	local used p picked=""
	used=" $(awk 'FNR > 1 { split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 |
		while read -r h; do echo $((16#$h)); done | tr '\n' ' ') "
	while [ "$1" -gt 0 ]; do
		p=$((20000 + RANDOM % 20000))
		case "$used$picked " in *" $p "*) continue ;; esac
		picked="$picked $p"
		set -- $(($1 - 1))
	done
	echo "$picked"
}

up() {
	local addr ports
	mkdir -p "$ETC" "$D/log" "$D/users/alice" /run/munge /var/log/munge \
		/var/lib/munge
	chown alice: "$D/users/alice"
	# Slurm needs an address other than loopback (tests/vm/README.md).
	addr=$(hostname -I | awk '{ print $1 }')
	[ -n "$addr" ] || {
		echo "node.sh: the host has no address other than loopback" >&2
		return 1
	}
	read -r -a ports <<<"$(free_ports 3)"
	cat >"$D/node.env" <<EOF
NODE=$(hostname -s)
ADDR=$addr
CTLD_PORT=${ports[0]}
SLURMD_PORT=${ports[1]}
REDIS_PORT=${ports[2]}
EOF
	. "$D/node.env"
	printf '127.0.0.1 localhost\n%s %s\n' "$ADDR" "$NODE" >/etc/hosts
	chown munge: /run/munge /var/log/munge /var/lib/munge
	[ -s /etc/munge/munge.key ] || {
		dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
		chown munge: /etc/munge/munge.key
		chmod 400 /etc/munge/munge.key
	}
	runuser -u munge -- /usr/sbin/munged || return 1
	redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save '' \
		--appendonly no --daemonize yes --dir /tmp \
		--pidfile /run/qd-redis.pid --logfile "$D/log/redis.log"
}

gpus() {
	local d n=0
	for d in /dev/nvidia[0-9]*; do [ -e "$d" ] && n=$((n + 1)); done
	echo "$n"
}

write_conf() {
	write_node_conf "$ETC" "$D" gpunode "$NODE" "$ADDR" "$(nproc)" "$(gpus)" \
		"$1" "$2" "SlurmctldPort=$CTLD_PORT" "SlurmdPort=$SLURMD_PORT"
	plugin on
}

plugin() {
	case $1 in
	on | plugin) echo "required $PLUGIN redis=127.0.0.1:$REDIS_PORT" >"$ETC/plugstack.conf" ;;
	hooks) echo "required $HOOKS_SO" >"$ETC/plugstack.conf" ;;
	*) : >"$ETC/plugstack.conf" ;;
	esac
}

node_idle() { scontrol show node "$NODE" 2>/dev/null | grep -q 'State=IDLE '; }

case ${1:-} in
up) up ;;
start)
	. "$D/node.env"
	stop_pid /run/slurmd.pid
	stop_pid /run/slurmctld.pid
	rm -rf "$D/state" "$D/spool"
	mkdir -p "$D/state" "$D/spool"
	write_conf "$2" "$3"
	[ -z "${4:-}" ] || sed -i "s/^SlurmdDebug=.*/SlurmdDebug=$4/" "$SLURM_CONF"
	slurmctld -f "$SLURM_CONF" -i || exit 1
	slurmd -f "$SLURM_CONF" || exit 1
	wait_until 60 node_idle
	;;
plugin)
	. "$D/node.env"
	plugin "$2"
	;;
restart-slurmd)
	. "$D/node.env"
	stop_pid /run/slurmd.pid
	slurmd -f "$SLURM_CONF" || exit 1
	wait_until 60 node_idle
	;;
hooks-so) echo "$HOOKS_SO" ;;
down)
	stop_pid /run/slurmd.pid
	stop_pid /run/slurmctld.pid
	stop_pid /run/qd-redis.pid
	stop_pid /run/munge/munged.pid
	;;
*)
	echo "usage: node.sh up | start TASKPLUGIN yes|no [DEBUG] | plugin on|off|hooks | restart-slurmd | hooks-so | down" >&2
	exit 2
	;;
esac
