#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One part of the whole suite against one Slurm version, for make check
# (tests/check/parallel.sh runs the parts of all versions side by side).
# Usage: suite.sh VERSION PART [TREE]
#
#   VERSION  22.05 | 23.11 | 24.11 | 25.11 | 26.05 (make-in.sh: here, or
#            in a chroot).
#   PART     build   the version's root and packages (make deps), 24.11's
#                    VM image of that root (built now, before the suite
#                    changes the root's packages), SchedMD's packages of
#                    Slurm built from its source and installed where
#                    Debian has none (23.11, 25.11, 26.05: slurm-tree.sh,
#                    slurm-debs.sh, install-slurm.sh), the build (make all
#                    tests); its results directory emptied first
#            unit, integration, integration-asan, deb-build, deb-test
#                    that make goal (deb-build and deb-test where Slurm is
#                    installed from packages, Debian's or SchedMD's;
#                    deb-test with the package deb-build made where
#                    QD_DEB_BUILT=yes), integration without t_memory.sh
#            integration-memory
#                    t_memory.sh alone; it, integration and
#                    integration-asan each have a cluster directory of
#                    their own
#            core    make check-core: build-test, unit-asan, fuzz-smoke,
#                    which do not change with the version (make check runs
#                    them with its first version only)
#            vm      the pure cgroup v2 VM (24.11, 26.05)
#            counts  the version's counts added to $QD_RESULTS/counts
#   TREE     a Slurm source tree (make check SLURM_SRC=DIR): used for the
#            version it holds, ignored by the others. 23.11, 25.11 and
#            26.05 are built from it, else from SchedMD's release tarball
#            (slurm-tree.sh); without either, 23.11 and 25.11 are skipped
#            and 26.05 gets what Debian testing's binary packages allow,
#            the node side (spank_qosdeny.so, pam_qosdeny.so), the unit
#            tests (its build part) and the pure cgroup v2 VM.
#
# QD_CORE_EXTRAS=no (make check, for every version after the first): the
# integration suites leave out their drills of the core's Redis client.
# QD_UNIT_SET=slurm (make check, for a version whose Debian release an
# earlier one has): the unit part runs only the tests that depend on the
# Slurm version (make unit UNIT_SET=slurm).
# QD_MAKE_ARGS: more words for make (make check's port range for this
# version's clusters, QD_QUICKACK=0 where it set the loopback routes).
#
# Each version's "suite name passed failed" lines are added to
# $QD_RESULTS/counts with the version in front (24.11/integration ...) by
# the counts part. A line for the summary to repeat goes to
# $QD_RESULTS/notes.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ver=$1
part=$2
tree=${3:-}
read -r -a make_args <<<"${QD_MAKE_ARGS:-}"
results=${QD_RESULTS:-${QD_BUILD:-$REPO/build}/check-results}
mkdir -p "$results"
# The version's own suites write to its build's results directory, and its
# make takes none of the outer make's variables (SLURM_SRC is a tree of one
# version; it is copied to where that version's build looks, below).
unset QD_RESULTS MAKEFLAGS MFLAGS MAKELEVEL

# The version's source, a tree or a release tarball; "" for the versions
# built against Debian's packages, and where there is none.
src=$(bash "$HERE/slurm-tree.sh" "$ver" "$tree")
from_source() { case $ver in 23.11 | 25.11 | 26.05) return 0 ;; esac; return 1; }

# Debian's Slurm 26.05 has a root of its own, build/chroot/forky-deb:
# build/chroot/forky-smd is where SchedMD's packages of 26.05 are
# installed, which conflict with Debian's. Its build is build/forky-deb.
DEB_ROOT=forky-deb
DEB_B=build/$DEB_ROOT

