#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A throwaway Slurm 22.05 cluster on this host, all on loopback, for the
# integration tests and `make demo`.  See tests/cluster/README.md.
#
#   cluster.sh start           wipe QD_CLUSTER_DIR, bring everything up, wait
#   cluster.sh stop            stop every daemon started here (by pid)
#   cluster.sh status          exit 0 when every daemon runs
#   cluster.sh restart-ctld    restart slurmctld only (state kept)
#   cluster.sh restart-slurmd [n1|n2]...  restart slurmd (default both);
#                              QD_SLURMD_FOREGROUND=yes: with -D, as
#                              Debian's systemd unit runs it (start too)
#   cluster.sh reconfigure     scontrol reconfigure, wait until it answers
#   cluster.sh write-conf      rewrite slurm.conf from QD_JOBSUBMIT,
#                              QD_SLURM_CONF_EXTRA and QD_ACCOUNTING, same ports;
#                              QD_NO_GPU_GRES=yes: no gpu in GresTypes, no
#                              Gres= on the nodes (a site that leaves its
#                              GPUs out of Slurm's GRES); QD_MPS_GRES=yes:
#                              mps:400 on each node beside its GPUs,
#                              QD_SHARD_GRES=yes shard:16 (gres.conf's lines
#                              are the caller's)
#   cluster.sh redis-stop | redis-start
#   cluster.sh dbd-stop | dbd-start   stop / start slurmdbd only (fault drills)
#   cluster.sh env             print QD_CLUSTER_DIR/env (source it)
#   cluster.sh free-ports N    print N unused local ports (a test's own
#                              servers: t_redis_failover.sh's Redis set)
#   cluster.sh loopback-quickack on|off FILE
#                              QD_QUICKACK's routes set for several
#                              clusters at once, listed in FILE (make check)
#
# Must run as root.  Daemons run as root, users alice/bob/charlie submit
# (tests/cluster/as-user.sh).

set -u
umask 022

