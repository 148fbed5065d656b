#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the Debian runtime that tests/gpu-node/run.sh carries to a GPU
# node, one per Slurm version, each at most 64 MiB: Slurm (slurmctld,
# slurmd, client), munge, sshd, libpam-slurm-adopt, Redis and this
# checkout's node-side qosdeny, with the CUDA probe (cuda_probe.c) at
# /usr/local/bin/qd-cuda-probe and the launch benchmark's do-nothing plugin
# (tests/bench/spank_hooks_only.c) at
# /usr/local/lib/qd-bench/spank_hooks_only.so.
#
#   runtime.sh [VERSION]   on a Debian host with network access, as root
#
#   24.11 (default)  Debian 13 (trixie), build/gpu-node/runtime-24.11.tar.xz:
#                    the qosdeny package `make deb` builds, installed with
#                    apt
#   26.05            Debian testing (forky), build/gpu-node/runtime-26.05.tar.xz:
#                    spank_qosdeny.so, pam_qosdeny.so and the qosdeny tool
#                    built against Debian's libslurm-dev 26.05 and put at
#                    the package's paths. No package: make deb needs
#                    Slurm's source package, which Debian's mirror does not
#                    serve for testing, and so do job_submit_qosdeny.so and
#                    site_factor_qosdeny.so (Slurm's internal headers),
#                    which a node's checks never load.
#
# Two Debian roots per version under build/gpu-node, both made by
# tests/chroot/chroot.sh (QD_CHROOT_BASE) and kept for the next build:
# builder/RELEASE builds qosdeny (make deb installs debhelper and lintian
# into it, which the suite's own chroots must not get) and the probe;
# RELEASE is the runtime, packages installed with apt and qosdeny replaced
# at each build. The tarball leaves out what a node never reads
# (documentation, man pages, locales, apt's lists and caches).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
VER=${1:-24.11}
OUT=$REPO/build/gpu-node
LIMIT_MIB=64
LIBDIR=usr/lib/x86_64-linux-gnu
msg() { echo "gpu-node runtime $VER: $*" >&2; }
case $VER in
24.11) REL=trixie ;;
26.05) REL=forky ;;
*)
	echo "gpu-node runtime: unknown Slurm version '$VER' (24.11 or 26.05)" >&2
	exit 2
	;;
esac
ROOT=$OUT/$REL
TARBALL=$OUT/runtime-$VER.tar.xz
builder() { QD_CHROOT_BASE=$OUT/builder bash "$REPO/tests/chroot/chroot.sh" "$@"; }
runtime() { QD_CHROOT_BASE=$OUT bash "$REPO/tests/chroot/chroot.sh" "$@"; }
# logged LOG CMD...: CMD's output to LOG, its end shown where it fails.
logged() {
	local log=$1
	shift
	"$@" >"$log" 2>&1 || {
		tail -n 20 "$log" >&2
		msg "failed (log: $log)"
		exit 1
	}
}
start=$(date +%s)
mkdir -p "$OUT"

# The node's packages from Debian; the runtime libraries qosdeny's own
# binaries need, where no package of ours brings them, are added below.
PKGS="slurmctld slurmd slurm-client munge openssh-server libpam-slurm-adopt
	redis-server procps"
extra=""
B=build/gpu-node/$REL-build
if [ "$VER" = 24.11 ]; then
	msg "the qosdeny package (log: $OUT/deb.log)"
	logged "$OUT/deb.log" env QD_CHROOT_BASE="$OUT/builder" \
		bash "$REPO/tests/chroot/make-in.sh" 24.11 B=build/gpu-node/deb deb
	deb=$(cd "$REPO" && ls build/gpu-node/deb/deb-pkg/qosdeny_*.deb)
	extra="./$deb"
