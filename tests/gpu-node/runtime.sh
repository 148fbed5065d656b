#!/bin/bash
# Builds the Debian 13 runtime that tests/gpu-node/run.sh carries to a GPU
# node: build/gpu-node/runtime.tar.xz, at most 64 MiB. Slurm 24.11
# (slurmctld, slurmd, client), munge, sshd, libpam-slurm-adopt, Redis and
# the qosdeny package `make deb` builds from this checkout, with the CUDA
# probe (cuda_probe.c) at /usr/local/bin/qd-cuda-probe.
#
#   runtime.sh        on a Debian host with network access, as root
#
# Two Debian 13 roots of its own under build/gpu-node, both made by
# tests/chroot/chroot.sh (QD_CHROOT_BASE) and kept for the next build:
# builder/trixie builds the package (make deb installs debhelper and lintian
# into it, which the suite's build/chroot/trixie must not get) and the
# probe; trixie is the runtime, packages installed with apt and the
# package replaced at each build. The tarball leaves out what a node never
# reads (documentation, man pages, locales, apt's lists and caches).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=$REPO/build/gpu-node
ROOT=$OUT/trixie
LIMIT_MIB=64
msg() { echo "gpu-node runtime: $*" >&2; }

mkdir -p "$OUT"
msg "the qosdeny package for Slurm 24.11 (log: $OUT/deb.log)"
QD_CHROOT_BASE=$OUT/builder bash "$REPO/tests/chroot/make-in.sh" 24.11 \
	B=build/gpu-node/deb deb >"$OUT/deb.log" 2>&1 || {
	tail -n 20 "$OUT/deb.log" >&2
	exit 1
}
deb=$(cd "$REPO" && ls build/gpu-node/deb/deb-pkg/qosdeny_*.deb)
QD_CHROOT_BASE=$OUT/builder bash "$REPO/tests/chroot/chroot.sh" run trixie \
	cc -O2 -Wall -Wextra -Werror -o build/gpu-node/qd-cuda-probe \
	tests/gpu-node/cuda_probe.c

msg "the runtime root $ROOT (log: $OUT/root.log)"
QD_CHROOT_BASE=$OUT bash "$REPO/tests/chroot/chroot.sh" create trixie
# Daemons are not started by the packages' scripts (policy-rc.d, Debian's
# invoke-rc.d(8)): run.sh starts them. alice runs the jobs.
cat >"$ROOT/usr/sbin/policy-rc.d" <<'EOF'
#!/bin/sh
exit 101
EOF
chmod 755 "$ROOT/usr/sbin/policy-rc.d"
QD_CHROOT_BASE=$OUT bash "$REPO/tests/chroot/chroot.sh" run trixie sh -c '
	set -e
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends slurmctld slurmd \
		slurm-client munge openssh-server libpam-slurm-adopt redis-server \
		procps "./$1"
	id -u alice >/dev/null 2>&1 || useradd -m -s /bin/bash alice
	# The package installed is the one just built, even at the same version.
	dpkg -i "./$1" >/dev/null' sh "$deb" >"$OUT/root.log" 2>&1 || {
	tail -n 20 "$OUT/root.log" >&2
	exit 1
}
install -m 755 "$OUT/qd-cuda-probe" "$ROOT/usr/local/bin/qd-cuda-probe"

msg "packing (xz -9)"
tar -C "$ROOT" --one-file-system --numeric-owner -cf - \
	--exclude=./usr/share/doc --exclude=./usr/share/man \
	--exclude=./usr/share/info --exclude=./usr/share/locale \
	--exclude=./usr/share/i18n --exclude=./usr/share/lintian \
	--exclude='./var/lib/apt/lists/*' --exclude='./var/cache/*' \
	--exclude=./.qd-ready . |
	xz -9 -T1 >"$OUT/runtime.tar.xz.new"
size=$(stat -c %s "$OUT/runtime.tar.xz.new")
if [ "$size" -gt $((LIMIT_MIB * 1024 * 1024)) ]; then
	msg "$((size / 1024 / 1024)) MiB, over $LIMIT_MIB MiB"
	exit 1
fi
mv "$OUT/runtime.tar.xz.new" "$OUT/runtime.tar.xz"
msg "$OUT/runtime.tar.xz: $((size / 1024)) KiB"