# Every test and every restart runs this script, and a process costs
# (docs/development.md, "What it costs"): what the shell can do itself, it
# does, here and below.
HERE=${BASH_SOURCE[0]%/*}
[ "$HERE" != "${BASH_SOURCE[0]}" ] || HERE=.
cd "$HERE" && HERE=$PWD && cd "$OLDPWD" || exit 1
REPO=${HERE%/*/*}
# nap SECONDS: a sleep without a process.
source "$HERE/nap.sh"
BUILD=${QD_BUILD:-$REPO/build}
D=${QD_CLUSTER_DIR:-$BUILD/cluster}
case $D in /*) ;; *) D=$(pwd)/$D ;; esac
D=${D%/}
TIMEOUT=${QD_START_TIMEOUT:-60}
CLUSTER=qdtest
# plugin_dirs: SYS_PLUGINDIR, Slurm's own plugins, and PLUGINDIR,
# slurm.conf's PluginDir (this build's after them). Debian's Slurm keeps
# its plugins in slurm-wlm/, SchedMD's packages (23.11, 25.11, 26.05:
# tests/chroot/install-slurm.sh) in slurm/. Asked of pkg-config only by
# the commands that write a configuration.
plugin_dirs() {
	local libdir
	libdir=$(pkg-config --variable=libdir slurm 2>/dev/null || echo /usr/lib/x86_64-linux-gnu)
	SYS_PLUGINDIR=$libdir/slurm-wlm
	[ -d "$SYS_PLUGINDIR" ] || SYS_PLUGINDIR=$libdir/slurm
	PLUGINDIR=$SYS_PLUGINDIR:${QD_PLUGINDIR:-$BUILD}
}
DBPASS=qdtest-slurm
TEST_USERS="alice bob charlie"

ETC=$D/etc
RUN=$D/run
LOG=$D/log
CONF=$ETC/slurm.conf
MSOCK=$RUN/munge/munge.socket
DBSOCK=$RUN/mariadb.sock
MARKER="QD_CLUSTER_DAEMON=$D"

msg() { echo "cluster: $*" >&2; }
T0=${EPOCHREALTIME/./}
phase() {
	local us
	[ "${QD_VERBOSE:-0}" = 1 ] || return 0
	us=$((${EPOCHREALTIME/./} - T0))
	msg "$(printf '%3d.%02ds' $((us / 1000000)) $((us % 1000000 / 10000))) $*"
}

need_root() {
	if [ "$EUID" != 0 ]; then
		msg "must run as root"
		exit 1
	fi
}

# ---------------------------------------------------------------- processes

# exe_path NAME: EXE, the file PATH has for the command NAME (bash's own
# table of them), or "".
exe_path() {
	EXE=
	hash "$1" 2>/dev/null && EXE=${BASH_CMDS[$1]}
}

# is_ours PID EXE: PID runs the file EXE (the same file: test's -ef, where
# /proc/PID/exe leads) and belongs to this cluster: our marker in its
# environment, or its cwd or an open file under $D.
is_ours() {
	local pid=$1 exe=$2 f e envs=()
	[ -n "$pid" ] && [ -d "/proc/$pid" ] || return 1
	is_zombie "$pid" && return 1
	[ "/proc/$pid/exe" -ef "$exe" ] || return 1
	{ mapfile -d '' -t envs <"/proc/$pid/environ"; } 2>/dev/null
	for e in "${envs[@]}"; do
		[ "$e" = "$MARKER" ] && return 0
	done
	case $(readlink "/proc/$pid/cwd" 2>/dev/null) in "$D" | "$D"/*) return 0 ;; esac
	for f in /proc/"$pid"/fd/*; do
		case $(readlink "$f" 2>/dev/null) in "$D"/*) return 0 ;; esac
	done
	return 1
}

# is_zombie PID: gone, or a zombie. Read by the shell itself: the stop
# loops ask ten times a second for each daemon. A process that ends while
# its status is read leaves st empty (gone), never unset: under set -u
# that aborted the whole command mid-stop (make check run 42).
is_zombie() {
	local key="" st=""
	{ while read -r key st _; do
		[ "$key" = State: ] && break
	done <"/proc/$1/status"; } 2>/dev/null || return 0
	[ -z "$st" ] || [ "$st" = Z ] || [ "$st" = X ]
}

alive() { [ -d "/proc/$1" ] && ! is_zombie "$1"; }

# pidfile_pid FILE: the pid on the file's first line. From 24.05 a Slurm
# daemon that restarts itself (scontrol reconfigure) writes its new pid over
# the old one without truncating the file (update_pidfile in Slurm's
# daemonize.c): a shorter pid leaves the old one's tail on a second line.
pidfile_pid() { read_pid "$1" && printf '%s' "$PID"; }
# read_pid FILE: pidfile_pid's reading, into PID, for the shell's own use.
read_pid() {
	local l=""
	PID=""
	[ -r "$1" ] || return 1
	{ IFS= read -r l <"$1"; } 2>/dev/null
	PID=${l//[!0-9]/}
}

# kill_pids SECONDS PID...: SIGTERM, poll until gone, SIGKILL after SECONDS.
kill_pids() {
	local bound=$1 p left i=0
	shift
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null
	while :; do
		left=()
		for p in "$@"; do alive "$p" && left+=("$p"); done
		[ ${#left[@]} -eq 0 ] && return 0
		if [ $i -ge $((bound * 10)) ]; then
			msg "SIGKILL ${left[*]} (still running after ${bound}s)"
			kill -KILL "${left[@]}" 2>/dev/null
			nap 0.2
			return 0
		fi
		nap 0.1
		i=$((i + 1))
	done
}

# The daemons: name, pidfile, binary.
DAEMONS=(
	"slurmd-n1 $RUN/slurmd-n1.pid slurmd"
	"slurmd-n2 $RUN/slurmd-n2.pid slurmd"
	"slurmctld $RUN/slurmctld.pid slurmctld"
	"slurmdbd $RUN/slurmdbd.pid slurmdbd"
	"mariadb $RUN/mariadb.pid mariadbd"
	"redis $RUN/redis.pid redis-server"
	"munged $RUN/munged.pid munged"
)

# daemon_pid NAME: its pid when it runs and is ours, else nothing, status 1
daemon_pid() {
	local row name pf bin p
	for row in "${DAEMONS[@]}"; do
		read -r name pf bin <<<"$row"
		[ "$name" = "$1" ] || continue
		p=$(pidfile_pid "$pf")
		exe_path "$bin"
		if [ -n "$p" ] && [ -n "$EXE" ] && is_ours "$p" "$EXE"; then
			echo "$p"
			return 0
		fi
		return 1
	done
	return 1
}

stop_daemon() { # NAME [BOUND]
	local p
	p=$(daemon_pid "$1") || return 0
	kill_pids "${2:-15}" "$p"
}

stop_daemons() { # BOUND NAME...
	local bound=$1 n p pids=()
	shift
	for n in "$@"; do
		p=$(daemon_pid "$n") && pids+=("$p")
	done
	kill_pids "$bound" "${pids[@]}"
}

# ours_running BINARY...: the processes of this cluster running them. Also
# what stops Slurm daemons that no pidfile names any more: from 24.05
# `scontrol reconfigure` makes slurmctld start a new process of itself,
# which writes the pidfile once it is up, so a stop during a reconfigure
# reads the old pid.
ours_running() {
	local bin f p
	for bin in "$@"; do
		exe_path "$bin"
		[ -n "$EXE" ] || continue
		for f in /proc/[0-9]*/exe; do
			[ "$f" -ef "$EXE" ] || continue
			p=${f#/proc/}
			p=${p%/exe}
			is_ours "$p" "$EXE" && echo "$p"
		done
	done
}

# slurmstepd processes of this cluster (they outlive slurmd) and the job
# tasks they leave behind.
stray_pids() {
	local f p
	ours_running slurmstepd
	while read -r f; do
		p=${f#/proc/}
		p=${p%/environ}
		[ "$p" = $$ ] && continue
		grep -qz '^SLURMD_NODENAME=' "$f" 2>/dev/null && echo "$p"
	done < <(grep -lzxF "SLURM_CONF=$CONF" /proc/[0-9]*/environ 2>/dev/null)
}

# QD_QUICKACK=1: turn off delayed ACKs on the loopback routes while the
# cluster runs.  Slurm writes a message's length and its body separately,
# so without this every RPC on loopback waits ~40 ms for a delayed ACK
# (Nagle): sacctmgr calls take 0.2-0.5 s instead of 0.02 s.  It is a
# host-wide setting (needs CAP_NET_ADMIN): off unless asked for; `stop`
# puts the routes back as they were.
#
# The routes changed are listed in QA_ROUTES (the cluster's own file, or
# the one `cluster.sh loopback-quickack on|off FILE` names: make check
# sets them once for every cluster it runs side by side).
QA_ROUTES=$D/quickack-routes
quickack_on() {
	local r
	[ "${QD_QUICKACK:-0}" = 1 ] || return 0
	command -v ip >/dev/null || { msg "QD_QUICKACK=1: no ip(8), ignored"; return 0; }
	while read -r r; do
		case $r in *quickack*) continue ;; esac
		# shellcheck disable=SC2086
		if ip route change $r table local quickack 1 2>/dev/null; then
			echo "$r" >>"$QA_ROUTES"
		else
			msg "QD_QUICKACK=1: cannot change route '$r', ignored"
		fi
	done < <(ip route show table local | grep '^local 127\.')
}

