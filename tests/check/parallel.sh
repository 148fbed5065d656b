#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: the whole suite of every Slurm version, in lanes side by side
# (docs/development.md, "Every supported Slurm version"). The suites are
# mostly waiting on Slurm's scheduling passes, epilogs and polls, and the
# VMs on one emulated CPU: run one after another they left this 2-core
# host idle most of an hour.
#
#   parallel.sh TREE VERSION...   (TREE: make check's SLURM_SRC, or "")
#
# Lanes, each a sequence of tests/chroot/suite.sh parts:
#   VERSION  one per version with a whole suite (22.05 here, 24.11 in its
#            chroot; 23.11, 25.11 and 26.05 with their source, TREE or
#            SchedMD's tarball: slurm-tree.sh): build, integration (all but
#            t_memory.sh), and deb-test at the end (it installs the
#            package into the root the clusters run from, so it waits for
#            the V-side lane). Its clusters have ports (QD_PORT_MIN/MAX)
#            and job ids (QD_FIRST_JOB_ID) of their own, the side lane's
#            apart from the others'.
#   V-side   once that version's build is there: its unit tests (only
#            those that depend on Slurm where an earlier version has its
#            Debian release: QD_UNIT_SET), integration-asan, then
#            t_memory.sh (20,000 submissions, from two processes), each on
#            a cluster of its own.
#   V-deb    once that version's build is there: its package (deb-build);
#            the V lane's deb-test installs it at its end, when the root's
#            clusters are gone. Built in the side lane, it made that lane,
#            already as long as V's, 214 s longer beside the CPU load (run
#            20); built by deb-test, it was most of deb-test's time, on the
#            path every lane waits for; built in one lane for all versions,
#            one after another, the five made a chain at the run's end
#            (run 65: the first started at 2,486 s, behind the parts of
#            the first rank).
#   core     the first such version's check-core (build-test, unit-asan,
#            fuzz-smoke, docs-check), once its build is there.
#   26.05    without its source: Debian's packages, its root, node side
#            and unit tests.
#   V-vm     24.11's VM and 26.05's, at once, once every version's lane
#            has ended: qemu's TCG keeps one core busy, and beside the
#            clusters it was starved and slowed them.
# At most QD_CHECK_PARTS (4) parts run at once, builds and VMs aside, up
# to QD_CHECK_PARTS_MAX (8) while the CPU has room (take_slot); a lane
# waiting for another's mark holds no slot.
# Every part runs in a cgroup namespace of its own (cgroup-ns.sh): no
# lane's cluster sees another's cgroups, and each part's CPU is counted.
# Before them, on this host and alone: its packages (apt-get), and the
# loopback routes' quickack, set once for every cluster (QD_QUICKACK).
#
# The Debian roots (chroot.sh) and the VM images (image.sh) are kept in
# /var/cache/qosdeny, outside the checkout (QD_CHECK_CACHE), so that the
# next run, a fresh clone's included, starts from them; a run without them
# makes them (docs/development.md has both runs' times).
#
# Each lane writes its own log, $QD_RESULTS/logs/LANE.log, printed whole at
# the end in a fixed order; each part's time is printed as it ends and in
# a table, and the wall time; then tests/summary.sh's per-suite table and
# "N passed, N failed" line, make check's exit status.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
SUITE=$REPO/tests/chroot/suite.sh
results=${QD_RESULTS:?QD_RESULTS: where the counts go}
tree=$1
shift
versions=("$@")
logs=$results/logs
ready=$results/ready
rm -rf "$results"
mkdir -p "$logs" "$ready"
t_start=$EPOCHSECONDS
cache=${QD_CHECK_CACHE:-/var/cache/qosdeny}
export QD_CHROOT_BASE=${QD_CHROOT_BASE:-$cache/chroot}
export QD_VM_IMAGE_BASE=${QD_VM_IMAGE_BASE:-$cache/vm}