else
	# The pieces a node runs, built as make builds them (make install
	# would also build the controller's plugins, which need Slurm's source).
	msg "spank_qosdeny.so, pam_qosdeny.so, qosdeny (log: $OUT/$REL-build.log)"
	builder create "$REL"
	# Afresh, as make deb builds from a copy: nothing of an earlier
	# tree's build in the runtime.
	rm -rf "${REPO:?}/$B"
	logged "$OUT/$REL-build.log" builder run "$REL" sh -c '
		set -e
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends build-essential \
			libslurm-dev libhiredis-dev libssl-dev libpam0g-dev
		make B="$1" "$1/spank_qosdeny.so" "$1/pam_qosdeny.so"
		# The tool is not what these checks run: the node goes on
		# without it where it does not build.
		make B="$1" "$1/qosdeny" || echo "gpu-node runtime: no qosdeny tool"' \
		sh "$B"
	# The packages of the shared libraries they load, the builder's own.
	extra=$(builder run "$REL" sh -c '
		for f in "$@"; do [ ! -e "$f" ] || ldd "$f"; done |
			awk "/=> \\// { print \$3 }" | sort -u | xargs -r realpath |
			xargs -r dpkg -S 2>/dev/null | cut -d: -f1 | sort -u' \
		sh "$B/spank_qosdeny.so" "$B/pam_qosdeny.so" "$B/qosdeny" | tr '\n' ' ')
fi
logged "$OUT/probe.log" builder run "$REL" cc -O2 -Wall -Wextra -Werror \
	-o "build/gpu-node/qd-cuda-probe-$VER" tests/gpu-node/cuda_probe.c
# The launch benchmark's do-nothing plugin (tests/gpu-node/launch.sh).
logged "$OUT/hooks.log" builder run "$REL" cc -O2 -Wall -Wextra -Werror \
	-shared -fPIC -o "build/gpu-node/spank_hooks_only-$VER.so" \
	tests/bench/spank_hooks_only.c

msg "the runtime root $ROOT (log: $OUT/$REL-root.log)"
runtime create "$REL"
# Daemons are not started by the packages' scripts (policy-rc.d, Debian's
# invoke-rc.d(8)): run.sh starts them. alice runs the jobs.
cat >"$ROOT/usr/sbin/policy-rc.d" <<'EOF'
#!/bin/sh
exit 101
EOF
chmod 755 "$ROOT/usr/sbin/policy-rc.d"
# shellcheck disable=SC2086 # word lists
logged "$OUT/$REL-root.log" runtime run "$REL" sh -c '
	set -e
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "$@"
	id -u alice >/dev/null 2>&1 || useradd -m -s /bin/bash alice
	# The package installed is the one just built, even at the same version.
	for p in "$@"; do
		case $p in ./*.deb) dpkg -i "$p" >/dev/null ;; esac
	done' sh $PKGS $extra
if [ "$VER" = 26.05 ]; then
	# Where Debian's package of it would put each (debian/rules).
	install -D -m 0755 "$REPO/$B/spank_qosdeny.so" \
		"$ROOT/$LIBDIR/slurm-wlm/spank_qosdeny.so"
	install -D -m 0644 "$REPO/$B/pam_qosdeny.so" \
		"$ROOT/$LIBDIR/security/pam_qosdeny.so"
	rm -f "$ROOT/usr/bin/qosdeny"
	[ ! -e "$REPO/$B/qosdeny" ] ||
		install -D -m 0755 "$REPO/$B/qosdeny" "$ROOT/usr/bin/qosdeny"
	# Every library they need is in the root.
	missing=$(chroot "$ROOT" sh -c 'ldd "$@" | grep "not found"' sh \
		/$LIBDIR/slurm-wlm/spank_qosdeny.so /$LIBDIR/security/pam_qosdeny.so \
		$([ ! -e "$ROOT/usr/bin/qosdeny" ] || echo /usr/bin/qosdeny)) || true
	[ -z "$missing" ] || {
		msg "libraries missing in the runtime: $missing"
		exit 1
	}
fi
install -m 755 "$OUT/qd-cuda-probe-$VER" "$ROOT/usr/local/bin/qd-cuda-probe"
install -D -m 755 "$OUT/spank_hooks_only-$VER.so" \
	"$ROOT/usr/local/lib/qd-bench/spank_hooks_only.so"

msg "packing (xz -9)"
tar -C "$ROOT" --one-file-system --numeric-owner -cf - \
	--exclude=./usr/share/doc --exclude=./usr/share/man \
	--exclude=./usr/share/info --exclude=./usr/share/locale \
	--exclude=./usr/share/i18n --exclude=./usr/share/lintian \
	--exclude='./var/lib/apt/lists/*' --exclude='./var/cache/*' \
	--exclude=./.qd-ready --exclude=./qosdeny . |
	xz -9 -T1 >"$TARBALL.new"
size=$(stat -c %s "$TARBALL.new")
if [ "$size" -gt $((LIMIT_MIB * 1024 * 1024)) ]; then
	msg "$((size / 1024 / 1024)) MiB, over $LIMIT_MIB MiB"
	rm -f "$TARBALL.new"
	exit 1
fi
mv "$TARBALL.new" "$TARBALL"
msg "$TARBALL: $((size / 1024)) KiB, built in $(($(date +%s) - start)) s"
