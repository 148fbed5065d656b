#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The pure cgroup v2 VM's boot files, from a Debian root of the Slurm
# version under test (tests/chroot/chroot.sh): its own kernel, a small
# initrd and an ext4 image of the root. Cached per version: rebuilt only
# when the root's packages or this script's code change (the key file).
#
#   image.sh [VERSION]   prints the image directory once it is up to date
#
#   VERSION  24.11 (default; QD_VM_SLURM): Debian 13's Slurm, the root
#            build/chroot/trixie that the 24.11 suite runs in, its image
#            build/vm/image.
#            25.11: SchedMD's own packages of its release, built from
#            its source (slurm-tree.sh's tarball, slurm-debs.sh: the 25.11
#            suite's, with cgroup/v2), installed in a root of its own,
#            build/chroot/trixie-smd-vm (install-slurm.sh), its image
#            build/vm/image-25.11 (make check-vm-25.11).
#            26.05: Debian testing's (forky) Slurm packages, in a root of
#            its own, build/chroot/forky-deb (build/chroot/forky-smd is
#            the one the suite installs SchedMD's 26.05 packages in, which
#            must not meet Debian's), its image build/vm/image-26.05.
#
# QD_CHROOT_BASE (chroot.sh's) moves the roots, QD_VM_IMAGE_BASE the
# images (build/vm): make check keeps both in /var/cache/qosdeny, outside
# the checkout, for the next run (docs/development.md).
#
# The image holds no test code: the VM mounts the checkout over 9p and runs
# tests/vm/boot.sh from it (the stub /usr/sbin/qd-vm-init below), so the plugin
# and the tests under test are always the checkout's. Must run as root.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
VER=${1:-${QD_VM_SLURM:-24.11}}
msg() { echo "vm-image: $*" >&2; }
# What boot.sh runs besides Slurm: the kernel, an initrd builder, ip for
# the dummy interface, modprobe for 9p.
VM_PKGS="linux-image-amd64 initramfs-tools kmod iproute2 procps"
case $VER in
24.11)
	ROOT=trixie
	OUT=${QD_VM_IMAGE_BASE:-$REPO/build/vm}/image
	;;
25.11)
	ROOT=trixie-smd-vm
	OUT=${QD_VM_IMAGE_BASE:-$REPO/build/vm}/image-25.11
	;;
26.05)
	ROOT=forky-deb
	OUT=${QD_VM_IMAGE_BASE:-$REPO/build/vm}/image-26.05
	;;
*)
	msg "unknown Slurm version '$VER' (24.11, 25.11 or 26.05)"
	exit 2
	;;
esac
CHROOT=${QD_CHROOT_BASE:-$REPO/build/chroot}/$ROOT

# vm_runtime PKGS: only what the VM and the node side's build and unit
# tests need (tests/chroot/suite.sh) besides PKGS: munge, Redis, sshd,
# Criterion, python3 (sshd-lib.sh picks a free port), and the test users.
# Not the controller's database or clang: less to fetch and a smaller
# image.
vm_runtime() {
	bash "$REPO/tests/chroot/chroot.sh" run "$ROOT" env QD_DEPS=build \
		QD_EXTRA_PKGS="$VM_PKGS $1 munge redis-server libcriterion-dev
			openssh-server openssh-client openssl python3" \
		sh tests/cluster/install-deps.sh >&2
	bash "$REPO/tests/chroot/chroot.sh" run "$ROOT" sh -c '
		for u in alice bob charlie; do
			id -u "$u" >/dev/null 2>&1 || useradd -m -s /bin/bash "$u"
		done' >&2
}

bash "$REPO/tests/chroot/chroot.sh" create "$ROOT" >&2
case $VER in
24.11)
	# The 24.11 suite's root: everything make deps installs, and the VM's.
	bash "$REPO/tests/chroot/chroot.sh" run "$ROOT" env \
		QD_EXTRA_PKGS="$VM_PKGS" sh tests/cluster/install-deps.sh >&2
	;;
25.11)
	# Slurm first (SchedMD's packages, their cgroup/v2 plugin among them),
	# so that no Debian Slurm is installed beside it.
	src=$(bash "$REPO/tests/chroot/slurm-tree.sh" 25.11)
	[ -n "$src" ] || {
		msg "no source of Slurm 25.11 (tests/chroot/slurm-tree.sh)"
		exit 1
	}
	sha=$(bash "$REPO/tests/chroot/place-source.sh" "$src" \
		"$REPO/build/$ROOT/slurm-src")
	bash "$REPO/tests/chroot/slurm-debs.sh" 25.11 "$REPO/build/$ROOT/slurm-src" \
		"$sha" "$REPO/build/$ROOT/slurm-debs"
	bash "$REPO/tests/chroot/chroot.sh" run "$ROOT" bash \
		tests/chroot/install-slurm.sh "build/$ROOT/slurm-debs" "$sha" >&2
	vm_runtime ""
	;;
