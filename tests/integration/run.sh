#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The integration suite: one real cluster (munged, MariaDB, slurmdbd,
# slurmctld with job_submit/qosdeny, two slurmd) for every t_*.sh, started
# here and stopped here whatever happens. Usage: run.sh [t_NAME.sh...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/example-policy.sh"
source "$here/cluster-up.sh"
trap cluster_down EXIT

# Without arguments, every t_*.sh but those QD_SKIP names (file names,
# blank-separated: make check's integration part leaves t_memory.sh to a
# part of its own), and with QD_SPLIT=asan only those integration-asan runs,
# with QD_SPLIT=plain only the others (split.sh). QD_CORE_EXTRAS=no (make
# check, every Slurm version after the first) skips the Sentinel failover
# drill too (t_redis_failover.sh, 100 s): what it drills is the core's Redis
# client, the same on every version.
source "$here/split.sh"
skip=" ${QD_SKIP:-} "
[ "${QD_CORE_EXTRAS:-yes}" = no ] && skip+="t_redis_failover.sh "
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
	for t in "$here"/t_*.sh; do
		n=${t##*/}
		case $skip in *" $n "*) continue ;; esac
		case ${QD_SPLIT:-} in
		asan) under_asan "$n" || continue ;;
		plain) ! under_asan "$n" || continue ;;
		esac
		tests+=("$t")
	done
fi

if ! cluster_up || ! example_qos; then
	echo "integration: the test cluster did not come up" >&2
	echo "${QD_SUITE:-integration} cluster-start 0 1" >>"$QD_RESULTS/counts"
	exit 1
fi

# part_cpu_ms: the CPU time, in ms, of every process of this part so far
# (its cluster's daemons and jobs included), where make check runs it as
# the root of a cgroup namespace of its own (tests/check/cgroup-ns.sh);
# nothing elsewhere, where the cgroup would hold other work too.
part_cpu_ms() {
	[ -z "$(cut -d: -f3 /proc/self/cgroup | grep -vx /)" ] || return 0
	if [ -r /sys/fs/cgroup/cpuacct/cpuacct.usage ]; then
		awk '{ printf "%d\n", $1 / 1e6 }' /sys/fs/cgroup/cpuacct/cpuacct.usage
	elif [ -r /sys/fs/cgroup/cpu.stat ]; then
		awk '$1 == "usage_usec" { printf "%d\n", $2 / 1e3 }' /sys/fs/cgroup/cpu.stat
	fi
}

rc=0
for t in "${tests[@]}"; do
	echo "# --- $(basename "$t")"
	t0=$(date +%s)
	c0=$(part_cpu_ms)
	write_policy "$EXAMPLE_POLICY"
	bash "$t" || rc=1
	c1=$(part_cpu_ms)
	echo "# $(basename "$t") took $(($(date +%s) - t0)) s${c0:+${c1:+, $(((c1 - c0) / 1000)) s of CPU}}"
done
exit $rc
