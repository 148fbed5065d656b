#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A Debian chroot per release, for running the whole suite against the Slurm
# that release ships (Debian 13: 24.11) from this one checkout.
#
#   chroot.sh create RELEASE       debootstrap into build/chroot/RELEASE
#                                  (kept: a finished chroot is reused)
#   chroot.sh run RELEASE CMD...   run CMD as root inside it, in the
#                                  checkout (bind-mounted at /qosdeny)
#   chroot.sh destroy RELEASE      unmount whatever is left, then delete it
#
# RELEASE may carry a suffix, RELEASE-NAME (forky-deb): a second root of
# that release, in build/chroot/RELEASE-NAME, for packages that must not
# meet the first root's (Debian's Slurm 26.05 beside SchedMD's packages
# of it in build/chroot/forky-smd).
#
# `run` works in a private mount namespace (unshare): proc, sys and dev are
# bind-mounted for the command and unmounted when it ends, and no mount of
# it is ever visible outside, so nothing can delete the host's /dev or /sys
# through a chroot. `destroy` still refuses to delete while anything is
# mounted below the chroot.
#
# The mirror is the host's own (its deb822 debian.sources or sources.list).
# Must run as root. QD_CHROOT_BASE overrides build/chroot.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
BASE=${QD_CHROOT_BASE:-$REPO/build/chroot}
INSIDE=/qosdeny

msg() { echo "chroot: $*" >&2; }
die() {
	msg "$*"
	exit 1
}

# The host's Debian mirror: the first URIs: of debian.sources, else the
# first deb line of sources.list.
host_mirror() {
	local m=""
	if [ -r /etc/apt/sources.list.d/debian.sources ]; then
		m=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
	fi
	if [ -z "$m" ] && [ -r /etc/apt/sources.list ]; then
		m=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list)
	fi
	[ -n "$m" ] || die "no Debian mirror found in the host's apt sources"
	echo "$m"
}

# debootstrap's script for RELEASE: bookworm's debootstrap has none for
# forky, whose bootstrap is sid's.
bootstrap_script() {
	local s=/usr/share/debootstrap/scripts/$1
	if [ -e "$s" ]; then echo "$s"; else echo /usr/share/debootstrap/scripts/sid; fi
}

create() {
	local rel=${1%%-*} dir=$BASE/$1 mirror log
	[ -e "$dir/.qd-ready" ] && return 0
	if ! command -v debootstrap >/dev/null; then
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq debootstrap; } >/dev/null 2>&1 ||
			die "cannot install debootstrap"
	fi
	mirror=$(host_mirror)
	[ -z "$(mounts_below "$dir")" ] || die "$dir has mounts, not re-creating"
	rm -rf --one-file-system "$dir"
	mkdir -p "$BASE"
	msg "debootstrap $rel from $mirror into $dir"
	log=$BASE/$1.debootstrap.log
	debootstrap --variant=minbase "$rel" "$dir" "$mirror" \
		"$(bootstrap_script "$rel")" >"$log" 2>&1 ||
		{
			tail -n 20 "$log" >&2
			die "debootstrap $rel failed (log: $log)"
		}
	# deb822 sources as on the host, so that get-slurm-source.sh can derive
	# its deb-src entry the same way inside.
	rm -f "$dir/etc/apt/sources.list"
	cat >"$dir/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $rel
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	# The host's apt settings (proxies, validity checks) apply inside too.
	cp -a /etc/apt/apt.conf.d/. "$dir/etc/apt/apt.conf.d/" 2>/dev/null || true
	# Testing's Release file is valid for a week only: a mirror that is a
	# snapshot serves it expired, which apt refuses by default.
	case $rel in
	bookworm | trixie) ;;
	*) echo 'Acquire::Check-Valid-Until "false";' \
		>"$dir/etc/apt/apt.conf.d/99qd-valid-until" ;;
	esac
	mkdir -p "$dir$INSIDE"
	# make, to run the suite's own targets (make deps installs the rest).
	enter "$dir" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends make' \
		>>"$log" 2>&1 || {
		tail -n 20 "$log" >&2
		die "installing make into $1 failed"
	}
	touch "$dir/.qd-ready"
	msg "$rel ready in $dir"
}

# Mount points at or below DIR, deepest first.
mounts_below() {
	[ -d "$1" ] || return 0
	awk -v d="$(readlink -f "$1")" '$5 == d || index($5, d "/") == 1 { print $5 }' \
		/proc/self/mountinfo | sort -r
}

# CMD in the chroot DIR, from a private mount namespace (run_inside).
enter() {
	unshare --mount --propagation private bash "$0" __inside "$@"
}

# Inside the private namespace: mount, run, unmount.
run_inside() {
	local dir=$1 rc=0
	shift
	mount --make-rprivate /
	# The chroot's / a mount point of its own, as a machine's is: the
	# cgroup tests make their mounts private from there (mount of "/").
	mount --bind "$dir" "$dir"
	mount --rbind /proc "$dir/proc"
	mount --rbind /sys "$dir/sys"
	mount --rbind /dev "$dir/dev"
	mount --bind "$REPO" "$dir$INSIDE"
	# Names resolve as on the host, this host's own name included: for an
	# salloc, slurmctld looks up the submit host by name, and where that
	# fails Slurm 24.11 retries for 10 s holding the job write lock, so a
	# step's completion message times out and comes 60 s later.
	cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
	[ -e "$dir/etc/hosts" ] || : >"$dir/etc/hosts" # debootstrap makes none
	mount --bind -o ro /etc/hosts "$dir/etc/hosts"
	chroot "$dir" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" CI="${CI:-}" \
		/bin/bash -c 'cd '"$INSIDE"' && exec "$@"' bash "$@" || rc=$?
	for m in $(mounts_below "$dir"); do
		umount -l "$m" 2>/dev/null || true
	done
	return $rc
}

run() {
	local rel=$1 dir=$BASE/$1
	shift
	[ -e "$dir/.qd-ready" ] || die "no chroot for $rel (chroot.sh create $rel)"
	enter "$dir" "$@"
}

destroy() {
	local dir=$BASE/$1 left
	[ -d "$dir" ] || return 0
	for m in $(mounts_below "$dir"); do
		umount -R "$m" 2>/dev/null || umount -l "$m" || true
	done
	left=$(mounts_below "$dir")
	[ -z "$left" ] || die "still mounted, not deleting: $left"
	rm -rf --one-file-system "$dir"
}

[ "$(id -u)" = 0 ] || die "must run as root"
case ${1:-} in
create) create "$2" ;;
run)
	rel=$2
	shift 2
	run "$rel" "$@"
	;;
__inside)
	shift
	run_inside "$@"
	;;
destroy) destroy "$2" ;;
*)
	echo "usage: chroot.sh create|run|destroy RELEASE [CMD...]" >&2
	exit 2
	;;
esac
