#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Slurm (Debian's 24.11 or 26.05) inside the pure cgroup v2 VM: one node,
# vm, running slurmctld and slurmd as root, cgroup/v2 with proctrack/cgroup
# as on a Debian 13 GPU node, two GPUs (/dev/nvidia0-1, boot.sh),
# spank_qosdeny.so reporting to the VM's Redis. Accounting is off: jobs
# name their account (-A). QD_VM_JOBID_PATHS=yes adds CgroupJobIdPaths=yes
# to cgroup.conf (26.05: the job's cgroup named job_N, not by its SLUID).
#
#   slurm.sh start TASKPLUGIN CONSTRAIN   task/none or task/cgroup; the
#                                         cgroup.conf ConstrainDevices=
#                                         yes|no. Fresh state, waits for
#                                         the node to be idle.
#   slurm.sh restart-slurmd               slurmd stopped and started again
#   slurm.sh stop                         both daemons, by pid
#
# Its files are under QD_CLUSTER_DIR (/var/lib/qd), which as-user.sh and
# lib.sh know.
set -u
D=/var/lib/qd
ETC=$D/etc
export SLURM_CONF=$ETC/slurm.conf
PLUGIN=${QD_VM_PLUGIN:-/qosdeny/build/trixie/spank_qosdeny.so}
# shellcheck source=tests/vm/node-conf.sh
. "${BASH_SOURCE[0]%/*}/node-conf.sh"
# nap SECONDS: a sleep without a process. In the emulated guest every
# process costs tens of milliseconds: the polls below use none but the
# Slurm client's.
# shellcheck source=tests/cluster/nap.sh
. "${BASH_SOURCE[0]%/*}/../cluster/nap.sh"

stop_pid() { # PIDFILE
	local p i
	# The first line: from 24.05 a daemon that restarted itself writes its
	# pid over the old one without truncating (cluster.sh, pidfile_pid).
	p=""
	{ IFS= read -r p <"$1"; } 2>/dev/null
	p=${p//[!0-9]/}
	[ -n "$p" ] || return 0
	kill "$p" 2>/dev/null || return 0
	for ((i = 0; i < 100; i++)); do
		kill -0 "$p" 2>/dev/null || return 0
		nap 0.1
	done
	kill -9 "$p" 2>/dev/null
}

node_idle() { [[ $(scontrol show node vm 2>/dev/null) == *"State=IDLE "* ]]; }
node_up() {
	local up='State=(IDLE|MIXED|ALLOCATED)[ +]'
	[[ $(scontrol show node vm 2>/dev/null) =~ $up ]]
}

wait_until() { # SECONDS COMMAND...
	local i limit=$1
	shift
	for ((i = 0; i < limit * 10; i++)); do
		"$@" && return 0
		nap 0.1
	done
	return 1
}

write_conf() {
	# 4 shards a GPU beside it: t_v2_binding.sh binds shard steps too.
	QD_NODE_SHARDS=4 write_node_conf "$ETC" "$D" vmv2 vm 10.99.0.1 2 2 "$1" "$2"
	echo "required $PLUGIN redis=127.0.0.1:6379" >"$ETC/plugstack.conf"
	[ "${QD_VM_JOBID_PATHS:-}" = yes ] &&
		echo "CgroupJobIdPaths=yes" >>"$ETC/cgroup.conf"
	for u in alice bob; do
		mkdir -p "$D/users/$u"
		chown "$u:" "$D/users/$u"
	done
}

start_slurmd() {
	slurmd -f "$SLURM_CONF" || return 1
	wait_until 30 node_up
}

case ${1:-} in
start)
	"$0" stop
	rm -rf "$D/state" "$D/spool"
	write_conf "${2:-task/none}" "${3:-no}"
	slurmctld -f "$SLURM_CONF" -i || exit 1
	start_slurmd || exit 1
	wait_until 30 node_idle
	;;
restart-slurmd)
	stop_pid /run/slurmd.pid
	start_slurmd
	;;
stop)
	stop_pid /run/slurmd.pid
	stop_pid /run/slurmctld.pid
	;;
*)
	echo "usage: slurm.sh start TASKPLUGIN yes|no | restart-slurmd | stop" >&2
	exit 2
	;;
esac
