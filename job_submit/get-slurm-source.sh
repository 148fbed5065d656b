#!/bin/sh
# Fetches Debian's source package of the installed slurm-wlm into $SLURM_SRC,
# for the internal headers the job_submit adapter needs, and writes the
# config.h that matches Debian's build (no configure run needed).
#
# apt runs with private lists and a deb-src entry derived from the system's
# debian.sources, so the system's apt configuration is left untouched.
set -eu
: "${B:=build}"
: "${SLURM_SRC:=$B/slurm-src}"
cfg="$B/slurm-config"

if [ ! -f "$SLURM_SRC/src/slurmctld/slurmctld.h" ]; then
	ver=$(dpkg-query -W -f '${Version}' slurmctld 2>/dev/null || true)
	if [ -z "$ver" ]; then
		echo "get-slurm-source: slurmctld is not installed (run 'make deps')" >&2
		exit 1
	fi
	apt="$B/apt"
	mkdir -p "$apt/sources.list.d" "$apt/lists/partial" "$B/slurm-dl"
	sed 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
		>"$apt/sources.list.d/deb-src.sources"
	set -- -q -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$(pwd)/$apt/sources.list.d" \
		-o Dir::State::Lists="$(pwd)/$apt/lists"
	apt-get "$@" update >/dev/null
	(cd "$B/slurm-dl" && apt-get "$@" source --download-only \
		"slurm-wlm=$ver" 2>&1 | grep -v '^W: Download is performed unsandboxed')
	rm -rf "$SLURM_SRC"
	# Debian's signing keys are not installed; checksums are still verified.
	dpkg-source -x "$B/slurm-dl/slurm-wlm_${ver#*:}.dsc" "$SLURM_SRC" 2>&1 |
		grep -v -e "^gpgv:" -e "cannot verify inline signature" >&2 || true
	if [ ! -f "$SLURM_SRC/src/slurmctld/slurmctld.h" ]; then
		echo "get-slurm-source: unpacking slurm-wlm $ver failed" >&2
		exit 1
	fi
fi

mkdir -p "$cfg"
cat >"$cfg/config.h" <<EOC
/* Written by get-slurm-source.sh: the settings of Debian's slurm-wlm build
 * that change the layout of the internal structures qosdeny reads. */
#define USE_ALIAS 1
#define NDEBUG 1
EOC
echo "get-slurm-source: Slurm headers in $SLURM_SRC"