26.05)
	# Debian's Slurm daemons and PAM module.
	vm_runtime "slurmctld slurmd slurm-client libpam-slurm-adopt"
	;;
esac

# This script's comment lines are not part of the key: an edited comment
# does not cost a new image.
key=$({
	cat "$CHROOT/var/lib/dpkg/status"
	# SchedMD's packages: the tarball's sha256 (install-slurm.sh).
	cat "$CHROOT/var/lib/qosdeny-slurm-build.sha256" 2>/dev/null || true
	grep -v '^[[:space:]]*#' "$0"
} | sha256sum | cut -c1-16)
if [ "$(cat "$OUT/key" 2>/dev/null)" = "$key" ] && [ -s "$OUT/root.ext4" ]; then
	echo "$OUT"
	exit 0
fi
msg "building the kernel, initrd and root image (key $key)"
rm -rf "$OUT"
mkdir -p "$OUT"
# mkinitramfs runs in the root: its settings and its initrd in the root's
# /tmp, which the image leaves out.
conf=$CHROOT/tmp/qd-initramfs-conf
rm -rf "$conf" "$CHROOT/tmp/qd-initrd.img"
mkdir -p "$conf/conf.d" "$conf/scripts"

kver=$(basename "$(ls -d "$CHROOT"/lib/modules/*/ | sort -V | tail -n 1)")
cp "$CHROOT/boot/vmlinuz-$kver" "$OUT/vmlinuz"

# ext4 and virtio_blk are modules in Debian's kernel: an initrd with just
# those (and crc32c, ext4's checksums) finds the root disk; 9p is loaded
# from the root afterwards.
cat >"$conf/initramfs.conf" <<EOF
MODULES=list
BUSYBOX=n
COMPRESS=gzip
EOF
printf '%s\n' virtio_blk virtio_pci ext4 crc32c_generic \
	>"$conf/modules"
bash "$REPO/tests/chroot/chroot.sh" run "$ROOT" mkinitramfs \
	-d /tmp/qd-initramfs-conf -o /tmp/qd-initrd.img "$kver" >&2
mv "$CHROOT/tmp/qd-initrd.img" "$OUT/initrd.img"
rm -rf "$conf"

# PID 1 of the VM: mounts the checkout (read-only) and the results
# directory, then runs the checkout's boot.sh. Anything failing before that
# powers the VM off, and the host sees no results.
stub=$OUT/qd-vm-init
cat >"$stub" <<'EOF'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
modprobe 9pnet_virtio && modprobe 9p
mkdir -p /qosdeny /out
o=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o "$o,ro" qdrepo /qosdeny && mount -t 9p -o "$o" qdout /out &&
	exec /bin/bash /qosdeny/tests/vm/boot.sh
echo "qd-vm-init: cannot mount the checkout or the results directory"
echo 1 >/proc/sys/kernel/sysrq
echo o >/proc/sysrq-trigger
EOF

# The chroot's root as it is (about 2 GB, sparse), the stub added. A file
# vanishing under mkfs (a daemon of another chroot run) makes one retry.
size=$(($(du -sm --one-file-system "$CHROOT" | cut -f1) * 13 / 10 + 512))
for try in 1 2; do
	rm -f "$OUT/root.ext4"
	truncate -s "${size}M" "$OUT/root.ext4"
	if mkfs.ext4 -q -F -L qdvm -d "$CHROOT" "$OUT/root.ext4" >&2; then
		break
	fi
	[ "$try" = 2 ] && {
		msg "mkfs.ext4 failed"
		exit 1
	}
done
debugfs -w -R "write $stub /usr/sbin/qd-vm-init" "$OUT/root.ext4" >/dev/null 2>&1
debugfs -w -R "sif /usr/sbin/qd-vm-init mode 0100755" "$OUT/root.ext4" >/dev/null 2>&1
debugfs -R "stat /usr/sbin/qd-vm-init" "$OUT/root.ext4" 2>/dev/null | grep -q 'Mode: *0755' || {
	msg "could not add /usr/sbin/qd-vm-init to the image"
	exit 1
}
echo "$key" >"$OUT/key"
echo "$OUT"
