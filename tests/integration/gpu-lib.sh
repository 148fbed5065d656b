# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the GPU binding tests (bash, sourced after lib.sh).
PROBE="$QD_ROOT/tests/integration/gpu-probe.sh $QD_DEV_DIR"
PLUGSTACK=$QD_SLURM_ETC/plugstack.conf

# expected LINE ALLOWED: the line the probe must print when the step owns
# the node's GPUs ALLOWED (comma list of indices).
expected() {
	local out=${1%% 0=*} idx
	for idx in 0 1 2 3; do
		if [[ ",$2," == *",$idx,"* ]]; then out+=" $idx=ENXIO"; else out+=" $idx=EPERM"; fi
	done
	echo "$out"
}

# check_lines WHAT N OUTPUT: N probe lines, each as expected. A task's own
# gpus= may be a part of its step's (--gpus-per-task binds each task to
# some): the step owns what its tasks on that node report together.
check_lines() {
	local what=$1 n=$2 lines l node step
	lines=$(printf '%s\n' "$3" | grep '^node=')
	assert_eq "$what: $n task(s) reported" "$n" "$(printf '%s\n' "$lines" | grep -c .)"
	while IFS= read -r l; do
		[ -n "$l" ] || continue
		node=${l%% *}
		step=$(printf '%s\n' "$lines" | grep "^$node " |
			sed 's/.*gpus=\([^ ]*\).*/\1/' | paste -sd,)
		assert_eq "$what: $l" "$(expected "$l" "$step")" "$l"
	done <<<"$lines"
}

job_done() { [ -z "$(squeue -h -j "$1" 2>/dev/null)" ]; }

# batch_of PROBE JOB-OPTIONS...: runs PROBE as a batch script, prints its
# output; batch: the GPU probe.
batch_of() {
	local probe=$1 out=$QD_CLUSTER_DIR/users/alice/probe-$RANDOM.out id
	shift
	as alice sbatch --parsable -o "$out" "$@" --wrap "$probe"
	id=$OUT
	wait_for "batch job $id" 30 job_done "$id"
	cat "$out"
}
batch() { batch_of "$PROBE" "$@"; }

# reconfigure_nodes: slurm.conf written again (QD_TASKPLUGIN, QD_PROCTRACK
# and the like: tests/cluster/cluster.sh), slurmctld and slurmd restarted.
reconfigure_nodes() {
	bash "$QD_ROOT/tests/cluster/cluster.sh" write-conf >/dev/null &&
		bash "$QD_ROOT/tests/cluster/cluster.sh" restart-ctld >/dev/null &&
		bash "$QD_ROOT/tests/cluster/cluster.sh" restart-slurmd >/dev/null
}

# task_cgroup_on WHAT [HOW]: the nodes on task/cgroup with
# ConstrainDevices=yes, Slurm's own device confinement; HOW restarts them
# (default reconfigure_nodes), checked as WHAT.
task_cgroup_on() {
	printf 'CgroupPlugin=cgroup/v1\nConstrainDevices=yes\n' \
		>"$QD_SLURM_ETC/cgroup.conf"
	export QD_TASKPLUGIN=task/cgroup QD_PROCTRACK=proctrack/cgroup
	check "$1" "${2:-reconfigure_nodes}"
}

# task_cgroup_off WHAT: the nodes back on task/none, plugstack.conf empty.
task_cgroup_off() {
	: >"$PLUGSTACK"
	unset QD_TASKPLUGIN QD_PROCTRACK
	rm -f "$QD_SLURM_ETC/cgroup.conf"
	check "$1" reconfigure_nodes
}

# against_slurm SHAPES: the function SHAPES, given what it runs under, on
# task/cgroup: under Slurm's ConstrainDevices alone (the oracle), then
# beside qosdeny.
against_slurm() {
	: >"$PLUGSTACK"
	"$1" "Slurm's ConstrainDevices alone"
	echo "required spank_qosdeny.so" >"$PLUGSTACK"
	"$1" "ConstrainDevices and qosdeny"
}

# Slurm's task/cgroup leaves its (empty) per-node cgroup trees behind once
# the nodes are back on task/none: removed.
remove_slurm_cgroups() {
	local d
	for d in /sys/fs/cgroup/*/slurm_n1 /sys/fs/cgroup/*/slurm_n2; do
		[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	return 0
}

