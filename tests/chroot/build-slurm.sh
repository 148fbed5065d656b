#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds and installs Slurm from a source tree, as a site on SchedMD's own
# releases does, for the suite against a Slurm that Debian ships no source
# for (23.11, 25.11, 26.05). Run inside its chroot (make-in.sh ...
# slurm-from-source), as root. Usage: build-slurm.sh TREE BUILD_DIR [SHA256]
#
# Configured as Debian configures its own (--enable-multiple-slurmd: the
# test cluster runs two slurmd on one host), installed into /usr
# (binaries), /usr/lib/x86_64-linux-gnu (libslurm, and the plugins in its
# slurm/), /usr/include/slurm, /etc/slurm: where the test cluster and
# qosdeny's build look for them. Nothing of Debian's Slurm is
# installed beside it. Kept: an installed Slurm of the tree's version is
# not rebuilt (the root lives outside the checkout, in make check's cache);
# with SHA256, the sha256 of the release tarball the tree was unpacked
# from, only when that is what it was built from (STAMP, written after the
# install).
#
# Also pam_slurm_adopt (contribs/pam_slurm_adopt), which only Debian's own
# Slurm packages ship and t_adopt needs: compiled against the installed
# libslurm, as its Makefile links it, with the configured tree's config.h;
# added to an installed Slurm that lacks it without building Slurm again.
set -euo pipefail
tree=$(cd "$1" && pwd)
# Absolute: the build runs in it, and pam_adopt looks in it after.
mkdir -p "$2"
bdir=$(cd "$2" && pwd)
sha=${3:-}
STAMP=/var/lib/qosdeny-slurm-build.sha256
ver=$(awk '$1 == "Version:" { print $2; exit }' "$tree/META")
[ -n "$ver" ] || {
	echo "build-slurm: no version in $tree/META" >&2
	exit 1
}
PAM_ADOPT=/usr/lib/x86_64-linux-gnu/security/pam_slurm_adopt.so
installed() {
	command -v slurmctld >/dev/null &&
		[ "$(slurmctld -V | awk '{ print $2 }')" = "$ver" ] &&
		{ [ -z "$sha" ] || [ "$(cat "$STAMP" 2>/dev/null)" = "$sha" ]; }
}
pam_only=""
if installed; then
	if [ -e "$PAM_ADOPT" ]; then
		echo "build-slurm: Slurm $ver is installed${sha:+ (built from the tarball of sha256 $sha)}"
		exit 0
	fi
	pam_only=1
else
	rm -f "$STAMP"
	if dpkg-query -W -f '${db:Status-Status}' slurmctld 2>/dev/null | grep -q installed; then
		echo "build-slurm: Debian's slurmctld is installed here: not mixing it with Slurm $ver from $tree" >&2
		exit 1
	fi
fi

# What Slurm's configure needs for the daemons the suite runs: munge
# (auth/munge), MariaDB's client (accounting_storage/mysql), hwloc, PAM
# (pam_slurm_adopt), dbus (cgroup/v2, for the pure cgroup v2 VM: make
# check-vm-25.11), and the runtime the suite itself needs
# (install-deps.sh, which leaves Slurm's packages out once this slurmctld
# is in place).
export DEBIAN_FRONTEND=noninteractive
{
	apt-get update -qq &&
		apt-get install -y -qq --no-install-recommends gcc make python3 \
			pkg-config libmunge-dev munge libmariadb-dev libhwloc-dev \
			libjson-c-dev libyaml-dev liblua5.3-dev libpam0g-dev \
			libdbus-1-dev
} >"$bdir.deps.log" 2>&1 || {
	tail -n 20 "$bdir.deps.log" >&2
	exit 1
}

configure() {
	rm -rf "$bdir"
	mkdir -p "$bdir"
	echo "build-slurm: configuring Slurm $ver ($tree)"
	(cd "$bdir" && "$tree/configure" --prefix=/usr --sysconfdir=/etc/slurm \
		--libdir=/usr/lib/x86_64-linux-gnu --localstatedir=/var \
		--runstatedir=/run --disable-debug --without-rpath --with-munge \
		--enable-multiple-slurmd \
		--with-pam_dir="$(dirname "$PAM_ADOPT")" \
		>configure.log 2>&1) || {
		tail -n 20 "$bdir/configure.log" >&2
		exit 1
	}
}

# pam_slurm_adopt.so, from the configured tree and the installed libslurm.
pam_adopt() {
	local d=$tree/contribs/pam_slurm_adopt
	grep -qs "SLURM_VERSION_STRING \"$ver\"" "$bdir/config.h" || configure
	mkdir -p "$(dirname "$PAM_ADOPT")"
	gcc -shared -fPIC -g -O2 -pthread -DHAVE_CONFIG_H -I"$bdir" \
		-I"$bdir/slurm" -I"$tree" -o "$PAM_ADOPT" "$d/pam_slurm_adopt.c" \
		"$d/helper.c" -lslurm -lpam -Wl,-z,defs >"$bdir.pam.log" 2>&1 || {
		tail -n 20 "$bdir.pam.log" >&2
		exit 1
	}
	echo "build-slurm: $PAM_ADOPT built"
}

if [ -n "$pam_only" ]; then
	pam_adopt
	exit 0
fi
configure
cd "$bdir"
echo "build-slurm: building ($(nproc) jobs)"
make -j"$(nproc)" >make.log 2>&1 || {
	tail -n 30 make.log >&2
	exit 1
}
make install >install.log 2>&1 || {
	tail -n 20 install.log >&2
	exit 1
}
ldconfig
pam_adopt
[ -z "$sha" ] || echo "$sha" >"$STAMP"
echo "build-slurm: Slurm $(slurmctld -V | awk '{ print $2 }') installed"