since() { echo $((EPOCHSECONDS - $1)); }
# nap SECONDS: the waits for a slot and for another lane's mark, a sleep
# without a process (a dozen parts wait for most of the run).
source "$REPO/tests/cluster/nap.sh"

# part LANE NAME CMD...: CMD in a cgroup namespace of its own
# (cgroup-ns.sh: the lanes' clusters never see each other's cgroups, and
# what CMD cost in CPU is counted), its output to the lane's log; its time
# printed and kept in $results/times ("LANE NAME SECONDS CPU STATUS").
export QD_CGROUP_CPU_FILE=$results/cpu

# Parts at once: at most QD_CHECK_PARTS of them, builds and VMs aside.
# Each lane's parts at once, twelve on two cores, kept the CPU busy and
# each test's waits long, and cost CPU of their own: on this host's kind
# a fork costs more the more run (system time was more than half), and
# polls, retries and the daemons' timers grew with the waits. Stop 54's
# CI spent 837 s of CPU on 22.05's integration, 523 s alone; with five
# clusters at once and the rest beside them (run 63) 24 tests took 722 s
# of CPU, 414 s alone, and five times their wall time
# (docs/development.md, "What it costs"). A part waits for a slot in
# order of its rank (the first version's side lane, then the long parts,
# then those at a lane's end and the packages), then of its asking.
#
# Beyond those, up to QD_CHECK_PARTS_MAX (8) while the CPU has room: the
# kernel's pressure figure (/proc/pressure/cpu, "some avg10": the share
# of the last 10 s in which a task waited for a CPU) under
# QD_CHECK_PRESSURE (20%), and no such extra part started in the last
# 20 s, so that the last one's own start (its cluster, MariaDB) shows in
# the figure first. Once the harness stopped walking the socket table
# (run 67), the four parts left the two cores more than half idle; on a
# host where they still fill the CPU, or without the pressure figure, no
# more than QD_CHECK_PARTS run.
parts_at_once=${QD_CHECK_PARTS:-4}
parts_most=${QD_CHECK_PARTS_MAX:-8}
slots=$results/slots
mkdir -p "$slots"
# cpu_has_room: the pressure figure is under the bound, and no extra part
# started in the last 20 s ($slots/extra holds when the last did).
cpu_has_room() {
	local last=0 pressure
	{ read -r last <"$slots/extra"; } 2>/dev/null
	[ $((EPOCHSECONDS - ${last:-0})) -ge 20 ] || return 1
	{ read -r pressure </proc/pressure/cpu; } 2>/dev/null || return 1
	[[ $pressure =~ ^some\ avg10=([0-9]+)\. ]] &&
		[ "${BASH_REMATCH[1]}" -lt "${QD_CHECK_PRESSURE:-20}" ]
}
# take_slot RANK: sets SLOT_FD, a lock on a free slot's file held open.
take_slot() {
	local me i n fd first LC_COLLATE=C
	me=wait.$1.${EPOCHREALTIME/./}.$BASHPID
	: >"$slots/$me"
	while :; do
		# The first in line, without a process: the names sort by rank,
		# then by the time of asking (16 digits).
		first=("$slots"/wait.*)
		if [ "${first[0]##*/}" = "$me" ]; then
			n=$parts_at_once
			cpu_has_room && n=$parts_most
			for ((i = 0; i < n; i++)); do
				exec {fd}>"$slots/slot.$i"
				if flock -n "$fd"; then
					rm -f "$slots/$me"
					[ "$i" -lt "$parts_at_once" ] ||
						echo "$EPOCHSECONDS" >"$slots/extra"
					SLOT_FD=$fd
					return
				fi
				exec {fd}>&-
			done
		fi
		nap 2
	done
}
# slot_rank LANE NAME: the part's rank; none for the builds and the VMs,
# which run at the start and at the end. The first version's side lane
# goes first: its integration-asan runs the core's drills too (run 68:
# 559 s, the other versions' 273 to 297 s), and the VMs wait for it.
slot_rank() {
	case $2 in
	build | vm) ;;
	integration-asan | unit)
		if [ "$1" = "${full[0]:-}-side" ]; then echo 0; else echo 1; fi
		;;
	integration | core) echo 1 ;;
	*) echo 2 ;; # integration-memory, deb-test, deb-build
	esac
}