quickack_off() {
	local r
	[ -r "$QA_ROUTES" ] || return 0
	while read -r r; do
		# shellcheck disable=SC2086
		ip route change $r table local 2>/dev/null
	done <"$QA_ROUTES"
	rm -f "$QA_ROUTES"
}

slurm_env() {
	export SLURM_CONF=$CONF
	unset SLURM_JOB_ID SLURM_JOBID SLURM_JOB_NAME SLURM_NODELIST SLURM_JOB_NODELIST
}

do_stop() {
	local p strays
	[ -d "$D" ] || return 0
	# Jobs first, so slurmstepd and the tasks end the normal way.
	if p=$(daemon_pid slurmctld); then
		slurm_env
		local jobs i=0
		jobs=$(timeout 5 squeue -h -o %A 2>/dev/null)
		if [ -n "$jobs" ]; then
			# shellcheck disable=SC2086
			timeout 5 scancel $jobs 2>/dev/null
			while [ $i -lt 100 ] && [ -n "$(timeout 5 squeue -h -o %A 2>/dev/null)" ]; do
				nap 0.1
				i=$((i + 1))
			done
		fi
	fi
	# Slurm first (in parallel: slurmctld alone takes ~1.5 s), then what
	# it depends on.
	stop_daemons 15 slurmd-n1 slurmd-n2 slurmctld
	mapfile -t strays < <(ours_running slurmctld slurmd)
	if [ ${#strays[@]} -gt 0 ]; then
		msg "stopping Slurm daemons no pidfile names: ${strays[*]}"
		kill_pids 15 "${strays[@]}"
	fi
	stop_daemons 15 slurmdbd redis
	stop_daemons 30 mariadb munged
	mapfile -t strays < <(stray_pids)
	if [ ${#strays[@]} -gt 0 ]; then
		msg "stopping leftover job processes: ${strays[*]}"
		kill_pids 2 "${strays[@]}"
	fi
	rm -f "$RUN"/*.pid
	quickack_off
	return 0
}

# ------------------------------------------------------------------- ports

# read_tcp_ports [STATE]: TCP, the local TCP ports in use as "PORT STATE"
# (0A: listen), in any state or in STATE, read by the shell itself
# (slurmd_registered polls listening). Plain bash: Debian's default awk
# (mawk) has no strtonum. Each file is read whole by mapfile: `read` seeks
# back to the end of every line it takes, and every seek in a /proc/net
# file walks the socket table again from its start (with make check's
# 1,800 sockets, mostly TIME_WAIT, one such reading took 1.7 s of CPU).
read_tcp_ports() {
	local - want=${1:-} f line lines IFS=$' \t\n'
	set -f # the fields are split by the shell, never globbed
	TCP=()
	for f in /proc/net/tcp /proc/net/tcp6; do
		[ -r "$f" ] || continue
		mapfile -t lines <"$f"
		# "  12: 0100007F:2B5C 00000000:0000 0A ...": the port, the state.
		for line in "${lines[@]:1}"; do
			set -- $line
			[ -z "$want" ] || [ "$4" = "$want" ] || continue
			TCP+=("$((16#${2##*:})) $4")
		done
	done
}
# tcp_ports: TCP's lines, one a line.
tcp_ports() {
	read_tcp_ports
	[ ${#TCP[@]} -eq 0 ] || printf '%s\n' "${TCP[@]}"
}

used_ports() { tcp_ports | cut -d' ' -f1 | sort -un; }

# free_ports N: N distinct unused ports below the ephemeral range, from
# QD_PORT_MIN to QD_PORT_MAX (make check gives the clusters it runs side
# by side ranges of their own, so that two never pick the same port).
free_ports() {
	local n=$1 used picked="" p tries=0 lo=${QD_PORT_MIN:-10000} hi=${QD_PORT_MAX:-31999}
	used=" $(used_ports | tr '\n' ' ') "
	while [ "$n" -gt 0 ] && [ $tries -lt 10000 ]; do
		tries=$((tries + 1))
		p=$((lo + (RANDOM * 32768 + RANDOM) % (hi - lo + 1)))
		case "$used$picked " in *" $p "*) continue ;; esac
		picked="$picked $p"
		n=$((n - 1))
	done
	echo "${picked# }"
}

# ---------------------------------------------------------------- waiting

# wait_for DESC CMD...: poll CMD until it succeeds, at most $TIMEOUT seconds;
# give up early when the process WATCH_PID, or one named by the pid files
# in WATCH_PIDFILE (blank separated), has died. Every 0.1 s for the first
# second, then every 0.2 s: most polls are Slurm clients (sinfo, scontrol
# ping), and the waits of restarts for the nodes to register ran 240 of
# them in one test (t_adopt.sh).
wait_for() {
	local desc=$1 i=0 end p
	shift
	end=$((SECONDS + TIMEOUT))
	until "$@" >/dev/null 2>&1; do
		if [ $SECONDS -ge $end ]; then
			msg "timed out after ${TIMEOUT}s waiting for $desc"
			return 1
		fi
		if [ $i -ge 3 ]; then
			local wpids=${WATCH_PID:-} f
			for f in ${WATCH_PIDFILE:-}; do
				read_pid "$f"
				wpids+=" $PID"
			done
			for p in $wpids; do
				if ! alive "$p"; then
					msg "$desc: process $p died"
					return 1
				fi
			done
		fi
		if [ $i -lt 10 ]; then nap 0.1; else nap 0.2; fi
		i=$((i + 1))
	done
}

show_log() {
	local f
	for f in "$@"; do
		[ -s "$f" ] || continue
		echo "----- tail of $f" >&2
		tail -n 25 "$f" >&2
	done
}

fail_start() { # LOG...
	msg "start FAILED"
	show_log "$@"
	[ -n "${INITPID:-}" ] && alive "$INITPID" && kill_pids 5 "$INITPID"
	do_stop
	exit 1
}

# ------------------------------------------------------------------ config

load_ports() {
	if [ ! -r "$D/env" ]; then
		msg "no cluster in $D (run: cluster.sh start)"
		exit 1
	fi
	# shellcheck disable=SC1091
	. "$D/env"
}

# QD_ACCOUNTING=none: Slurm without accounting, so without
# AccountingStorageTRES too (slurmctld refuses gres/gpu there without
# slurmdbd); slurmdbd keeps running, unused, for the next write-conf. The
# GPU shares are counted where the nodes have them (QD_MPS_GRES,
# QD_SHARD_GRES), as docs/gpu-and-usage.md's example counts them, unless
# QD_SHARE_TRES=no.
accounting_conf() {
	local tres=gres/gpu,gres/gpu:a100,gres/gpu:v100
	if [ "${QD_ACCOUNTING:-}" == none ]; then
		echo "AccountingStorageType=accounting_storage/none"
		return
	fi
	if [ "${QD_SHARE_TRES:-}" = no ]; then
		:
	elif [ "${QD_MPS_GRES:-}" = yes ]; then
		tres+=,gres/mps
	elif [ "${QD_SHARD_GRES:-}" = yes ]; then
		tres+=,gres/shard
	fi
	cat <<EOF
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$QD_DBD_PORT
AccountingStoragePass=socket=$MSOCK
AccountingStorageEnforce=associations,limits,qos
AccountingStorageTRES=$tres
EOF
}

write_slurm_conf() {
	local tmp=$CONF.tmp gres1=" Gres=gpu:a100:4" gres2=" Gres=gpu:v100:4"
	local types=GresTypes=gpu
	plugin_dirs
	if [ "${QD_NO_GPU_GRES:-}" = yes ]; then
		gres1= gres2= types="# no GresTypes (QD_NO_GPU_GRES)"
	elif [ "${QD_MPS_GRES:-}" = yes ]; then
		gres1+=,mps:400 gres2+=,mps:400 types=GresTypes=gpu,mps
	elif [ "${QD_SHARD_GRES:-}" = yes ]; then
		gres1+=,shard:16 gres2+=,shard:16 types=GresTypes=gpu,shard
	fi
	cat >"$tmp" <<EOF
# generated by tests/cluster/cluster.sh
ClusterName=$CLUSTER
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$QD_CTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$MSOCK
CredType=cred/munge
PluginDir=$PLUGINDIR
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool/%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd-%n.log
SlurmctldDebug=${QD_CTLD_DEBUG:-info}
SlurmdDebug=${QD_SLURMD_DEBUG:-info}
ProctrackType=${QD_PROCTRACK:-proctrack/linuxproc}
TaskPlugin=${QD_TASKPLUGIN:-task/none}
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
SlurmdParameters=config_overrides
$types
$(accounting_conf)
JobCompType=jobcomp/none
MailProg=/bin/true
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2,bf_interval=1
ReturnToService=2
FirstJobId=${QD_FIRST_JOB_ID:-1}
SlurmctldTimeout=30
SlurmdTimeout=60
MessageTimeout=10
TCPTimeout=2
InactiveLimit=0
KillWait=2
MinJobAge=300
Waittime=0
NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$QD_N1_PORT CPUs=32 Boards=1 SocketsPerBoard=2 CoresPerSocket=16 ThreadsPerCore=1 RealMemory=64000$gres1 State=UNKNOWN
NodeName=n2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$QD_N2_PORT CPUs=32 Boards=1 SocketsPerBoard=2 CoresPerSocket=16 ThreadsPerCore=1 RealMemory=64000$gres2 State=UNKNOWN
PartitionName=gpu Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
EOF
	if [ -n "${QD_JOBSUBMIT:-}" ]; then
		echo "JobSubmitPlugins=$QD_JOBSUBMIT" >>"$tmp"
	fi
	if [ -n "${QD_SLURM_CONF_EXTRA:-}" ]; then
		if [ ! -r "$QD_SLURM_CONF_EXTRA" ]; then
			msg "QD_SLURM_CONF_EXTRA=$QD_SLURM_CONF_EXTRA: not readable"
			return 1
		fi
		{
			echo "# from $QD_SLURM_CONF_EXTRA"
			subst <"$QD_SLURM_CONF_EXTRA"
		} >>"$tmp"
	fi
	chmod 644 "$tmp"
	mv -f "$tmp" "$CONF"
}

# placeholders in QD_ETC_FILES and QD_SLURM_CONF_EXTRA, stdin to stdout
subst() {
	local t=""
	IFS= read -r -d '' t
	t=${t//@QD_CLUSTER_DIR@/$D}
	t=${t//@QD_SLURM_ETC@/$ETC}
	t=${t//@QD_REDIS_PORT@/${QD_REDIS_PORT:-}}
	t=${t//@QD_REPO@/$REPO}
	printf '%s' "${t//@QD_MUNGE_SOCKET@/$MSOCK}"
}

write_configs() {
	local f
	write_slurm_conf || return 1
	: >"$ETC/plugstack.conf"
	# QD_ETC_FILES: files copied into the etc directory (same base name,
	# same mode, placeholders replaced) before any daemon starts.
	for f in ${QD_ETC_FILES:-}; do
		if [ ! -r "$f" ]; then
			msg "QD_ETC_FILES: $f not readable"
			return 1
		fi
		# shellcheck disable=SC2094
		subst <"$f" >"$ETC/${f##*/}"
		chmod --reference="$f" "$ETC/${f##*/}"
	done
	cat >"$ETC/gres.conf" <<EOF
AutoDetect=off
NodeName=n1 Name=gpu Type=a100 File=$D/dev/nvidia[0-3]
NodeName=n2 Name=gpu Type=v100 File=$D/dev/nvidia[4-7]
EOF
	cat >"$ETC/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$MSOCK
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$QD_DBD_PORT
SlurmUser=root
PidFile=$RUN/slurmdbd.pid
LogFile=$LOG/slurmdbd.log
DebugLevel=${QD_DBD_DEBUG:-info}
PluginDir=$SYS_PLUGINDIR
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$QD_DB_PORT
StorageUser=slurm
StoragePass=$DBPASS
StorageLoc=slurm_acct_db
EOF
	chmod 600 "$ETC/slurmdbd.conf"
	chmod 644 "$ETC/gres.conf"
}

write_env() {
	cat >"$D/env" <<EOF
# source me: the test cluster in $D
export QD_CLUSTER_DIR=$D
export SLURM_CONF=$CONF
export QD_SLURM_ETC=$ETC
export QD_CLUSTER_NAME=$CLUSTER
export QD_LOG_DIR=$LOG
export QD_CTLD_LOG=$LOG/slurmctld.log
export QD_DBD_LOG=$LOG/slurmdbd.log
export QD_SPOOL_DIR=$D/spool
export QD_DEV_DIR=$D/dev
export QD_MUNGE_SOCKET=$MSOCK
export QD_CTLD_PORT=$QD_CTLD_PORT
export QD_DBD_PORT=$QD_DBD_PORT
export QD_DB_PORT=$QD_DB_PORT
export QD_DB_SOCKET=$DBSOCK
export QD_N1_PORT=$QD_N1_PORT
export QD_N2_PORT=$QD_N2_PORT
export QD_REDIS_PORT=$QD_REDIS_PORT
export QD_REDIS_ADDR=127.0.0.1:$QD_REDIS_PORT
export QD_PLUGIN_PATH=$PLUGINDIR
EOF
	chmod 644 "$D/env"
}

# ----------------------------------------------------------------- daemons

# run a daemon with a clean environment carrying our marker
dstart() { dstart_env "${QD_DAEMON_ENV:-}" "$@"; }

# dstart_env WORDS CMD...: dstart with the VAR=VALUE words WORDS added
# (placeholders replaced).
dstart_env() {
	local extra=()
	[ -z "$1" ] || read -ra extra <<<"$(printf '%s' "$1" | subst)"
	shift
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		SLURM_CONF="$CONF" "$MARKER" "${extra[@]}" "$@" </dev/null
}

start_munge() {
	dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 status=none
	chmod 400 "$D/munge/munge.key"
	dstart munged --force --socket="$MSOCK" --key-file="$D/munge/munge.key" \
		--pid-file="$RUN/munged.pid" --log-file="$LOG/munged.log" \
		--seed-file="$D/munge/munged.seed" >>"$LOG/munged.out" 2>&1 ||
		fail_start "$LOG/munged.out" "$LOG/munged.log"
	wait_for "munged" munge_ok || fail_start "$LOG/munged.out" "$LOG/munged.log"
}
munge_ok() { munge -n -S "$MSOCK" | unmunge -S "$MSOCK"; }

init_mariadb() {
	mariadb-install-db --no-defaults --datadir="$D/db" --user=root \
		--auth-root-authentication-method=socket --skip-test-db \
		--skip-name-resolve >"$LOG/mariadb-install.log" 2>&1
}

start_mariadb() {
	dstart setsid mariadbd --no-defaults --datadir="$D/db" --user=root \
		--socket="$DBSOCK" --pid-file="$RUN/mariadb.pid" \
		--port="$QD_DB_PORT" --bind-address=127.0.0.1 --skip-name-resolve \
		--log-error="$LOG/mariadb.log" --skip-log-bin \
		--innodb-buffer-pool-size=64M --innodb-log-file-size=16M \
		--innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 \
		--innodb-lock-wait-timeout=900 --max-allowed-packet=16M \
		>>"$LOG/mariadb.out" 2>&1 &
	WATCH_PID=$! wait_for "mariadb" mariadb-admin --no-defaults \
		--socket="$DBSOCK" -uroot ping ||
		fail_start "$LOG/mariadb.out" "$LOG/mariadb.log"
	mariadb --no-defaults --socket="$DBSOCK" -uroot >>"$LOG/mariadb.out" 2>&1 <<EOF ||
CREATE DATABASE slurm_acct_db;
CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$DBPASS';
CREATE USER 'slurm'@'localhost' IDENTIFIED BY '$DBPASS';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';
EOF
		fail_start "$LOG/mariadb.out" "$LOG/mariadb.log"
}

# A Redis that answers already is left alone: a second redis-server on its
# port fails to listen, and Redis 8 (Debian 13) writes the pidfile before
# that, naming a dead process in place of the running one.
start_redis() {
	[ "${QD_REDIS:-1}" = 0 ] && return 0
	redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" ping >/dev/null 2>&1 &&
		return 0
	dstart redis-server --port "$QD_REDIS_PORT" --bind 127.0.0.1 \
		--daemonize yes --pidfile "$RUN/redis.pid" --dir "$D/redis" \
		--logfile "$LOG/redis.log" --save '' --appendonly yes \
		--enable-debug-command local \
		>>"$LOG/redis.out" 2>&1 || { show_log "$LOG/redis.out" "$LOG/redis.log"; return 1; }
	wait_for "redis" redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" ping ||
		{ show_log "$LOG/redis.log"; return 1; }
}

start_slurmdbd() {
	dstart slurmdbd >>"$LOG/slurmdbd.out" 2>&1 ||
		fail_start "$LOG/slurmdbd.out" "$LOG/slurmdbd.log"
	wait_for "slurmdbd" sacctmgr -n show cluster ||
		fail_start "$LOG/slurmdbd.out" "$LOG/slurmdbd.log" "$LOG/mariadb.log"
}

setup_accounts() {
	{
		sacctmgr -i add cluster $CLUSTER &&
			sacctmgr -i add account research,batch cluster=$CLUSTER &&
			sacctmgr -i add user alice,bob account=research defaultaccount=research &&
			sacctmgr -i add user charlie account=batch defaultaccount=batch
	} >>"$LOG/sacctmgr.log" 2>&1 || fail_start "$LOG/sacctmgr.log" "$LOG/slurmdbd.log"
}

ctld_up() { [[ $(scontrol ping 2>/dev/null) == *"is UP"* ]]; }

# start_ctld: start slurmctld, wait until it answers; 1 on failure (no
# cleanup). Slurm 24.11 beside MariaDB 11.8 (Debian 13) can leave a
# ClusterID of its own making in StateSaveLocation: when a reconfigure's
# new slurmctld fails (t_site_factor_start makes it), it and the old one
# resuming register with slurmdbd at once, MariaDB refuses one update
# ("1020 Record has changed since last read in table 'cluster_table'"),
# and the old one, given no ID, writes a new one to state/clustername.
# Every later start then stops at "CLUSTER ID MISMATCH" (seen once, in run
# 36). That file is removed, as Slurm's message says to, and the start
# tried once more, with a line saying so.
start_ctld() {
	local from
	from=$(stat -c %s "$LOG/slurmctld.log" 2>/dev/null || echo 0)
	start_ctld_once && return 0
	tail -c +$((from + 1)) "$LOG/slurmctld.log" 2>/dev/null |
		grep -q 'CLUSTER ID MISMATCH' || return 1
	msg "slurmctld: StateSaveLocation's ClusterID is not slurmdbd's" \
		"(Slurm's, after a failed reconfigure): state/clustername" \
		"removed, starting again"
	rm -f "$D/state/clustername"
	start_ctld_once
}

start_ctld_once() {
	local rc
	rm -f "$RUN/slurmctld.pid"
	# QD_CTLD_ENV: slurmctld's alone, e.g. LD_PRELOAD of a sanitizer
	# runtime for a plugin built with it (tests/integration/asan.sh).
	dstart_env "${QD_DAEMON_ENV:-} ${QD_CTLD_ENV:-}" slurmctld \
		>>"$LOG/slurmctld.out" 2>&1
	rc=$?
	if [ $rc != 0 ]; then
		msg "slurmctld exited with status $rc"
		show_log "$LOG/slurmctld.out" "$LOG/slurmctld.log"
		return 1
	fi
	WATCH_PIDFILE=$RUN/slurmctld.pid wait_for "slurmctld" ctld_up || {
		show_log "$LOG/slurmctld.out" "$LOG/slurmctld.log"
		return 1
	}
}

# With QD_SLURMD_FOREGROUND=yes slurmd runs with -D, in the background of
# this script, as Debian's systemd unit runs it (slurmd -D -s): Slurm
# 22.05's slurmd otherwise forks into the background after loading its
# plugins, leaving their threads behind (qosdeny's heartbeat and metrics).
# Its pidfile is written all the same, which is how it is found and
# stopped.
start_slurmd() { # NODE
	if [ "${QD_SLURMD_FOREGROUND:-}" = yes ]; then
		(dstart slurmd -D -N "$1" >>"$LOG/slurmd-$1.out" 2>&1 &)
		return 0
	fi
	dstart slurmd -N "$1" >>"$LOG/slurmd-$1.out" 2>&1 || {
		msg "slurmd -N $1 failed"
		show_log "$LOG/slurmd-$1.out" "$LOG/slurmd-$1.log"
		return 1
	}
}

# nodes_idle: sinfo's lines (one a node and partition, sorted by node)
# are n1 idle and n2 idle.
nodes_idle() {
	local s l u=" "
	s=$(sinfo -h -N -o '%N %T' 2>/dev/null) || return 1
	while IFS= read -r l; do
		case $u in *" $l "*) ;; *) u+="$l " ;; esac
	done <<<"$s"
	[ "$u" = " n1 idle n2 idle " ]
}
nodes_up() {
	# registered: no node in a down/unknown/not-responding state
	local s bad='\*|unk|down|drain|fail|inval'
	s=$(sinfo -h -N -o '%t' 2>/dev/null) || return 1
	[ -n "$s" ] && ! [[ $s =~ $bad ]]
}
tres_ok() {
	local t
	t=$(sacctmgr -n -P show tres format=type,name 2>/dev/null)
	t=$'\n'$t$'\n'
	[[ $t == *$'\ngres|gpu\n'* && $t == *$'\ngres|gpu:a100\n'* &&
		$t == *$'\ngres|gpu:v100\n'* ]]
}

make_dirs() {
	local u d
	mkdir -p "$ETC" "$RUN/munge" "$LOG" "$D/munge" "$D/db" "$D/state" \
		"$D/spool/n1" "$D/spool/n2" "$D/dev" "$D/redis" "$D/users"
	chmod 700 "$D/munge"
	chmod 755 "$D" "$ETC" "$RUN" "$RUN/munge" "$LOG" "$D/dev" "$D/users" "$D/spool"
	for i in 0 1 2 3 4 5 6 7; do
		mknod -m 666 "$D/dev/nvidia$i" c 195 "$i" || return 1
	done
	for u in $TEST_USERS; do
		id -u "$u" >/dev/null 2>&1 || {
			msg "user $u missing (run: sh tests/cluster/install-deps.sh)"
			return 1
		}
		mkdir -p "$D/users/$u"
		chown "$u:" "$D/users/$u"
	done
	# Clients (alice...) must reach the munge socket and slurm.conf:
	# every directory above them must be searchable by others.
	d=$D
	while [ "$d" != / ] && [ -n "$d" ]; do
		if [ "$(($(stat -c '%#a' "$d") & 1))" = 0 ]; then
			msg "making $d searchable (o+x) for the test users"
			chmod o+x "$d"
		fi
		d=${d%/*}
	done
}

do_start() {
	local t0=$SECONDS
	need_root
	for b in munged mariadbd mariadb-install-db slurmdbd slurmctld slurmd sacctmgr redis-server; do
		command -v $b >/dev/null || {
			msg "$b not found (run: sh tests/cluster/install-deps.sh)"
			exit 1
		}
	done
	if [ ${#MSOCK} -gt 100 ]; then
		msg "QD_CLUSTER_DIR too long for a unix socket path: $MSOCK"
		exit 1
	fi
	do_stop
	trap 'msg "start interrupted"; do_stop; exit 130' INT TERM
	if [ -d "$D" ] && [ ! -e "$D/.qd-cluster" ] && [ -n "$(ls -A "$D")" ]; then
		msg "$D exists, is not empty and was not made by cluster.sh: not wiping it"
		exit 1
	fi
	rm -rf "$D"
	make_dirs || fail_start
	: >"$D/.qd-cluster"
	quickack_on

	read -r QD_CTLD_PORT QD_DBD_PORT QD_DB_PORT QD_N1_PORT QD_N2_PORT QD_REDIS_PORT \
		< <(free_ports 6)
	write_configs || fail_start
	write_env
	slurm_env

	# mariadb-install-db is the slow part: run it beside munged and redis
	init_mariadb &
	INITPID=$!
	phase munged
	start_munge
	phase redis
	start_redis || fail_start
	phase mariadb-install-db
	wait $INITPID || fail_start "$LOG/mariadb-install.log"
	INITPID=
	phase mariadb
	start_mariadb
	phase slurmdbd
	start_slurmdbd
	phase sacctmgr
	setup_accounts
	phase slurmctld
	start_ctld || fail_start
	phase slurmd
	start_slurmd n1 || fail_start
	start_slurmd n2 || fail_start
	WATCH_PIDFILE="$RUN/slurmctld.pid $RUN/slurmd-n1.pid $RUN/slurmd-n2.pid" \
		wait_for "nodes n1 n2 idle" nodes_idle ||
		fail_start "$LOG/slurmd-n1.log" "$LOG/slurmd-n2.log" "$LOG/slurmctld.log"
	phase tres
	wait_for "gres/gpu TRES in the database" tres_ok ||
		fail_start "$LOG/slurmctld.log" "$LOG/slurmdbd.log"
	trap - INT TERM
	phase up
	msg "up in $((SECONDS - t0))s: $D (source $D/env)"
}

do_status() {
	local row name pf bin p rc=0 any=0
	for row in "${DAEMONS[@]}"; do
		read -r name pf bin <<<"$row"
		[ "$name" = redis ] && [ ! -e "$pf" ] && [ "${QD_REDIS:-1}" = 0 ] && continue
		if p=$(daemon_pid "$name"); then
			echo "$name running pid $p"
			any=1
		else
			echo "$name stopped"
			rc=1
		fi
	done
	[ -r "$D/env" ] && echo "env: $D/env"
	[ $any = 0 ] && rc=3
	return $rc
}

# reconfigure_ctld: scontrol reconfigure. From 24.05 it starts a new
# slurmctld, which writes the pidfile once it is up, while the old one
# still answers: wait for that, so that the pidfile names the slurmctld
# that runs when this returns (a later stop, or a test, reads it).
reconfigure_ctld() {
	local old v major minor
	old=$(pidfile_pid "$RUN/slurmctld.pid")
	scontrol reconfigure >/dev/null 2>&1 || return 1
	v=$(scontrol --version) # "slurm 24.11.5"
	IFS=. read -r major minor _ <<<"${v#* }"
	[ $((major * 100 + minor)) -ge 2405 ] || return 0
	wait_for "the new slurmctld's pidfile" ctld_pid_moved "$old"
}
ctld_pid_moved() {
	local p
	p=$(pidfile_pid "$RUN/slurmctld.pid")
	[ -n "$p" ] && [ "$p" != "$1" ] && alive "$p"
}

do_restart_ctld() {
	need_root
	load_ports
	slurm_env
	# Every slurmctld of this cluster, should a reconfigure have left one
	# the pidfile does not name yet.
	kill_pids 15 $(daemon_pid slurmctld) $(ours_running slurmctld)
	# Without accounting (QD_ACCOUNTING=none) the cluster is a site that
	# never had slurmdbd: no association cache in StateSaveLocation, which
	# slurmctld would read with no database to ask (23.11 gives jobs their
	# cached default account from it; 22.05, 24.11 and 26.05 do not).
	if grep -qx 'AccountingStorageType=accounting_storage/none' "$CONF"; then
		rm -f "$D/state/assoc_mgr_state" "$D/state/assoc_mgr_state.old"
	fi
	start_ctld || exit 1
	# Nodes re-register by themselves only at slurmctld's first ping
	# (about 5 s); a reconfigure makes them re-read slurm.conf and
	# register at once.
	reconfigure_ctld
	wait_for "nodes registered" nodes_up || {
		show_log "$LOG/slurmctld.log"
		exit 1
	}
}

# listening PORT: something listens on TCP PORT
listening() {
	local t
	read_tcp_ports 0A
	for t in "${TCP[@]}"; do
		[ "$t" = "$1 0A" ] && return 0
	done
	return 1
}

# slurmd_registered NODE SINCE: NODE's slurmd listens and registered at or
# after SINCE (seconds)
slurmd_registered() {
	local out port
	port=QD_${1^^}_PORT
	listening "${!port}" || return 1
	out=$(SLURM_TIME_FORMAT=%s scontrol -o show node "$1" 2>/dev/null) &&
		[[ $out =~ SlurmdStartTime=([0-9]+) ]] &&
		[ "${BASH_REMATCH[1]}" -ge "$2" ]
}

# slurmd_pids NODE: every slurmd of this cluster serving NODE, the one its
# pidfile names and any other. From 24.05 the reconfigure that restart-ctld
# ends with makes each slurmd start a new one of itself, which writes the
# pidfile only once the old one has ended: a restart in between read the
# old pid, stopped nothing, and its slurmd could not bind the node's port
# while the new one ran on with the old plugstack.conf (make check, stop
# 52, 26.05: t_usage_fault and t_usage_hostile).
# Not a slurmd's own child: what slurmd forks to start a slurmstepd runs
# its binary until it execs, and killing it would fail a job's step. (A
# reconfigure's new slurmd is the old one's child only until the old one
# ends: stop_slurmd's next round finds it.)
slurmd_pids() {
	local p st exe args seen=" "
	exe_path slurmd
	exe=$EXE
	p=$(daemon_pid "slurmd-$1") && echo "$p" && seen+="$p "
	for p in $(ours_running slurmd); do
		case $seen in *" $p "*) continue ;; esac
		{ read -r st <"/proc/$p/stat"; } 2>/dev/null || continue
		read -r -a st <<<"${st##*) }"
		[ "/proc/${st[1]}/exe" -ef "$exe" ] && continue
		{ mapfile -d '' -t args <"/proc/$p/cmdline"; } 2>/dev/null || continue
		[[ " ${args[*]} " == *" -N $1 "* ]] && echo "$p" && seen+="$p "
	done
}

# stop_slurmd NODE: no slurmd serves NODE. Again while one is found: an old
# slurmd that forked its successor just before it was stopped leaves that
# one running.
stop_slurmd() {
	local round pids
	for round in 1 2 3 4; do
		mapfile -t pids < <(slurmd_pids "$1")
		[ ${#pids[@]} -gt 0 ] || return 0
		[ "$round" -lt 4 ] || break
		kill_pids 15 "${pids[@]}"
	done
	msg "slurmd $1 still runs after 3 stops: ${pids[*]}"
	return 1
}

do_restart_slurmd() { # [NODE...]
	local n since nodes=("$@")
	need_root
	load_ports
	slurm_env
	[ ${#nodes[@]} -gt 0 ] || nodes=(n1 n2)
	for n in "${nodes[@]}"; do
		case $n in n1 | n2) ;; *) msg "no node $n"; exit 2 ;; esac
		stop_slurmd "$n" || exit 1
		rm -f "$RUN/slurmd-$n.pid"
	done
	since=$EPOCHSECONDS
	for n in "${nodes[@]}"; do
		start_slurmd "$n" || exit 1
	done
	for n in "${nodes[@]}"; do
		WATCH_PIDFILE=$RUN/slurmd-$n.pid wait_for "slurmd $n registered" \
			slurmd_registered "$n" "$since" ||
			{ show_log "$LOG/slurmd-$n.log"; exit 1; }
	done
}

do_reconfigure() {
	load_ports
	slurm_env
	reconfigure_ctld || { show_log "$LOG/slurmctld.log"; exit 1; }
	WATCH_PIDFILE=$RUN/slurmctld.pid wait_for "slurmctld" ctld_up ||
		{ show_log "$LOG/slurmctld.log"; exit 1; }
}

# dbd-stop / dbd-start: slurmdbd alone goes away and comes back (same port,
# same database); slurmctld reconnects by itself at its next message to it.
do_dbd_stop() {
	need_root
	load_ports
	stop_daemon slurmdbd 15
	rm -f "$RUN/slurmdbd.pid"
}

do_dbd_start() {
	need_root
	load_ports
	slurm_env
	daemon_pid slurmdbd >/dev/null && return 0
	dstart slurmdbd >>"$LOG/slurmdbd.out" 2>&1 &&
		WATCH_PIDFILE=$RUN/slurmdbd.pid wait_for "slurmdbd" \
			sacctmgr -n show cluster || {
		show_log "$LOG/slurmdbd.out" "$LOG/slurmdbd.log"
		exit 1
	}
}

case "${1:-}" in
start) do_start ;;
stop) need_root; do_stop ;;
status) do_status ;;
restart-ctld) do_restart_ctld ;;
restart-slurmd) shift; do_restart_slurmd "$@" ;;
reconfigure) do_reconfigure ;;
write-conf) need_root; load_ports; write_slurm_conf ;;
redis-stop) need_root; stop_daemon redis 10 ;;
redis-start) need_root; load_ports; start_redis ;;
dbd-stop) do_dbd_stop ;;
dbd-start) do_dbd_start ;;
env) load_ports; cat "$D/env" ;;
free-ports) free_ports "$2" ;;
loopback-quickack)
	need_root
	QA_ROUTES=$3
	case $2 in on) QD_QUICKACK=1 quickack_on ;; off) quickack_off ;; esac
	;;
*)
	sed -n '3,19s/^# \{0,1\}//p' "$0" >&2
	exit 2
	;;
esac
