#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The source make check builds a Slurm version from, where no Debian
# release ships that version's source (23.11, 25.11, 26.05: docs/
# development.md, "Every supported Slurm version"):
#
#   slurm-tree.sh VERSION [TREE]
#
# prints TREE when its META is VERSION's (make check SLURM_SRC=DIR); else
# SchedMD's release tarball of VERSION, slurm-VERSION.N.tar.xz (`git
# archive` of its tag), in $QD_SLURM_TARBALLS, by default slurm-src in
# the directory beside the checkout that CI shares with it (../shared);
# the newest where there are several. Prints nothing when there is none,
# or for a version Debian ships the source of (22.05, 24.11): those are
# built against Debian's packages.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ver=$1
tree=${2:-}
case $ver in
23.11 | 25.11 | 26.05) ;;
*) exit 0 ;;
esac
if [ -n "$tree" ]; then
	case $(awk '$1 == "Version:" { print $2; exit }' "$tree/META" 2>/dev/null) in
	"$ver".*)
		(cd "$tree" && pwd)
		exit 0
		;;
	esac
fi
dir=${QD_SLURM_TARBALLS:-$REPO/../shared/slurm-src}
# slurm-26.05.3.tar.xz: sorted by the micro version, as numbers.
ls "$dir"/slurm-"$ver".*.tar.xz 2>/dev/null |
	sed -n "s|^\(.*/slurm-$ver\.\([0-9]*\)\.tar\.xz\)$|\2 \1|p" |
	sort -n | tail -n 1 | cut -d' ' -f2-
