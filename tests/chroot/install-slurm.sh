#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs SchedMD's Slurm packages (slurm-debs.sh built them) in the root
# a suite runs in, for the Slurm releases Debian ships no source of (23.11,
# 25.11, 26.05). Run inside its chroot (make-in.sh VERSION
# slurm-from-source), as root. Usage: install-slurm.sh DEBS [SHA256]
#
# The daemons, the clients, libslurm's headers and pam_slurm_adopt:
# binaries in /usr, libslurm and the plugins (in its slurm/) in
# /usr/lib/x86_64-linux-gnu, /etc/slurm. Kept: packages of the same
# version are not installed again (the root lives outside the checkout,
# in make check's cache); with SHA256, the sha256 of the release tarball
# they were built from, only when that is what was installed (STAMP,
# written after the install).
set -euo pipefail
debs=$(cd "$1" && pwd)
sha=${2:-}
STAMP=/var/lib/qosdeny-slurm-build.sha256
PKGS="slurm-smd slurm-smd-client slurm-smd-slurmctld slurm-smd-slurmd
	slurm-smd-slurmdbd slurm-smd-dev slurm-smd-libpam-slurm-adopt"
ctld_deb=$(ls "$debs"/slurm-smd-slurmctld_*.deb 2>/dev/null | head -n 1)
[ -n "$ctld_deb" ] || {
	echo "install-slurm: no slurm-smd-slurmctld package in $debs" >&2
	exit 1
}
want=$(dpkg-deb -f "$ctld_deb" Version)
installed() {
	[ "$(dpkg-query -W -f '${db:Status-Status} ${Version}' \
		slurm-smd-slurmctld 2>/dev/null)" = "installed $want" ] &&
		{ [ -z "$sha" ] || [ "$(cat "$STAMP" 2>/dev/null)" = "$sha" ]; }
}
if installed; then
	echo "install-slurm: SchedMD's Slurm $want is installed${sha:+ (built from the tarball of sha256 $sha)}"
	exit 0
fi
rm -f "$STAMP"
if dpkg-query -W -f '${db:Status-Status}' slurmctld 2>/dev/null | grep -q installed; then
	echo "install-slurm: Debian's slurmctld is installed here: not mixing it with SchedMD's Slurm $want" >&2
	exit 1
fi
# A Slurm installed by hand (make install) would stay under the packages'
# files where they differ.
if command -v slurmctld >/dev/null && ! dpkg -S "$(command -v slurmctld)" >/dev/null 2>&1; then
	echo "install-slurm: $(command -v slurmctld) is no package's: this root had Slurm installed by hand; make a new one (tests/chroot/chroot.sh destroy ROOT)" >&2
	exit 1
fi

files=()
for p in $PKGS; do
	f=$(ls "$debs/${p}_"*.deb 2>/dev/null | head -n 1)
	[ -n "$f" ] || {
		echo "install-slurm: no $p package in $debs" >&2
		exit 1
	}
	files+=("$f")
done
# The packages' maintainer scripts start no daemon in the root (munge's
# would).
. "$(dirname "$0")/../cluster/policy-rc.sh"
policy_rc_deny
rc=0
{
	apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends --allow-downgrades munge "${files[@]}"
} >/var/log/qosdeny-install-slurm.log 2>&1 || rc=$?
policy_rc_restore
if [ "$rc" != 0 ]; then
	tail -n 20 /var/log/qosdeny-install-slurm.log >&2
	exit 1
fi
[ -z "$sha" ] || echo "$sha" >"$STAMP"
echo "install-slurm: SchedMD's Slurm $(slurmctld -V | awk '{ print $2 }') installed ($want)"
