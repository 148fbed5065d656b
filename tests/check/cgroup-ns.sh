#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs a command in a cgroup namespace of its own, for make check's lanes
# (tests/check/parallel.sh): two Slurm versions' clusters side by side
# would otherwise share the host's cgroup tree, where Slurm's cgroup v1
# paths (slurm_n1/uid_N/job_N) and a test's look at the whole tree
# (t_adopt.sh: no qosdeny_*_extern_* cgroup left) meet the other's.
#
#   cgroup-ns.sh NAME CMD...
#
# CMD runs in the cgroup NAME, made below this process's own cgroup in
# every hierarchy, as the root of a new cgroup namespace, in a private
# mount namespace where /sys/fs/cgroup is mounted afresh from there: CMD,
# and a chroot it enters (its /sys a bind of this one), see that cgroup as
# the root of each hierarchy. NAME and what is left below it are removed
# when CMD ends, its CPU time first added to QD_CGROUP_CPU_FILE, if set, as
# "NAME SECONDS". Exits with CMD's status. Root only.
set -u
msg() { echo "cgroup-ns: $*" >&2; }

# The cgroup hierarchies mounted under /sys/fs/cgroup: "MOUNTPOINT FSTYPE
# OPTIONS" per line (OPTIONS the superblock's, less rw: "cpu",
# "name=systemd"; "-" for none).
cgroup_mounts() {
	awk '{ for (i = 7; $i != "-"; i++); fs = $(i + 1)
		if (fs != "cgroup" && fs != "cgroup2") next
		if (index($5, "/sys/fs/cgroup/") != 1) next
		o = $(i + 3); sub(/^rw,?/, "", o); print $5, fs, (o == "" ? "-" : o) }' \
		/proc/self/mountinfo
}

# This process's cgroup in the v1 hierarchy with OPTIONS (its first word:
# a controller or name=), or in the v2 one ("-").
own_cgroup() {
	local first=${1%%,*} id ctl path
	while IFS=: read -r id ctl path; do
		if [ "$1" = - ]; then
			[ "$id" = 0 ] && { echo "$path"; return; }
			continue
		fi
		case ",$ctl," in *",$first,"*) echo "$path"; return ;; esac
	done </proc/self/cgroup
}

# cgroup_dirs NAME: NAME's directory in each hierarchy.
cgroup_dirs() {
	local mnt fs opts
	while read -r mnt fs opts; do
		[ "$fs" = cgroup2 ] && opts=-
		echo "$mnt$(own_cgroup "$opts")/$1" | sed 's|//*|/|g'
	done < <(cgroup_mounts)
}

# join NAME: this shell into NAME in every hierarchy (made; a v1 cpuset's
# CPUs and memory nodes copied from its parent, as attaching needs them).
join() {
	local d
	while read -r d; do
		mkdir -p "$d" || return 1
		if [ -e "$d/cpuset.cpus" ] && [ -z "$(cat "$d/cpuset.cpus")" ]; then
			cat "$d/../cpuset.cpus" >"$d/cpuset.cpus" || return 1
			cat "$d/../cpuset.mems" >"$d/cpuset.mems" || return 1
		fi
		echo "$BASHPID" >"$d/cgroup.procs" || return 1
	done < <(cgroup_dirs "$1")
}

# cpu_seconds NAME: the CPU time NAME's processes used, in seconds (the
# v1 cpuacct hierarchy's count, else v2's cpu.stat), or nothing.
cpu_seconds() {
	local d
	while read -r d; do
		if [ -r "$d/cpuacct.usage" ]; then
			awk '{ printf "%d\n", $1 / 1e9 }' "$d/cpuacct.usage"
			return
		fi
		if grep -qs '^usage_usec ' "$d/cpu.stat"; then
			awk '$1 == "usage_usec" { printf "%d\n", $2 / 1e6 }' "$d/cpu.stat"
			return
		fi
	done < <(cgroup_dirs "$1")
}

# remove NAME: NAME and what is below it, deepest first.
remove() {
	local d
	while read -r d; do
		[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
		[ -d "$d" ] && msg "$d left behind: processes still in it"
	done < <(cgroup_dirs "$1")
	return 0
}

# Inside the new namespaces: the hierarchies mounted again over the
# inherited ones, each one's root now the namespace's cgroup.
remount() {
	local mnt fs opts
	mount --make-rprivate /
	# Away first, so that no reader of mountinfo finds the old ones.
	umount -R /sys/fs/cgroup || return 1
	mount -t tmpfs -o mode=755 cgroup_root /sys/fs/cgroup
	while read -r mnt fs opts; do
		mkdir -p "$mnt"
		if [ "$fs" = cgroup2 ]; then
			mount -t cgroup2 cgroup2 "$mnt"
		else
			case $opts in name=*) opts=none,$opts ;; esac
			mount -t cgroup -o "$opts" cgroup "$mnt"
		fi || return 1
	done <<<"$MOUNTS"
}

if [ "${1:-}" = __inside ]; then
	shift
	remount || { msg "cannot mount the cgroup hierarchies again"; exit 1; }
	exec "$@"
fi

[ $# -ge 2 ] || { echo "usage: cgroup-ns.sh NAME CMD..." >&2; exit 2; }
[ "$(id -u)" = 0 ] || { msg "must run as root"; exit 2; }
name=$1
shift
MOUNTS=$(cgroup_mounts)
export MOUNTS
# Stopped (make check's lanes are, as a group), the cgroup goes too.
trap 'remove "$name"; exit 143' TERM INT
# What a run stopped before its end left, first.
remove "$name" 2>/dev/null
rc=0
(
	join "$name" || { msg "cannot make or join cgroup $name"; exit 1; }
	exec unshare --cgroup --mount bash "$0" __inside "$@"
) 0<&0 &
wait $! || rc=$?
# What the command cost the machine (make check's table of parts).
if [ -n "${QD_CGROUP_CPU_FILE:-}" ]; then
	echo "$name $(cpu_seconds "$name")" >>"$QD_CGROUP_CPU_FILE"
fi
remove "$name"
exit $rc