part() {
	local lane=$1 name=$2 t0 rc=0 cg=qd-check-$1-$2 cpu rank SLOT_FD=""
	shift 2
	rank=$(slot_rank "$lane" "$name")
	[ -z "$rank" ] || take_slot "$rank"
	t0=$EPOCHSECONDS
	echo "# check: $lane: $name started at $(since "$t_start") s"
	echo "# === $lane: $name" >>"$logs/$lane.log"
	# The slot's lock is not the part's to keep: a daemon it leaves
	# behind would hold it.
	if [ -n "$SLOT_FD" ]; then
		bash "$HERE/cgroup-ns.sh" "$cg" "$@" >>"$logs/$lane.log" 2>&1 </dev/null {SLOT_FD}>&- || rc=$?
		exec {SLOT_FD}>&-
	else
		bash "$HERE/cgroup-ns.sh" "$cg" "$@" >>"$logs/$lane.log" 2>&1 </dev/null || rc=$?
	fi
	cpu=$(awk -v n="$cg" '$1 == n { c = $2 } END { print c }' "$QD_CGROUP_CPU_FILE" 2>/dev/null)
	echo "$lane $name $(since "$t0") ${cpu:--} $rc" >>"$results/times"
	echo "# check: $lane: $name took $(since "$t0") s, ${cpu:-?} s of CPU (status $rc)"
	return $rc
}

host_ver=$(bash "$REPO/tests/chroot/make-in.sh" --here)
has() {
	local v
	for v in "${versions[@]}"; do [ "$v" = "$1" ] && return 0; done
	return 1
}
# A version with a whole suite: Debian's (22.05, 24.11), and those whose
# source is there (slurm-tree.sh), on SchedMD's packages built from it. 26.05 without it has
# its node side built and tested in a lane of its own; 23.11 and 25.11 are
# skipped.
whole() {
	case $1 in 22.05 | 24.11) return 0 ;; esac
	[ -n "$(bash "$REPO/tests/chroot/slurm-tree.sh" "$1" "$tree")" ]
}

# This host's packages, before any lane: apt-get run here from two lanes
# at once would fail on its lock, and install-deps.sh stops what an
# install started, which a lane's own daemons must not be taken for.
# The host version's build and cluster (make deps), the package build of
# its deb-test (make deb), and debootstrap and qemu for the others.
host_packages() {
	local tools="" p
	for p in debootstrap qemu-system-x86 e2fsprogs reuse; do
		[ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
			tools="$tools $p"
	done
	if has "$host_ver" && whole "$host_ver"; then
		QD_EXTRA_PKGS="debhelper lintian build-essential $tools" \
			sh "$REPO/tests/cluster/install-deps.sh"
	elif [ -n "$tools" ]; then
		# shellcheck disable=SC2086
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends $tools; }
	fi
}
t0=$EPOCHSECONDS
host_packages >"$logs/host.log" 2>&1 </dev/null ||
	echo "# check: this host's packages could not all be installed ($logs/host.log)"
echo "host packages $(since "$t0") - 0" >>"$results/times"
echo "# check: this host's packages took $(since "$t0") s"

# Every cluster's Slurm RPCs on loopback without the delayed ACK's 40 ms,
# set here once rather than by each cluster (cluster.sh would put the
# routes back when one stops while another runs).
qa_routes=$results/quickack-routes
bash "$REPO/tests/cluster/cluster.sh" loopback-quickack on "$qa_routes"
trap 'bash "$REPO/tests/cluster/cluster.sh" loopback-quickack off "$qa_routes"' EXIT

# mark NAME STATUS / wait_mark NAME: one lane tells another a part is
# done (its status); the other polls for it.
mark() { echo "$2" >"$ready/$1"; }
wait_mark() {
	until [ -e "$ready/$1" ]; do nap 5; done
	return "$(cat "$ready/$1")"
}

