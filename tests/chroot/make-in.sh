#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make, against one Slurm version: here when this host's Debian release
# ships it, else in a chroot of the release that does (chroot.sh), built
# under build/RELEASE.
#
#   make-in.sh VERSION [MAKE ARGS...]   prints "# Slurm V: Debian R, here"
#                                       (or chroot), runs make, exits with
#                                       its status
#   make-in.sh --build VERSION          prints that build directory,
#                                       relative to the checkout
#   make-in.sh --root VERSION           prints the root's name (or the
#                                       host's release, where it runs here)
#   make-in.sh --here                   prints the version this host's
#                                       Debian release ships
#
#   VERSION  22.05 | 24.11: the Slurm of Debian 12 and 13, Debian's
#            packages; 23.11 | 25.11 | 26.05: SchedMD's release, its own
#            Debian packages built from its source (slurm-debs.sh,
#            install-slurm.sh), in a root of the Debian release whose
#            toolchain builds it that has no Debian Slurm: 12
#            (bookworm-smd), 13 (trixie-smd) and testing (forky-smd).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
host_rel=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
if [ "${1:-}" = --here ]; then
	case $host_rel in
	bookworm) echo 22.05 ;;
	trixie) echo 24.11 ;;
	*) echo 26.05 ;;
	esac
	exit 0
fi
build_only=""
case ${1:-} in --build | --root)
	build_only=$1
	shift
	;;
esac
ver=$1
shift

# The Debian release that ships each Slurm version, or whose toolchain
# builds it (a root of its own, RELEASE-smd: chroot.sh).
case $ver in
22.05) rel=bookworm ;;
23.11) rel=bookworm-smd ;;
24.11) rel=trixie ;;
25.11) rel=trixie-smd ;;
26.05) rel=forky-smd ;;
*)
	echo "make-in: unknown Slurm version '$ver' (22.05, 23.11, 24.11, 25.11 or 26.05)" >&2
	exit 2
	;;
esac

if [ "$build_only" = --root ]; then
	echo "$rel"
	exit 0
fi
if [ -n "$build_only" ]; then
	if [ "$host_rel" = "$rel" ]; then echo build; else echo "build/$rel"; fi
	exit 0
fi
if [ "$host_rel" = "$rel" ]; then
	echo "# Slurm $ver: Debian $rel, here"
	exec make -C "$REPO" "$@"
fi
echo "# Slurm $ver: Debian $rel, chroot ${QD_CHROOT_BASE:-build/chroot}/$rel"
bash "$HERE/chroot.sh" create "$rel" || exit 1
exec bash "$HERE/chroot.sh" run "$rel" make B="build/$rel" "$@"
