#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Puts a Slurm source where a build in a chroot sees it, inside the
# checkout (suite.sh, tests/vm/image.sh):
#
#   place-source.sh SRC DST   SRC a tree (copied) or a release tarball
#                             (unpacked, its sha256 kept in DST.sha256,
#                             and not unpacked again while that matches)
#
# Prints the tarball's sha256, the key of SchedMD's packages slurm-debs.sh
# builds from it and install-slurm.sh installs; nothing for a tree.
set -eu
src=$1
dst=$2
mkdir -p "$(dirname "$dst")"
if [ -d "$src" ]; then
	rm -f "$dst.sha256"
	[ "$(cd "$src" && pwd)" = "$(cd "$dst" 2>/dev/null && pwd)" ] && exit 0
	rm -rf "${dst:?}"
	cp -a "$src" "$dst"
	exit 0
fi
sha=$(sha256sum "$src" | cut -d' ' -f1)
if ! [ -d "$dst" ] || [ "$(cat "$dst.sha256" 2>/dev/null)" != "$sha" ]; then
	rm -rf "${dst:?}" "$dst.sha256"
	mkdir -p "$dst"
	tar -xJf "$src" -C "$dst" --strip-components=1
	echo "$sha" >"$dst.sha256"
fi
echo "$sha"
