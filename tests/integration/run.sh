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
# blank-separated: asan.sh's). QD_CORE_EXTRAS=no (make check, every Slurm
# version after the first) skips the Sentinel failover drill too
# (t_redis_failover.sh, 100 s): what it drills is the core's Redis client,
# the same on every version.
skip=" ${QD_SKIP:-} "
[ "${QD_CORE_EXTRAS:-yes}" = no ] && skip+="t_redis_failover.sh "
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
	for t in "$here"/t_*.sh; do
		case $skip in *" $(basename "$t") "*) continue ;; esac
		tests+=("$t")
	done
fi

if ! cluster_up || ! example_qos; then
	echo "integration: the test cluster did not come up" >&2
	echo "${QD_SUITE:-integration} cluster-start 0 1" >>"$QD_RESULTS/counts"
	exit 1
fi

rc=0
for t in "${tests[@]}"; do
	echo "# --- $(basename "$t")"
	t0=$(date +%s)
	write_policy "$EXAMPLE_POLICY"
	bash "$t" || rc=1
	echo "# $(basename "$t") took $(($(date +%s) - t0)) s"
done
exit $rc
