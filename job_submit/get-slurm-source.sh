#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Finds Slurm's source for the internal headers the slurmctld adapters
# (job_submit/) need, checks it is the installed Slurm's version, and writes
# the config.h that matches the build of that Slurm.
#
#   SLURM_SRC unset or empty dir: Debian's source package of the installed
#     slurm-wlm (libslurm-dev's version), fetched into $B/slurm-src. apt
#     runs with private lists and a deb-src entry derived from the system's
#     debian.sources, so the system's apt configuration is left untouched. Where the registry
#     serves the orig tarball but not the .dsc (Debian 13's 24.11.5), the
#     orig tarball alone is unpacked: Debian's patches cannot be applied,
#     and the public headers the tree has are compared with the installed
#     ones, which Debian's build made from the patched tree.
#   SLURM_SRC=DIR with a tree in it: that tree (a site building Slurm
#     itself, or SchedMD's tree).
#
# Either way the tree's version (META), the installed headers' (their
# SLURM_VERSION_NUMBER) and slurmctld's (-V) must agree: a plugin built
# against one Slurm's structures and loaded into another's slurmctld reads
# the wrong fields. Writes the version to $B/slurm-config/version.
set -eu
: "${B:=build}"
: "${SLURM_SRC:=$B/slurm-src}"
: "${SLURM_INCLUDE:=/usr/include}"
cfg="$B/slurm-config"

die() {
	echo "get-slurm-source: $*" >&2
	exit 1
}

# The upstream version (22.05.8) of a Debian version (22.05.8-4+deb12u3).
upstream() {
	v=${1#*:}
	echo "${v%%-*}"
}

# META's "Version:" line of the tree in $1.
tree_version() {
	awk '$1 == "Version:" { print $2; exit }' "$1/META" 2>/dev/null
}

# SLURM_VERSION_NUMBER (0x160508) as META writes it (22.05.8).
headers_version() {
	n=$(sed -n 's/^#define SLURM_VERSION_NUMBER \(0x[0-9a-fA-F]*\).*/\1/p' \
		"$SLURM_INCLUDE/slurm/slurm_version.h" 2>/dev/null)
	[ -z "$n" ] || printf '%d.%02d.%d\n' $((n >> 16)) $(((n >> 8) & 255)) $((n & 255))
}

ctld_version() {
	if command -v slurmctld >/dev/null 2>&1; then
		slurmctld -V 2>/dev/null | awk '{ print $2; exit }'
	fi
}

fetch_debian_source() {
	# libslurm-dev: its headers are needed anyway, and a package build
	# host may have no slurmctld.
	ver=$(dpkg-query -W -f '${Version}' libslurm-dev 2>/dev/null || true)
	[ -n "$ver" ] || die "libslurm-dev is not installed (run 'make deps'), and SLURM_SRC names no Slurm tree"
	up=$(upstream "$ver")
	apt="$B/apt"
	dl="$B/slurm-dl"
	mkdir -p "$apt/sources.list.d" "$apt/lists/partial" "$dl"
	sed 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
		>"$apt/sources.list.d/deb-src.sources"
	set -- -q -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$(pwd)/$apt/sources.list.d" \
		-o Dir::State::Lists="$(pwd)/$apt/lists"
	apt-get "$@" update >/dev/null
	# apt keeps what it fetched, checksums verified, when another file of
	# the package is missing on the server.
	(cd "$dl" && apt-get "$@" source --download-only "slurm-wlm=$ver" 2>&1 |
		grep -v -e '^W: Download is performed unsandboxed' \
			-e '^Fetched' -e '^Need to get' -e '^Reading' -e '^NOTICE' \
			-e "^Please use" -e '^git clone' -e '^$' || true) >"$dl/apt.log"
	rm -rf "$SLURM_SRC"
	dsc="$dl/slurm-wlm_${ver#*:}.dsc"
	orig=$(ls "$dl"/slurm-wlm_"$up".orig.tar.* 2>/dev/null | head -n 1)
	if [ -f "$dsc" ]; then
		# Debian's signing keys are not installed; checksums are verified.
		dpkg-source -x "$dsc" "$SLURM_SRC" 2>&1 |
			grep -v -e "^gpgv:" -e "cannot verify inline signature" >&2 || true
	elif [ -n "$orig" ]; then
		echo "get-slurm-source: the registry serves no .dsc for slurm-wlm $ver; using its orig tarball without Debian's patches" >&2
		mkdir -p "$SLURM_SRC"
		tar -xf "$orig" -C "$SLURM_SRC" --strip-components=1
		echo unpatched >"$SLURM_SRC/.qd-orig-only"
	else
		cat "$dl/apt.log" >&2
		die "neither the .dsc nor the orig tarball of slurm-wlm $ver could be fetched"
	fi
	[ -f "$SLURM_SRC/src/slurmctld/slurmctld.h" ] ||
		die "unpacking slurm-wlm $ver failed"
}

if [ ! -f "$SLURM_SRC/src/slurmctld/slurmctld.h" ]; then
	if [ -e "$SLURM_SRC" ] && [ -n "$(ls -A "$SLURM_SRC" 2>/dev/null)" ] &&
		[ "$SLURM_SRC" != "$B/slurm-src" ]; then
		die "SLURM_SRC=$SLURM_SRC is not a Slurm source tree (no src/slurmctld/slurmctld.h)"
	fi
	fetch_debian_source
fi

tree=$(tree_version "$SLURM_SRC")
hdr=$(headers_version)
ctld=$(ctld_version)
[ -n "$tree" ] || die "no version in $SLURM_SRC/META"
[ -n "$hdr" ] || die "no Slurm headers in $SLURM_INCLUDE/slurm (install libslurm-dev)"
[ "$tree" = "$hdr" ] ||
	die "version mismatch: Slurm source tree $SLURM_SRC is $tree, installed headers ($SLURM_INCLUDE/slurm) are $hdr"
[ -z "$ctld" ] || [ "$ctld" = "$tree" ] ||
	die "version mismatch: Slurm source tree $SLURM_SRC is $tree, installed slurmctld is $ctld"

# An unpatched orig tree: the public headers it shares with the installed
# (patched) ones must not differ, or the structures may not either.
if [ -e "$SLURM_SRC/.qd-orig-only" ]; then
	for h in slurm.h slurmdb.h slurm_errno.h spank.h; do
		[ -f "$SLURM_SRC/slurm/$h" ] && [ -f "$SLURM_INCLUDE/slurm/$h" ] || continue
		cmp -s "$SLURM_SRC/slurm/$h" "$SLURM_INCLUDE/slurm/$h" ||
			die "slurm/$h of the orig tarball differs from the installed one: Debian's patches change it, and the .dsc to apply them is not served"
	done
fi

mkdir -p "$cfg"
cat >"$cfg/config.h" <<EOC
/* Written by get-slurm-source.sh: the settings of Slurm's build (Debian's,
 * or configure's defaults) that the internal headers qosdeny includes
 * depend on; none changes the layout of a structure qosdeny reads. */
#define USE_ALIAS 1
#define NDEBUG 1
EOC
echo "$tree" >"$cfg/version"
echo "get-slurm-source: Slurm $tree headers in $SLURM_SRC"
