#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run as a job's task confined by spank_qosdeny.so: tries to widen its own
# device access through its cgroups and prints one line,
#   cgroup=v1 allow_all=EACCES allow_gpus=EACCES parent=EACCES root=EACCES mkdir=EACCES
# each attempt's result (OK when it succeeded). Usage: cgroup-escape.sh v1|v2
mode=$1
if [ "$mode" = v1 ]; then
	mnt=/sys/fs/cgroup/devices
	own=$(sed -n 's/^[0-9]*:devices:\(.*\)/\1/p' /proc/self/cgroup)
else
	mnt=/sys/fs/cgroup/unified
	[ -e "$mnt/cgroup.procs" ] || mnt=/sys/fs/cgroup
	own=$(sed -n 's/^0::\(.*\)/\1/p' /proc/self/cgroup)
fi
try() { # NAME COMMAND...: runs COMMAND, names how it failed
	local err
	if err=$("${@:2}" 2>&1); then
		line+=" $1=OK"
		return
	fi
	case $err in
	*"Permission denied"*) line+=" $1=EACCES" ;;
	*"Operation not permitted"*) line+=" $1=EPERM" ;;
	*"No such file"*) line+=" $1=ENOENT" ;;
	*) line+=" $1=OTHER(${err##*: })" ;;
	esac
}
put() { echo "$1" >"$2"; }
line="cgroup=$mode own=${own:-?}"
if [ "$mode" = v1 ]; then
	try allow_all put 'a *:* rwm' "$mnt$own/devices.allow"
	try allow_gpus put 'c 195:* rwm' "$mnt$own/devices.allow"
fi
try parent put $$ "$mnt$(dirname "$own")/cgroup.procs"
try root put $$ "$mnt/cgroup.procs"
try mkdir mkdir "$mnt$own/escape"
echo "$line"
