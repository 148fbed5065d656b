#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SchedMD's own Debian packages of a Slurm release (slurm-smd,
# slurm-smd-slurmctld, slurm-smd-dev, ...), built from its source with the
# debian/ SchedMD ships in it, as a site that runs SchedMD's Slurm on Debian
# or Ubuntu builds them (README, "Debian package"). make check's 23.11,
# 25.11 and 26.05 suites run on them (install-slurm.sh), and the qosdeny
# package built there depends on them.
#
#   slurm-debs.sh VERSION TREE SHA256 OUT
#
#   TREE    the release's source (place-source.sh)
#   SHA256  its tarball's sha256 ("" for a tree: built again every time)
#   OUT     where the packages are copied, inside the checkout, for the
#           root that installs them
#
# Built once per tarball, in a root of its own, RELEASE-pkg (RELEASE the
# Debian release make-in.sh runs VERSION in): Slurm's build dependencies
# (GTK, HDF5, PMIx, ...) stay out of the roots the suites run in and of
# the VM images made of them. Kept in make check's cache,
# $QD_CHROOT_BASE/slurm-debs/VERSION-SHA256: the next run, and a new root
# such as the 25.11 VM's, only installs them.
#
# Beside SchedMD's debian/, none an edit of it:
# - multiple-slurmd support (the test cluster runs two slurmd on one host,
#   slurmd -N), through a config.site (CONFIG_SITE), as a site sets its
#   own configure options; for 26.05 there also no PMIx, and the linker
#   told where Debian testing keeps libhdf5.so (below);
# - no static libraries and no -g (config.site's enable_static=no,
#   dpkg-buildflags' DEB_CFLAGS_STRIP): libtool compiled every file twice,
#   PIC and not, the second for static archives nothing here links, and
#   the debug information went with the strip (noautodbgsym). The same
#   code is built; a cold make check builds three releases on two cores
#   (docs/development.md, "What a run keeps for the next");
# - MariaDB's client library, which 23.11's debian/control leaves out of
#   its build dependencies: without it there is no
#   accounting_storage/mysql, and slurmdbd cannot start.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

# Inside the build root: the build dependencies, then dpkg-buildpackage in
# DIR, whose packages land beside it.
if [ "${1:-}" = --inside ]; then
	cd "$2"
	export DEBIAN_FRONTEND=noninteractive
	{
		apt-get update -qq &&
			apt-get build-dep -y -qq ./ &&
			apt-get install -y -qq --no-install-recommends \
				build-essential libmariadb-dev
	} >../deps.log 2>&1 || {
		tail -n 20 ../deps.log >&2
		exit 1
	}
	# Debian testing's libhdf5-dev keeps libhdf5.so only in hdf5/serial/,
	# where the -lhdf5 of h5cc's flags is not looked for: the linker is
	# told (dpkg-buildflags' DEB_LDFLAGS_APPEND, as a builder sets it).
	ma=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	if [ ! -e "$ma/libhdf5.so" ] && [ -e "$ma/hdf5/serial/libhdf5.so" ]; then
		export DEB_LDFLAGS_APPEND="-L$ma/hdf5/serial"
	fi
	echo "slurm-debs: building SchedMD's packages of $(basename "$2") ($(nproc) jobs)" >&2
	CONFIG_SITE=$(cd .. && pwd)/config.site DEB_CFLAGS_STRIP=-g \
		DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=$(nproc)" \
		dpkg-buildpackage -b -uc -us >../build.log 2>&1 || {
		tail -n 30 ../build.log >&2
		exit 1
	}
	exit 0
fi

ver=$1
tree=$(cd "$2" && pwd)
sha=$3
out=$4
BASE=${QD_CHROOT_BASE:-$REPO/build/chroot}
full=$(awk '$1 == "Version:" { print $2; exit }' "$tree/META")
[ -n "$full" ] || {
	echo "slurm-debs: no version in $tree/META" >&2
	exit 1
}
root=$(bash "$HERE/make-in.sh" --root "$ver")
root=${root%%-*}-pkg
cache=$BASE/slurm-debs/$full-$sha

copy_out() {
	rm -rf "$out"
	mkdir -p "$out"
	cp "$1"/*.deb "$out/"
}

if [ -n "$sha" ] && [ -e "$cache/.complete" ]; then
	copy_out "$cache"
	exit 0
fi

t0=$(date +%s)
bash "$HERE/chroot.sh" create "$root" >&2
# In the checkout, which the root sees at /qosdeny: a copy of the tree,
# since the build writes into it.
work=build/$root/$full
rm -rf "${REPO:?}/$work"
mkdir -p "$REPO/$work"
cp -a "$tree" "$REPO/$work/slurm-$full"
printf '%s\n' enable_multiple_slurmd=yes enable_static=no \
	>"$REPO/$work/config.site"
# 26.05.3's configure knows PMIx up to version 6 and Debian testing has 7,
# so SchedMD's --with-pmix stops it there: built without PMIx (no
# mpi/pmix plugin, which no test uses).
[ "$ver" != 26.05 ] || echo 'with_pmix=no' >>"$REPO/$work/config.site"
bash "$HERE/chroot.sh" run "$root" bash tests/chroot/slurm-debs.sh \
	--inside "$work/slurm-$full"
if [ -z "$sha" ]; then
	copy_out "$REPO/$work"
else
	rm -rf "$cache.tmp"
	mkdir -p "$cache.tmp"
	cp "$REPO/$work"/*.deb "$cache.tmp/"
	touch "$cache.tmp/.complete"
	rm -rf "$cache"
	mv "$cache.tmp" "$cache"
	copy_out "$cache"
fi
# The build tree is about 2 GB; its logs stay.
rm -rf "${REPO:?}/$work/slurm-$full"
echo "slurm-debs: SchedMD's packages of Slurm $full built in $(($(date +%s) - t0)) s" >&2