# deb_node_side OUT [unit]: spank_qosdeny.so and pam_qosdeny.so (and the
# tool, which the unit tests run) built in that root against Debian's Slurm
# 26.05; with "unit", the unit tests too (their counts in $DEB_B/results,
# make's own). Under the sanitizers they run on 22.05 and 24.11: the same
# code, and 3.5 minutes of make check's 80 here. Not the controller plugins,
# nor their parts' unit tests (CTLD_TESTS=no): they need Slurm's internal
# headers, which only a source tree has. A
# failure is counted in OUT/counts.
deb_node_side() {
	local t0 out=$1
	t0=$(date +%s)
	mkdir -p "$out"
	# The root, its packages and the VM's image (tests/vm/image.sh).
	if ! bash "$REPO/tests/vm/image.sh" 26.05 >/dev/null; then
		echo "suite deb-root 0 1" >>"$out/counts"
		return 1
	fi
	echo "# Slurm 26.05 (Debian's packages): root and image ready in $(($(date +%s) - t0)) s"
	if ! bash "$HERE/chroot.sh" run "$DEB_ROOT" make B="$DEB_B" \
		"$DEB_B/spank_qosdeny.so" "$DEB_B/pam_qosdeny.so" "$DEB_B/qosdeny"; then
		echo "suite node-build 0 1" >>"$out/counts"
		return 1
	fi
	if [ "${2:-}" = unit ]; then
		bash "$HERE/chroot.sh" run "$DEB_ROOT" make B="$DEB_B" \
			CTLD_TESTS=no unit || true
	fi
	echo "# Slurm 26.05 (Debian's packages): built and unit-tested in $(($(date +%s) - t0)) s"
}

# vm VERSION PLUGIN_BUILD [IMAGE]: the pure cgroup v2 VM (tests/vm/README.md) of
# that version, Slurm on cgroup/v2, the build's spank_qosdeny.so, every
# test of it; on 26.05 the binding tests again with CgroupJobIdPaths=yes
# (make check-vm-26.05 runs the ssh tests so too: 140 s more, left out of
# make check for its budget). Its counts go to $REPO/$b/results.
#
# On 24.11, t_v2_adopt.sh cancels its jobs only once Slurm 24.11.5's
# extern stepd saw their ssh sessions end: otherwise that stepd sometimes
# crashed as the job ended (fixed in 24.11.6) and left its step_extern
# cgroup (tests/vm/README.md).
vm() {
	local vm_start more=()
	vm_start=$(date +%s)
	[ "$1" = 26.05 ] && more=(t_v2_binding.sh@jobidpaths)
	QD_VM_SLURM=$1 QD_RESULTS=$REPO/$b/results QD_VM_PLUGIN=$2/spank_qosdeny.so \
		QD_VM_IMAGE=${3:-} bash "$REPO/tests/vm/run.sh" t_lifecycle.sh t_suspend_restart.sh \
		t_v2_usage.sh t_v2_binding.sh t_v2_adopt.sh "${more[@]}"
	echo "# Slurm $1: the pure cgroup v2 VM took $(($(date +%s) - vm_start)) s"
}

no_source_2605() { [ "$ver" = 26.05 ] && [ -z "$src" ]; }
if no_source_2605; then
	b=$DEB_B
else
	b=$(bash "$HERE/make-in.sh" --build "$ver") || exit 1
fi
# 23.11 and 25.11 without a source: nothing to test them with, said once
# (the build part) in the summary's notes.
if from_source && [ -z "$src" ] && [ "$ver" != 26.05 ]; then
	if [ "$part" = build ]; then
		echo "# Slurm $ver: SKIPPED: no source (make check SLURM_SRC=DIR, or SchedMD's slurm-$ver.N.tar.xz in ${QD_SLURM_TARBALLS:-../shared/slurm-src})"
		echo "Slurm $ver: skipped, no source (SLURM_SRC= or its release tarball, docs/development.md)" >>"$results/notes"
	fi
	exit 0
fi

# place_source: the version's source where its build looks for Slurm's
# internal headers (SLURM_SRC's default, inside the checkout, so that a
# chroot sees it too) and SchedMD's packages are built from
# (place-source.sh, slurm-debs.sh); sha the tarball's sha256, the key of
# the packages built and of the Slurm installed in the root
# (install-slurm.sh), "" for a tree.
place_source() {
	sha=$(bash "$HERE/place-source.sh" "$src" "$REPO/$b/slurm-src")
}

