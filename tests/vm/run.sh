#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The pure cgroup v2 suite: boots a Debian kernel in qemu on the image of a
# Debian root with the Slurm version under test (image.sh), Slurm on
# cgroup/v2 inside, and runs tests/vm/t_*.sh there against this checkout's
# spank_qosdeny.so.
#
#   run.sh [t_NAME.sh[@jobidpaths]...]
#                 all t_*.sh when none is named; a test kept elsewhere in
#                 the checkout by its path there (tests/gpu-node/in-vm.sh).
#                 @jobidpaths (26.05 only): that test again with
#                 CgroupJobIdPaths=yes in cgroup.conf (Slurm names the
#                 job's cgroup job_N, not by its SLUID), counted as
#                 "vm-v2-jobidpaths t_NAME"
#
# Environment:
#   QD_VM_SLURM    24.11 (default: Debian 13's root build/chroot/trixie),
#                  25.11 (SchedMD's packages built from its source,
#                  build/chroot/trixie-smd-vm) or 26.05 (Debian testing's
#                  packages, build/chroot/forky-deb)
#   QD_VM_PLUGIN   the plugin, relative to the checkout (default that
#                  version's build: build/trixie/spank_qosdeny.so on Debian
#                  12, build/forky-deb/spank_qosdeny.so)
#   QD_VM_TIMEOUT  seconds one boot may take (default 1200)
#   QD_VM_ACCEL    qemu's accelerator (default tcg,thread=single)
#   QD_RESULTS     where the "vm-v2 t_NAME passed failed" lines go
#   QD_VM_WORK     the run's console and out/ folder (default build/vm/run,
#                  build/vm/run-26.05); two VMs at once need two
#   QD_VM_IMAGE    an image image.sh built, used as it is (make check builds
#                  24.11's before that root's suite changes its packages,
#                  and boots it while that suite still runs)
#
# A boot whose kernel oopsed or panicked is discarded, its results with it,
# and the VM booted again, twice at most. A VM that does not come up, or
# stops before every test has reported, is one failed count ("vm-v2 vm-run
# 0 1"), with the end of its console. Must run as root (qemu's 9p shares,
# the image).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
VER=${QD_VM_SLURM:-24.11}
case $VER in
24.11)
	PLUGIN=${QD_VM_PLUGIN:-$(bash "$REPO/tests/chroot/make-in.sh" --build 24.11)/spank_qosdeny.so}
	WORK=${QD_VM_WORK:-$REPO/build/vm/run}
	RESULTS=${QD_RESULTS:-$REPO/build/vm/results}
	;;
25.11)
	PLUGIN=${QD_VM_PLUGIN:-build/trixie-smd-vm/spank_qosdeny.so}
	WORK=${QD_VM_WORK:-$REPO/build/vm/run-25.11}
	RESULTS=${QD_RESULTS:-$REPO/build/vm/results-25.11}
	;;
26.05)
	PLUGIN=${QD_VM_PLUGIN:-build/forky-deb/spank_qosdeny.so}
	WORK=${QD_VM_WORK:-$REPO/build/vm/run-26.05}
	RESULTS=${QD_RESULTS:-$REPO/build/vm/results-26.05}
	;;
*)
	echo "vm-v2: unknown Slurm version '$VER' (QD_VM_SLURM=24.11, 25.11 or 26.05)" >&2
	exit 2
	;;
esac
LIMIT=${QD_VM_TIMEOUT:-1200}
mkdir -p "$RESULTS"
fail_run() {
	echo "vm-v2 ($VER): $*" >&2
	echo "vm-v2 vm-run 0 1" >>"$RESULTS/counts"
	exit 1
}

