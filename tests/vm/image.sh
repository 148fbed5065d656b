#!/bin/bash
# The pure cgroup v2 VM's boot files, from the Debian 13 chroot that runs the
# 24.11 suite (tests/chroot/chroot.sh): Debian's kernel, a small initrd and
# an ext4 image of the chroot's root. Cached in build/vm/image: rebuilt only
# when the chroot's packages or this script change (the key file).
#
#   image.sh        prints the image directory once it is up to date
#
# The image holds no test code: the VM mounts the checkout over 9p and runs
# tests/vm/boot.sh from it (the stub /usr/sbin/qd-vm-init below), so the plugin
# and the tests under test are always the checkout's. Must run as root.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CHROOT=$REPO/build/chroot/trixie
OUT=$REPO/build/vm/image
msg() { echo "vm-image: $*" >&2; }

bash "$REPO/tests/chroot/chroot.sh" create trixie >&2
# The kernel, an initrd builder and what boot.sh runs besides Slurm (ip for
# the dummy interface, modprobe for 9p), in the chroot.
bash "$REPO/tests/chroot/chroot.sh" run trixie env \
	QD_EXTRA_PKGS="linux-image-amd64 initramfs-tools kmod iproute2 procps" \
	sh tests/cluster/install-deps.sh >&2

key=$(cat "$CHROOT/var/lib/dpkg/status" "$0" | sha256sum | cut -c1-16)
if [ "$(cat "$OUT/key" 2>/dev/null)" = "$key" ] && [ -s "$OUT/root.ext4" ]; then
	echo "$OUT"
	exit 0
fi
msg "building the kernel, initrd and root image (key $key)"
rm -rf "$OUT"
mkdir -p "$OUT/initramfs-conf/conf.d" "$OUT/initramfs-conf/scripts"

kver=$(basename "$(ls -d "$CHROOT"/lib/modules/*/ | sort -V | tail -n 1)")
cp "$CHROOT/boot/vmlinuz-$kver" "$OUT/vmlinuz"

# ext4 and virtio_blk are modules in Debian's kernel: an initrd with just
# those (and crc32c, ext4's checksums) finds the root disk; 9p is loaded
# from the root afterwards.
cat >"$OUT/initramfs-conf/initramfs.conf" <<EOF
MODULES=list
BUSYBOX=n
COMPRESS=gzip
EOF
printf '%s\n' virtio_blk virtio_pci ext4 crc32c_generic \
	>"$OUT/initramfs-conf/modules"
bash "$REPO/tests/chroot/chroot.sh" run trixie mkinitramfs \
	-d /qosdeny/build/vm/image/initramfs-conf \
	-o /qosdeny/build/vm/image/initrd.img "$kver" >&2

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
