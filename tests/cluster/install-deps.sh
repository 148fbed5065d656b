#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs what building qosdeny and running its test cluster needs, on
# Debian 12 or 13 (the host, or a chroot of tests/chroot/chroot.sh), and
# creates the test users.  Idempotent; prints nothing when
# everything is already there.  Must run as root when something is missing.
#
# Installing never leaves daemons running: a policy-rc.d that refuses every
# start is put in place for the duration of apt-get (unless one exists), and
# any munged/mariadbd/redis-server/slurm daemon that appeared during the
# install is stopped again, by pid.
set -eu

# Debian's Slurm packages, unless another Slurm is installed (SchedMD's
# packages, tests/chroot/install-slurm.sh: 23.11, 25.11, 26.05): never
# Debian's beside it.
SLURM_PKGS="slurmctld slurmd slurmdbd slurm-client libslurm-dev"
# ssh into a job's node (t_adopt.sh): Slurm's PAM module, Debian's build of
# it, so only beside Debian's Slurm.
SLURM_PKGS="$SLURM_PKGS libpam-slurm-adopt"
if command -v slurmctld >/dev/null &&
	[ "$(dpkg-query -W -f='${db:Status-Status}' slurmctld 2>/dev/null)" != installed ]; then
	SLURM_PKGS=""
fi

# QD_EXTRA_PKGS: more, for one target (linux-perf for make bench).
# clang and libclang-rt-dev: the fuzz targets (tests/fuzz); the latter,
# which holds libFuzzer and the sanitizer runtimes, is only a Recommends of
# clang and so is not pulled in with --no-install-recommends.
# libssl-dev: TLS to Redis where hiredis has hiredis_ssl (Debian 13);
# openssl: the private CA of tests/unit/test_redis_tls.c.
# prometheus-node-exporter and prometheus (its promtool): the metrics files
# read by the real tools (tests/integration/t_metrics.sh).
PKGS="$SLURM_PKGS munge mariadb-server
mariadb-client redis-server libcriterion-dev libhiredis-dev dpkg-dev pkg-config
clang-format gcc make clang libclang-rt-dev ${QD_EXTRA_PKGS:-}
libpam0g-dev openssh-server openssh-client libssl-dev openssl
prometheus-node-exporter prometheus"
USERS="alice bob charlie"
# QD_DEPS=build: only what building the plugins and the tool needs (make
# deb on an administrator's machine; Slurm's headers are those of the Slurm
# installed where it is not Debian's, SchedMD's slurm-smd-dev), no test
# users.
if [ "${QD_DEPS:-}" = build ]; then
	PKGS="${SLURM_PKGS:+libslurm-dev} libhiredis-dev libpam0g-dev libssl-dev dpkg-dev pkg-config gcc make ${QD_EXTRA_PKGS:-}"
	USERS=""
fi

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing="$missing $p"
done
musers=""
for u in $USERS; do
	id -u "$u" >/dev/null 2>&1 || musers="$musers $u"
done

[ -z "$missing$musers" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps.sh: missing:${missing}${musers:+ (users:$musers)}; run as root" >&2
	exit 1
fi

DAEMONS="munged mariadbd mysqld redis-server slurmctld slurmd slurmdbd slurmstepd sshd
prometheus prometheus-node-exporter"

# pids of the daemons above under this root, one per line: inside a chroot
# /proc also shows the host's, which are none of this install's business.
ROOT_ID=$(stat -c %d:%i /)
daemon_pids() {
	for d in /proc/[0-9]*; do
		[ "$(stat -L -c %d:%i "$d/root" 2>/dev/null)" = "$ROOT_ID" ] || continue
		c=$(cat "$d/comm" 2>/dev/null) || continue
		for n in $DAEMONS; do
			# comm is truncated to 15 characters
			if [ "$c" = "$n" ] || [ "$c" = "$(printf %.15s "$n")" ]; then
				echo "${d#/proc/}"
				break
			fi
		done
	done
}

if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	before=$(daemon_pids)
	. "$(dirname "$0")/policy-rc.sh"
	policy_rc_deny
	rc=0
	{
		# shellcheck disable=SC2086
		apt-get update -qq &&
			apt-get install -y -qq --no-install-recommends \
				-o Dpkg::Options::=--force-confdef \
				-o Dpkg::Options::=--force-confold $missing
	} >/tmp/qosdeny-install-deps.log 2>&1 || rc=$?
	policy_rc_restore
	if [ "$rc" != 0 ]; then
		tail -n 30 /tmp/qosdeny-install-deps.log >&2
		echo "install-deps.sh: apt-get failed (log: /tmp/qosdeny-install-deps.log)" >&2
		exit "$rc"
	fi
	echo "install-deps.sh: installed:$missing"
	# Stop whatever the packages' maintainer scripts started.
	started=""
	for p in $(daemon_pids); do
		case "
$before
" in *"
$p
"*) continue ;; esac
		started="$started $p"
	done
	if [ -n "$started" ]; then
		echo "install-deps.sh: stopping daemons started by the install:$started"
		# shellcheck disable=SC2086
		kill $started 2>/dev/null || true
		i=0
		while [ $i -lt 50 ]; do
			alive=""
			for p in $started; do
				kill -0 "$p" 2>/dev/null && alive="$alive $p"
			done
			[ -z "$alive" ] && break
			sleep 0.2
			i=$((i + 1))
		done
		if [ -n "$alive" ]; then
			# shellcheck disable=SC2086
			kill -9 $alive 2>/dev/null || true
		fi
	fi
fi

for u in $musers; do
	useradd -m -s /bin/bash "$u"
	echo "install-deps.sh: created user $u"
done
exit 0
