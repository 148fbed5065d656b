#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The real-GPU check (tests/gpu-node/README.md), on any Linux host with a
# pure cgroup v2 hierarchy, as root, without network: unpacks one Slurm
# version's runtime (runtime.sh) into a temporary directory, copies the
# host's NVIDIA userspace into it (nvidia-smi, libcuda, libnvidia-ml), and
# runs checks.sh in a chroot there with the host's /dev, /proc and /sys
# (cgroup2 included) and this checkout at /qosdeny.
#
#   run.sh [VERSION | RUNTIME.tar.xz]
#                  VERSION 24.11 (default) or 26.05: its runtime,
#                  build/gpu-node/runtime-VERSION.tar.xz
#
# Environment:
#   QD_RESULTS     where the "gpu-node-VERSION checks passed failed" line
#                  goes (default build/gpu-node/results), and the launch
#                  benchmark's launch-VERSION.txt beside it
#   QD_GPU_TMP     where the runtime is unpacked (default /var/tmp)
#   QD_GPU_LAUNCH  set: the launch benchmark too (launch.sh), opt-in
#   QD_GPU_ROUNDS, QD_GPU_JOBS   its rounds and jobs per setting and round
#
# Without NVIDIA's libcuda on the host the CUDA checks are skipped, saying
# why; without /dev/nvidia* it makes two fake GPUs as tests/vm/boot.sh does
# (c 195 N: an allowed open gives ENXIO, a denied one EPERM) and removes
# them at the end. The mounts live in a mount namespace of their own, gone
# with it; the temporary directory is removed.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
case ${1:-24.11} in
*.tar.xz)
	TARBALL=$1
	# runtime-26.05.tar.xz: that version; another name says it once
	# unpacked.
	VER=$(basename "$TARBALL" .tar.xz)
	VER=${VER#runtime-}
	[[ $VER =~ ^[0-9]+\.[0-9]+$ ]] || VER=""
	;;
*)
	VER=${1:-24.11}
	TARBALL=$REPO/build/gpu-node/runtime-$VER.tar.xz
	;;
esac
RESULTS=${QD_RESULTS:-$REPO/build/gpu-node/results}
LIBDIR=usr/lib/x86_64-linux-gnu
msg() { echo "gpu-node: $*" >&2; }
fail_run() {
	msg "$*"
	mkdir -p "$RESULTS"
	echo "gpu-node${VER:+-$VER} run 0 1" >>"$RESULTS/counts"
	exit 1
}

[ "$(id -u)" = 0 ] || fail_run "must run as root"
# Slurm's cgroup/v2 needs the unified hierarchy alone at /sys/fs/cgroup.
[ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] ||
	fail_run "/sys/fs/cgroup is not cgroup2 alone (a hybrid or v1 host); run it on a pure cgroup v2 node, or in the VM (README.md)"
[ -r "$TARBALL" ] || fail_run "no runtime at $TARBALL (make check-gpu-node SLURM=${VER:-24.11} builds it)"
# Its slurmd would share the node's cgroups with a Slurm already there.
! pgrep -x 'slurmd|slurmctld' >/dev/null ||
	fail_run "a Slurm runs on this host already; run it on a node without one"

ROOT=$(mktemp -d "${QD_GPU_TMP:-/var/tmp}/qd-gpu-node.XXXXXX") || fail_run "no temporary directory"
made_devs=()
# The cgroups Slurm makes for its daemons (cgroup/v2 with IgnoreSystemd=yes:
# system.slice/slurmstepd.scope, NODE_slurmstepd.scope in Debian's build
# with multiple slurmd, slurmd moved into its slurmd child: Slurm 24.11's
# src/plugins/cgroup/v2/cgroup_v2.c), removed at the end where this run
# made them; the checks see to the jobs' own.
made_cgs=()
for d in /sys/fs/cgroup/system.slice{,/slurmstepd.scope,/"$(hostname -s)"_slurmstepd.scope}; do
	[ -e "$d" ] || made_cgs=("$d" "${made_cgs[@]}")
