#!/bin/bash
# The whole suite (make check-here) against one Slurm version, for make
# check. Usage: suite.sh VERSION [TREE]
#
#   VERSION  22.05 | 24.11 | 26.05 (make-in.sh: here, or in a chroot).
#   TREE     a Slurm source tree (make check SLURM_SRC=DIR): used for the
#            version it holds, ignored by the others. 26.05 runs only with
#            one, since Debian serves no source for it.
#
# Each version's "suite name passed failed" lines are added to
# $QD_RESULTS/counts with the version in front (24.11/integration ...), and
# its cost is printed at the end.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ver=$1
tree=${2:-}
results=${QD_RESULTS:-${QD_BUILD:-$REPO/build}/check-results}
mkdir -p "$results"
# The version's own suites write to its build's results directory, and its
# make takes none of the outer make's variables (SLURM_SRC is a tree of one
# version; it is copied to where that version's build looks, below).
unset QD_RESULTS MAKEFLAGS MFLAGS MAKELEVEL

if [ -n "$tree" ]; then
	tree_ver=$(awk '$1 == "Version:" { print $2; exit }' "$tree/META" 2>/dev/null)
	case $tree_ver in "$ver".*) ;; *) tree="" ;; esac
fi
if [ "$ver" = 26.05 ] && [ -z "$tree" ]; then
	echo "# Slurm 26.05: SKIPPED: no Slurm 26.05 source tree given (make check SLURM_SRC=DIR); Debian serves no source for it"
	exit 0
fi

b=$(bash "$HERE/make-in.sh" --build "$ver") || exit 1
start=$(date +%s)
rm -rf "${REPO:?}/$b/results"
if [ -n "$tree" ]; then
	# Where the build looks for the tree by default, inside the checkout
	# (so a chroot sees it too); Slurm itself is built from it where no
	# Debian package of this version is installed (26.05).
	if [ "$(cd "$tree" && pwd)" != "$REPO/$b/slurm-src" ]; then
		rm -rf "${REPO:?}/$b/slurm-src"
		mkdir -p "$REPO/$b"
		cp -a "$tree" "$REPO/$b/slurm-src"
	fi
	if [ "$ver" = 26.05 ] &&
		! bash "$HERE/make-in.sh" "$ver" slurm-from-source; then
		echo "$ver/suite slurm-build 0 1" >>"$results/counts"
		exit 1
	fi
fi
bash "$HERE/make-in.sh" "$ver" check-here
# 24.11 again on a pure cgroup v2 node: a qemu VM of this chroot, Slurm on
# cgroup/v2, this build's spank_qosdeny.so (tests/vm/README.md), every
# test of it. t_v2_adopt.sh cancels its jobs only once Slurm 24.11.5's
# extern stepd saw their ssh sessions end: otherwise that stepd sometimes
# crashed as the job ended (fixed in 24.11.6) and left its step_extern
# cgroup (the README).
if [ "$ver" = 24.11 ]; then
	vm_start=$(date +%s)
	QD_RESULTS=$REPO/$b/results QD_VM_PLUGIN=$b/spank_qosdeny.so \
		bash "$REPO/tests/vm/run.sh" t_lifecycle.sh t_suspend_restart.sh \
		t_usage.sh t_v2_binding.sh t_v2_adopt.sh
	echo "# Slurm $ver: the pure cgroup v2 VM took $(($(date +%s) - vm_start)) s"
fi
if [ -s "$REPO/$b/results/counts" ]; then
	awk -v v="$ver" '{ $1 = v "/" $1; print }' "$REPO/$b/results/counts" \
		>>"$results/counts"
else
	echo "$ver/suite no-results 0 1" >>"$results/counts"
fi
echo "# Slurm $ver: the suite took $(($(date +%s) - start)) s"
