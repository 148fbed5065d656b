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

# batch JOB-OPTIONS...: runs the probe as a batch script, prints its output.
batch() {
	local out=$QD_CLUSTER_DIR/users/alice/probe-$RANDOM.out id
	as alice sbatch --parsable -o "$out" "$@" --wrap "$PROBE"
	id=$OUT
	wait_for "batch job $id" 30 job_done "$id"
	cat "$out"
}

