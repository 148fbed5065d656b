#!/bin/bash
# The whole suite (make check-here) against one Slurm version, for make
# check. Usage: suite.sh VERSION [TREE]
#
#   VERSION  22.05 | 24.11 | 26.05: the Slurm of Debian 12, 13 and testing.
#            The host's own release runs here; the others in a chroot of
#            their Debian release (chroot.sh), built under build/RELEASE.
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
results=${QD_RESULTS:-${QD_BUILD:-$REPO/build}/results}
mkdir -p "$results"

# The Debian release that ships each Slurm version.
case $ver in
22.05) rel=bookworm ;;
24.11) rel=trixie ;;
26.05) rel=forky ;;
*)
	echo "suite: unknown Slurm version '$ver' (22.05, 24.11 or 26.05)" >&2
	echo "$ver/suite unknown-version 0 1" >>"$results/counts"
	exit 1
	;;
esac

tree_ver=""
if [ -n "$tree" ]; then
	tree_ver=$(awk '$1 == "Version:" { print $2; exit }' "$tree/META" 2>/dev/null)
	case $tree_ver in "$ver".*) ;; *) tree="" ;; esac
fi

# Appends DIR/counts, each suite name prefixed with the version.
collect() {
	[ -s "$1/counts" ] || {
		echo "$ver/suite no-results 0 1" >>"$results/counts"
		return
	}
	awk -v v="$ver" '{ $1 = v "/" $1; print }' "$1/counts" >>"$results/counts"
}

start=$(date +%s)
host_rel=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
echo "# === Slurm $ver (Debian $rel$([ "$host_rel" = "$rel" ] && echo ", this host" || echo ", chroot"))"
if [ "$ver" = 26.05 ] && [ -z "$tree" ]; then
	echo "# Slurm 26.05: SKIPPED: no Slurm 26.05 source tree given (make check SLURM_SRC=DIR); Debian serves no source for it"
	exit 0
fi
if [ "$ver" = 26.05 ]; then
	echo "# Slurm 26.05: SKIPPED: building Slurm from a source tree inside the chroot is not supported yet (tree $tree, $tree_ver)"
	exit 0
fi

if [ "$host_rel" = "$rel" ]; then
	out=$QD_BUILD/results-$ver
	rm -rf "$out"
	make -C "$REPO" check-here QD_RESULTS="$out" ${tree:+SLURM_SRC="$tree"}
	collect "$out"
else
	b=build/$rel
	rm -rf "${REPO:?}/$b/results"
	if ! bash "$HERE/chroot.sh" create "$rel"; then
		echo "$ver/suite chroot 0 1" >>"$results/counts"
		exit 1
	fi
	bash "$HERE/chroot.sh" run "$rel" make check-here B="$b" \
		QD_RESULTS="/qosdeny/$b/results"
	collect "$REPO/$b/results"
fi
echo "# === Slurm $ver: $(($(date +%s) - start)) s"