tests=()
for t in "$@"; do
	opt=""
	[[ $t == *@* ]] && opt=@${t##*@} t=${t%@*}
	# A test outside tests/vm is named by its path in the checkout.
	if [[ $t == */* && $t != tests/vm/* && -e $REPO/$t ]]; then
		tests+=("${t%.sh}$opt")
	else
		tests+=("$(basename "$t" .sh)$opt")
	fi
done
[ ${#tests[@]} -gt 0 ] || for t in "$HERE"/t_*.sh; do tests+=("$(basename "$t" .sh)"); done
[ -r "$REPO/$PLUGIN" ] || fail_run "no plugin at $PLUGIN (build it for $VER first)"

if ! command -v qemu-system-x86_64 >/dev/null; then
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends qemu-system-x86; } \
		>/dev/null 2>&1 || fail_run "cannot install qemu-system-x86"
fi
img=${QD_VM_IMAGE:-}
[ -n "$img" ] || img=$(bash "$HERE/image.sh" "$VER") || fail_run "the VM image could not be built"

# TCG, not KVM: CI has no /dev/kvm, and a nested one can stop the guest
# with a "KVM internal error" (seen on the development host). QD_VM_ACCEL=kvm
# where a working one exists. One host thread for both vCPUs: under
# qemu's multi-threaded TCG the forky root's kernel (7.2 and 6.12 alike)
# oopsed in about one boot of six (`Oops: int3` in kernel text, `Fatal
# exception in interrupt`), never yet with thread=single, which is no
# slower on 2 cores (24.11, three tests: 120 s against 150 s).
accel="-accel ${QD_VM_ACCEL:-tcg,thread=single}"
# What the kernel prints when it oopses or panics; oops=panic below makes
# any oops end the boot at once rather than leave a test hanging. The panic
# of PID 1 exiting (boot.sh's poweroff not taking) is not one.
OOPS='Kernel panic|Oops:|Fatal exception'

# boot: one boot of the VM running every test, its console and results in
# $WORK.
boot() {
	rm -rf "$WORK/out" "$WORK/console.log"
	mkdir -p "$WORK/out"
	# The kernel passes its unknown name=value words to PID 1 as environment.
	# shellcheck disable=SC2086
	timeout -k 10 "$LIMIT" qemu-system-x86_64 $accel -m 2G -smp 2 \
		-nographic -no-reboot -snapshot \
		-kernel "$img/vmlinuz" -initrd "$img/initrd.img" \
		-append "root=/dev/vda rw console=ttyS0 panic=1 oops=panic quiet init=/usr/sbin/qd-vm-init qd_slurm=$VER qd_plugin=$PLUGIN qd_tests=$(
			IFS=,
			echo "${tests[*]}"
		)" \
		-drive "file=$img/root.ext4,format=raw,if=virtio" \
		-virtfs "local,path=$REPO,mount_tag=qdrepo,security_model=none,readonly=on" \
		-virtfs "local,path=$WORK/out,mount_tag=qdout,security_model=none" \
		-nic none </dev/null >"$WORK/console.log" 2>&1
}
oopsed() {
	grep -E "$OOPS" "$WORK/console.log" | grep -qv 'Attempted to kill init'
}

rm -rf "$WORK"
mkdir -p "$WORK"
start=$(date +%s)
for try in 1 2 3; do
	t0=$(date +%s)
	boot
	rc=$?
	echo "# vm-v2 ($VER): boot $try ran $(($(date +%s) - t0)) s (qemu rc $rc, $accel)"
	oopsed || break
	# Not qosdeny's nor Slurm's: the kernel under TCG. What this boot's
	# tests counted is dropped; its console is kept beside.
	cp "$WORK/console.log" "$WORK/console.oops-$try.log"
	grep -E -B 2 -A 12 "$OOPS" "$WORK/console.log" | head -n 40 |
		sed "s/^/# boot $try oopsed: /"
	[ "$try" = 3 ] && {
		tail -n 40 "$WORK/console.log" | sed 's/^/# console: /'
		fail_run "the kernel oopsed or panicked in 3 boots (consoles: $WORK/console.oops-*.log)"
	}
	echo "# vm-v2 ($VER): the kernel oopsed; its results discarded, booting again"
done
echo "# vm-v2 ($VER): the VM ran $(($(date +%s) - start)) s in all"
# The test's own output, for the log of make check.
cat "$WORK/out/log" 2>/dev/null
[ -s "$WORK/out/counts" ] && cat "$WORK/out/counts" >>"$RESULTS/counts"
if [ ! -e "$WORK/out/done" ]; then
	tail -n 40 "$WORK/console.log" | sed 's/^/# console: /'
	fail_run "the VM stopped before its tests finished (console: $WORK/console.log)"
fi
! awk '$4 > 0 { f = 1 } END { exit !f }' "$WORK/out/counts"
