#!/usr/bin/env bash
# make bench, part 2: what spank_qosdeny.so adds to a task launch. On one
# throwaway cluster, in one run, `srun -n 1 --gres=gpu:1 true` is timed
# RUNS times with plugstack.conf empty and RUNS times with the plugin,
# alternating so that drift hits both alike; the medians and their
# difference go to tests/bench/launch.txt.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/integration/lib.sh"
source "$here/integration/example-policy.sh"
source "$here/integration/cluster-up.sh"
RUNS=${RUNS:-40}
out=$here/bench/launch.txt
trap cluster_down EXIT
cluster_up >/dev/null || exit 1
plugstack=$QD_SLURM_ETC/plugstack.conf

# one_run: milliseconds of one srun as alice.
one_run() {
	local t0 t1
	t0=$(date +%s%N)
	as alice srun -n 1 --gres=gpu:1 true
	t1=$(date +%s%N)
	[ "$RC" -eq 0 ] || { echo "bench: srun failed: $OUT" >&2; exit 1; }
	echo $(((t1 - t0) / 1000))
}

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

without=() with=()
one_run >/dev/null # warm-up: first launch pays for caches
for ((i = 0; i < RUNS; i++)); do
	: >"$plugstack"
	without+=("$(one_run)")
	echo "required spank_qosdeny.so" >"$plugstack"
	with+=("$(one_run)")
done
m0=$(printf '%s\n' "${without[@]}" | median)
m1=$(printf '%s\n' "${with[@]}" | median)
{
	echo "# srun -n 1 --gres=gpu:1 true, $RUNS runs each, alternating, one cluster"
	echo "# (2 slurmd on this host, task/none, cgroup v1 devices); microseconds"
	printf '%-24s %s\n' "plugstack" "median_us"
	printf '%-24s %s\n' "empty" "$m0"
	printf '%-24s %s\n' "spank_qosdeny.so" "$m1"
	printf '%-24s %s\n' "added_per_launch" "$(awk -v a="$m1" -v b="$m0" 'BEGIN { print a - b }')"
} | tee "$out"