case $part in
build)
	rm -rf "${REPO:?}/$b/results"
	if no_source_2605; then
		echo "# Slurm 26.05: no source (make check SLURM_SRC=DIR, or SchedMD's slurm-26.05.N.tar.xz in ${QD_SLURM_TARBALLS:-../shared/slurm-src}), and Debian serves none: Debian testing's packages, the node side, the unit tests and the pure cgroup v2 VM"
		echo "Slurm 26.05: no source, so Debian's packages: node side, unit tests, cgroup v2 VM; the controller plugins (job_submit, site_factor) are tested only with its source" \
			>>"$results/notes"
		deb_node_side "$REPO/$b/results" unit
		exit
	fi
	if [ -n "$src" ]; then
		t0=$(date +%s)
		if ! place_source ||
			! bash "$HERE/slurm-debs.sh" "$ver" "$REPO/$b/slurm-src" "$sha" \
				"$REPO/$b/slurm-debs" ||
			! bash "$HERE/make-in.sh" "$ver" slurm-from-source \
				${sha:+SLURM_SHA256=$sha}; then
			mkdir -p "$REPO/$b/results"
			echo "suite slurm-build 0 1" >>"$REPO/$b/results/counts"
			exit 1
		fi
		echo "# Slurm $ver: from $(basename "$src"), its root and SchedMD's packages ready in $(($(date +%s) - t0)) s"
	fi
	# The packages, deb-test's for building the package too: installed by
	# its make deb later, they would change the root's package list, and
	# with it the key of the VM image made of it (image.sh), at every run.
	bash "$HERE/make-in.sh" "$ver" deps \
		QD_EXTRA_PKGS="debhelper lintian build-essential"
	# The VM boots an image of this root as it is now: made before the
	# suite installs and purges its package there (tests/vm/README.md).
	# Its failure is the VM's, counted when it cannot boot.
	if [ "$ver" = 24.11 ]; then
		mkdir -p "$REPO/$b"
		rm -f "$REPO/$b/vm-image"
		img=$(bash "$REPO/tests/vm/image.sh" 24.11) &&
			echo "$img" >"$REPO/$b/vm-image"
	fi
	bash "$HERE/make-in.sh" "$ver" deps all tests "${make_args[@]}"
	;;
unit | integration-asan | deb-build | deb-test)
	no_source_2605 && exit 0
	goal=$part more=()
	case $part in deb-*) goal=$part-if-packaged ;; esac
	# The package of the lane's deb-build part (QD_DEB_BUILT=yes).
	[ "$part" = deb-test ] && [ "${QD_DEB_BUILT:-}" = yes ] && more=(DEB_BUILT=yes)
	[ "$part" = unit ] && more=(UNIT_SET="${QD_UNIT_SET:-all}")
	bash "$HERE/make-in.sh" "$ver" "$goal" \
		CORE_EXTRAS="${QD_CORE_EXTRAS:-yes}" "${more[@]}" "${make_args[@]}"
	;;
integration)
	# All but t_memory.sh, which is the integration-memory part's, and
	# those integration-asan runs (tests/integration/split.sh).
	no_source_2605 && exit 0
	bash "$HERE/make-in.sh" "$ver" integration QD_SKIP=t_memory.sh QD_SPLIT=plain \
		CORE_EXTRAS="${QD_CORE_EXTRAS:-yes}" "${make_args[@]}"
	;;
integration-memory)
	# t_memory.sh alone, on a cluster directory of its own: make check runs
	# it beside the version's other suites (slurmctld is restarted twice),
	# with ports and job ids of its own in QD_MAKE_ARGS. Its counts are the
	# integration suite's.
	no_source_2605 && exit 0
	bash "$HERE/make-in.sh" "$ver" integration \
		QUICK_ARGS=tests/integration/t_memory.sh QD_CLUSTER_SUFFIX=-memory \
		"${make_args[@]}"
	;;
core)
	no_source_2605 && exit 0
	bash "$HERE/make-in.sh" "$ver" check-core "${make_args[@]}"
	;;
vm)
	# 24.11 on a pure cgroup v2 node, a qemu VM of its chroot with this
	# build's plugin; 26.05 on one of Debian's packages, the plugin built
	# against them beside (its counts kept with the version's).
	case $ver in
	24.11) vm 24.11 "$b" "$(cat "$REPO/$b/vm-image" 2>/dev/null)" ;;
	26.05)
		no_source_2605 || deb_node_side "$REPO/$b/results" || exit 1
		vm 26.05 "$DEB_B"
		;;
	esac
	;;
counts)
	if [ -s "$REPO/$b/results/counts" ]; then
		awk -v v="$ver" '{ $1 = v "/" $1; print }' "$REPO/$b/results/counts" \
			>>"$results/counts"
	else
		echo "$ver/suite no-results 0 1" >>"$results/counts"
	fi
	;;
*)
	echo "suite.sh: unknown part '$part' (build, unit, integration, integration-memory, integration-asan, deb-build, deb-test, core, vm, counts)" >&2
	exit 2
	;;
esac
