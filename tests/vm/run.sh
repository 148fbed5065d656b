#!/bin/bash
# The pure cgroup v2 suite: boots Debian 13's kernel in qemu on the image of
# the 24.11 chroot (image.sh), with Slurm 24.11 on cgroup/v2 inside, and runs
# tests/vm/t_*.sh there against this checkout's spank_qosdeny.so.
#
#   run.sh [t_NAME.sh...]     all t_*.sh when none is named; a test kept
#                             elsewhere in the checkout by its path there
#                             (tests/gpu-node/in-vm.sh)
#
# Environment:
#   QD_VM_PLUGIN   the plugin, relative to the checkout (default the 24.11
#                  suite's build, build/trixie/spank_qosdeny.so on Debian 12)
#   QD_VM_TIMEOUT  seconds the whole VM may take (default 1200)
#   QD_VM_ACCEL    qemu's accelerator (default tcg)
#   QD_RESULTS     where the "vm-v2 t_NAME passed failed" lines go
#   QD_VM_WORK     the run's console and out/ folder (default build/vm/run);
#                  two VMs at once need two
#
# A VM that does not come up, or stops before every test has reported, is
# one failed count ("vm-v2 vm-run 0 1"), with the end of its console. Must
# run as root (qemu's 9p shares, the image).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
RESULTS=${QD_RESULTS:-$REPO/build/vm/results}
PLUGIN=${QD_VM_PLUGIN:-$(bash "$REPO/tests/chroot/make-in.sh" --build 24.11)/spank_qosdeny.so}
LIMIT=${QD_VM_TIMEOUT:-1200}
WORK=${QD_VM_WORK:-$REPO/build/vm/run}
mkdir -p "$RESULTS"
fail_run() {
	echo "vm-v2: $*" >&2
	echo "vm-v2 vm-run 0 1" >>"$RESULTS/counts"
	exit 1
}

tests=()
for t in "$@"; do
	# A test outside tests/vm is named by its path in the checkout.
	if [[ $t == */* && $t != tests/vm/* && -e $REPO/$t ]]; then
		tests+=("${t%.sh}")
	else
		tests+=("$(basename "$t" .sh)")
	fi
done
[ ${#tests[@]} -gt 0 ] || for t in "$HERE"/t_*.sh; do tests+=("$(basename "$t" .sh)"); done
[ -r "$REPO/$PLUGIN" ] || fail_run "no plugin at $PLUGIN (build it for 24.11 first)"

if ! command -v qemu-system-x86_64 >/dev/null; then
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends qemu-system-x86; } \
		>/dev/null 2>&1 || fail_run "cannot install qemu-system-x86"
fi
img=$(bash "$HERE/image.sh") || fail_run "the VM image could not be built"

rm -rf "$WORK"
mkdir -p "$WORK/out"
# TCG: CI has no /dev/kvm, and a nested one can stop the guest with a
# "KVM internal error" (seen on the development host). QD_VM_ACCEL=kvm
# where a working one exists.
accel="-accel ${QD_VM_ACCEL:-tcg}"
start=$(date +%s)
# The kernel passes its unknown name=value words to PID 1 as environment.
# shellcheck disable=SC2086
timeout -k 10 "$LIMIT" qemu-system-x86_64 $accel -m 2G -smp 2 \
	-nographic -no-reboot -snapshot \
	-kernel "$img/vmlinuz" -initrd "$img/initrd.img" \
	-append "root=/dev/vda rw console=ttyS0 panic=1 quiet init=/usr/sbin/qd-vm-init qd_plugin=$PLUGIN qd_tests=$(
		IFS=,
		echo "${tests[*]}"
	)" \
	-drive "file=$img/root.ext4,format=raw,if=virtio" \
	-virtfs "local,path=$REPO,mount_tag=qdrepo,security_model=none,readonly=on" \
	-virtfs "local,path=$WORK/out,mount_tag=qdout,security_model=none" \
	-nic none </dev/null >"$WORK/console.log" 2>&1
rc=$?
echo "# vm-v2: the VM ran $(($(date +%s) - start)) s (qemu rc $rc, $accel)"
# The test's own output, for the log of make check.
cat "$WORK/out/log" 2>/dev/null
[ -s "$WORK/out/counts" ] && cat "$WORK/out/counts" >>"$RESULTS/counts"
if [ ! -e "$WORK/out/done" ]; then
	tail -n 40 "$WORK/console.log" | sed 's/^/# console: /'
	fail_run "the VM stopped before its tests finished (console: $WORK/console.log)"
fi
! awk '$4 > 0 { f = 1 } END { exit !f }' "$WORK/out/counts"