done
cleanup() {
	local d
	[ ${#made_devs[@]} -eq 0 ] || rm -f "${made_devs[@]}"
	for d in "${made_cgs[@]}"; do
		[ ! -d "$d" ] || find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	rm -rf --one-file-system "$ROOT"
}
trap cleanup EXIT
start=$(date +%s)
tar -C "$ROOT" -xJf "$TARBALL" || fail_run "cannot unpack $TARBALL"
msg "runtime unpacked in $(($(date +%s) - start)) s into $ROOT"
# The version its Slurm is, where the tarball's name did not say.
[ -n "$VER" ] || VER=$(chroot "$ROOT" slurmd -V 2>/dev/null |
	sed -n 's/^slurm[^ ]* \([0-9]*\.[0-9]*\).*/\1/p')
VER=${VER:-unknown}

# host_lib SONAME: the host's library of that name (ldconfig's cache, then
# LD_LIBRARY_PATH, the usual directories of Debian, Ubuntu and RHEL, and
# /usr/local/nvidia/lib64, where GPU container images mount the driver).
host_lib() {
	local p d
	p=$(ldconfig -p 2>/dev/null | awk -v n="$1" '$1 == n && /x86-64/ { print $NF; exit }')
	[ -n "$p" ] && [ -e "$p" ] && echo "$p" && return
	local IFS=:
	for d in ${LD_LIBRARY_PATH:-} /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /lib64 \
		/usr/local/nvidia/lib64; do
		[ -n "$d" ] && [ -e "$d/$1" ] && echo "$d/$1" && return
	done
}

# The driver's userspace, as the host has it: libcuda loads the JIT and
# GPU compiler libraries itself where the driver has them.
no_cuda=""
lib=$(host_lib libcuda.so.1)
if [ -z "$lib" ]; then
	no_cuda="no libcuda.so.1 on this host (no NVIDIA driver)"
else
	for so in libcuda.so.1 libnvidia-ml.so.1 libnvidia-ptxjitcompiler.so.1 \
		libnvidia-gpucomp.so libnvidia-nvvm.so.4; do
		p=$(host_lib "$so")
		[ -z "$p" ] || cp -L "$p" "$ROOT/$LIBDIR/$so"
	done
	# libnvidia-gpucomp is loaded by its full version's name.
	for p in "$(dirname "$lib")"/libnvidia-gpucomp.so.*; do
		[ -e "$p" ] && cp -L "$p" "$ROOT/$LIBDIR/"
	done
	if smi=$(command -v nvidia-smi || command -v /usr/local/nvidia/bin/nvidia-smi); then
		cp -L "$smi" "$ROOT/usr/bin/nvidia-smi"
	else
		no_cuda="no nvidia-smi on this host"
	fi
	chroot "$ROOT" ldconfig
	# CUDA needs /dev/nvidia-uvm, which libcuda has the driver's setuid
	# nvidia-modprobe make at the first CUDA program; the chroot has none.
	[ -e /dev/nvidia-uvm ] || nvidia-modprobe -u -c=0 2>/dev/null ||
		msg "no /dev/nvidia-uvm, and nvidia-modprobe could not make it"
	msg "copied $lib and nvidia-smi ($("$smi" --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1))"
fi
if ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
	msg "no /dev/nvidia*: two fake GPUs (c 195 0-1) and nvidiactl"
	for m in 0 1 255; do
		d=/dev/nvidia$m
		[ "$m" = 255 ] && d=/dev/nvidiactl
		[ -e "$d" ] && continue
		mknod -m 666 "$d" c 195 "$m" && made_devs+=("$d")
	done
fi

mkdir -p "$ROOT/qosdeny" "$ROOT/out" "$RESULTS"
# Mounted only in this namespace: proc, sys (cgroup2 with it) and dev as
# the host has them, the checkout read-only.
unshare --mount --propagation private bash -c '
	set -e
	root=$1
	mount --rbind /proc "$root/proc"
	mount --rbind /sys "$root/sys"
	mount --rbind /dev "$root/dev"
	mount --bind -o ro "$2" "$root/qosdeny"
	mount -t tmpfs tmpfs "$root/run"
	mount -t tmpfs tmpfs "$root/tmp"
	chroot "$root" /usr/bin/env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 QD_RESULTS=/out QD_SUITE="gpu-node-$4" \
		QD_GPU_NO_CUDA="$3" QD_GPU_LAUNCH="${QD_GPU_LAUNCH:-}" \
		QD_GPU_ROUNDS="${QD_GPU_ROUNDS:-}" QD_GPU_JOBS="${QD_GPU_JOBS:-}" \
		bash /qosdeny/tests/gpu-node/checks.sh
' bash "$ROOT" "$REPO" "$no_cuda" "$VER"
rc=$?
[ -s "$ROOT/out/counts" ] && cat "$ROOT/out/counts" >>"$RESULTS/counts"
[ -s "$ROOT/out/launch.txt" ] && cp "$ROOT/out/launch.txt" "$RESULTS/launch-$VER.txt"
mkdir -p "$RESULTS/logs"
cp "$ROOT"/var/lib/qd/log/*.log "$RESULTS/logs/" 2>/dev/null
[ -s "$ROOT/out/counts" ] || fail_run "the checks stopped before their counts (rc $rc)"
msg "ran $(($(date +%s) - start)) s in all"
exit $rc