# The versions with a whole suite, in order: the first runs the core lane
# and the drills of the core's Redis code (QD_CORE_EXTRAS).
full=()
for v in "${versions[@]}"; do whole "$v" && full+=("$v"); done
n=${#full[@]}

# slot_args K [memory]: make's words for the K-th version's clusters, or
# for its t_memory.sh's: their ports and job ids.
slot_args() {
	local k=$1 span=$((22000 / (n > 0 ? n : 1))) lo hi first
	lo=$((10000 + k * span)) hi=$((10000 + (k + 1) * span - 1))
	first=$((k * 1000000 + 1))
	if [ "${2:-}" = memory ]; then
		lo=$((lo + span / 2)) first=$((first + 500000))
	else
		hi=$((lo + span / 2 - 1))
	fi
	echo "QD_QUICKACK=0 QD_PORT_MIN=$lo QD_PORT_MAX=$hi QD_FIRST_JOB_ID=$first"
}

# A version: its build, its integration suite, then deb-test, which
# installs the package into the root its clusters run from. Its
# integration-asan runs beside, in the side lane: four clusters at once
# (two VMs beside them too, in run 2, failed timing-bound tests; polls
# since cost less, and the VMs wait).
version_lane() { # INDEX VERSION
	local i=$1 v=$2 rc=0 p
	export QD_CORE_EXTRAS=no
	[ "$i" = 0 ] && QD_CORE_EXTRAS=yes
	QD_MAKE_ARGS=$(slot_args "$i")
	export QD_MAKE_ARGS
	part "$v" build bash "$SUITE" "$v" build "$tree" || rc=$?
	mark "$v" "$rc"
	# The first version's core part shares its build directory: in this
	# lane, before the tests, where the version runs in a chroot (apt-get
	# there by its deb-test would meet the core part's Redis servers).
	if [ "$i" = 0 ] && [ "$v" != "$host_ver" ]; then
		part "$v" core bash "$SUITE" "$v" core "$tree"
	fi
	part "$v" integration bash "$SUITE" "$v" integration "$tree"
	# The package goes into the root that the side lane's clusters load
	# their plugins from (Slurm's PluginDir first).
	wait_mark "$v-side" || true
	wait_mark "$v-deb" || true
	QD_DEB_BUILT=yes part "$v" deb-test bash "$SUITE" "$v" deb-test "$tree"
}

# Beside a version's lane: its unit tests (their Redis servers on ports
# the kernel picks, above the clusters'), integration-asan, then
# t_memory.sh, each suite on a cluster of its own (build/cluster-asan,
# build/cluster-memory) with the slot's other ports and job ids.
side_lane() { # INDEX VERSION
	local i=$1 v=$2 rc=0 p k
	export QD_CORE_EXTRAS=no
	[ "$i" = 0 ] && QD_CORE_EXTRAS=yes
	# A version whose Debian release an earlier one's root has (23.11
	# 22.05's, 25.11 24.11's) runs only the unit tests that depend on
	# Slurm: the others are the same code built by the same toolchain
	# against the same libraries and Redis.
	export QD_UNIT_SET=all
	for ((k = 0; k < i; k++)); do
		[ "$(debian_release "${full[$k]}")" = "$(debian_release "$v")" ] &&
			QD_UNIT_SET=slurm
	done
	QD_MAKE_ARGS=$(slot_args "$i" memory)
	export QD_MAKE_ARGS
	wait_mark "$v" || return 0
	for p in unit integration-asan integration-memory; do
		part "$v-side" "$p" bash "$SUITE" "$v" "$p" "$tree" || rc=$?
	done
	mark "$v-side" "$rc"
}

# debian_release VERSION: the Debian release of the version's root.
debian_release() {
	local r
	r=$(bash "$REPO/tests/chroot/make-in.sh" --root "$1")
	echo "${r%-smd}"
}

# ended NAME...: the marks a lane owes, given where it did not leave them
# (a lane that stopped early), so that no other lane waits for ever.
ended() {
	local m
	for m in "$@"; do [ -e "$ready/$m" ] || mark "$m" 1; done
}

# A version's package, once its build is there (deb-build).
deb_lane() { # VERSION
	local v=$1 rc=0
	if wait_mark "$v"; then
		part "$v-deb" deb-build bash "$SUITE" "$v" deb-build "$tree" || rc=$?
	else
		rc=1
	fi
	mark "$v-deb" "$rc"
}

core_lane() {
	wait_mark "${full[0]}" || true
	part core core bash "$SUITE" "${full[0]}" core "$tree"
}

# 26.05 without a tree: its root (Debian's packages), its node side built
# and unit-tested; its VM is the 26.05-vm lane's.
deb_2605_lane() {
	local rc=0
	part 26.05 build bash "$SUITE" 26.05 build "$tree" || rc=$?
	mark 26.05 "$rc"
}

# A version's VM (24.11, 26.05), once every version's lane has ended. The
# two VMs run at once, each qemu's TCG on a core of its own; only the core
# lane may still run beside them. Started sooner, in a side lane's place
# (run 17 in docs/development.md), they were starved among the clusters
# and slowed them: beside the CPU load, 26.05's ran past its 1,200 s. Its
# guest judges its times by what it saw itself (t_v2_usage.sh), not within
# 2 s of slurmctld's, which failed whenever it shared the host with two
# clusters (runs 3 and 4).
vm_lane() { # VERSION
	local v
	for v in "${full[@]}"; do wait_mark "$v-done"; done
	wait_mark "$1" || true
	part "$1-vm" vm bash "$SUITE" "$1" vm "$tree"
}

lanes=(host)
for i in "${!full[@]}"; do
	{
		(version_lane "$i" "${full[$i]}")
		ended "${full[$i]}" "${full[$i]}-done"
	} &
	lanes+=("${full[$i]}")
	{
		(side_lane "$i" "${full[$i]}")
		ended "${full[$i]}-side"
	} &
	lanes+=("${full[$i]}-side")
	{
		(deb_lane "${full[$i]}")
		ended "${full[$i]}-deb"
	} &
	lanes+=("${full[$i]}-deb")
done
if [ "$n" -gt 0 ] && [ "${full[0]}" = "$host_ver" ]; then
	core_lane &
	lanes+=(core)
fi
# A version skipped says so (its build part: the summary's notes).
for v in 23.11 25.11; do
	if has "$v" && ! whole "$v"; then
		bash "$SUITE" "$v" build "$tree" >>"$logs/host.log" 2>&1
	fi
done
if has 26.05 && ! whole 26.05; then
	{
		(deb_2605_lane)
		ended 26.05
	} &
	lanes+=(26.05)
fi
for v in 24.11 26.05; do
	if has "$v"; then
		vm_lane "$v" &
		lanes+=("$v-vm")
	fi
done
wait

for lane in "${lanes[@]}"; do
	[ -e "$logs/$lane.log" ] || continue
	echo
	echo "# ======== lane $lane ($logs/$lane.log)"
	cat "$logs/$lane.log"
done
for v in "${versions[@]}"; do
	bash "$SUITE" "$v" counts "$tree"
done

echo
wall=$(since "$t_start")
echo "Time per part (seconds of wall time and of CPU; the lanes ran side by side):"
awk '{ printf "  %-10s %-16s %6d %6s%s\n", $1, $2, $3, $4, ($5 != 0 ? "  (status " $5 ")" : "")
	c += $4 } END { printf "  %-27s %6s %6d\n", "CPU of all parts", "", c }' "$results/times"
echo "make check took $wall s of wall time, of $(($(nproc) * wall)) s of CPU on $(nproc) cores" \
	"(budget: 2,700 s of wall time, docs/development.md)"
sh "$REPO/tests/summary.sh" "$results"
