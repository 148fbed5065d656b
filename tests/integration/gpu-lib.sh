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
	local what=$1 n=$2 lines=() l m node step
	while IFS= read -r l; do
		[[ $l == node=* ]] && lines+=("$l")
	done <<<"$3"
	assert_eq "$what: $n task(s) reported" "$n" "${#lines[@]}"
	for l in "${lines[@]}"; do
		node=${l%% *}
		step=""
		for m in "${lines[@]}"; do
			[[ $m == "$node "* ]] || continue
			[[ $m =~ gpus=([^ ]*) ]] && m=${BASH_REMATCH[1]}
			step+=${step:+,}$m
		done
		assert_eq "$what: $l" "$(expected "$l" "$step")" "$l"
	done
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

# Shared GPUs (t_gpu_mps.sh, t_gpu_shard.sh): every GPU shared, NAME
# (mps or shard), SMALL a part of one GPU's count and WHOLE all of it;
# share_gpus WHAT NAME SMALL WHOLE runs each shape of job, every step of
# it to open exactly one GPU on each of its nodes, as WHAT.

# one_gpu WHAT N: N probe lines in OUT, each naming exactly one GPU and
# opening that one alone (check_lines).
one_gpu() {
	local l
	while IFS= read -r l; do
		[[ $l == node=* ]] || continue
		[[ $l =~ \ gpus=[0-9]+\  ]] ||
			fail "$1: a share is of one GPU: $l"
	done <<<"$OUT"
	check_lines "$1" "$2" "$OUT"
}

# array_out JOB-OPTIONS...: the probe as a job array of two tasks, run to
# their end; prints the files of their output, one a line. Each task is a
# job of its own: its step's GPUs are its own (check_lines takes the lines
# of one node for one step's).
array_out() {
	local dir=$QD_CLUSTER_DIR/users/alice id
	as alice sbatch --parsable --array=0-1 -o "$dir/share-%A_%a.out" "$@" \
		--wrap "$PROBE"
	id=$OUT
	wait_for "array job $id" 60 job_done "$id"
	echo "$dir/share-${id}_0.out"
	echo "$dir/share-${id}_1.out"
}

share_gpus() {
	local what=$1 g=$2 small=$3 whole=$4 hold f files
	as alice srun -w n2 --gres="$g:$small" $PROBE
	one_gpu "$what, srun --gres=$g:$small" 1
	OUT=$(batch -w n2 --gres="$g:$whole")
	one_gpu "$what, batch step, --gres=$g:$whole" 1
	as alice salloc -w n2 --gres="$g:$small" srun $PROBE
	one_gpu "$what, salloc + srun, --gres=$g:$small" 1
	mapfile -t files < <(array_out -w n2 --gres="$g:$whole")
	for f in "${files[@]}"; do
		OUT=$(cat "$f")
		one_gpu "$what, a job array's task, --gres=$g:$whole" 1
	done
	# Three whole GPUs held: the share comes from the fourth.
	hold=$(submit_running alice -w n2 --gres=gpu:3)
	as alice srun -w n2 --gres="$g:$small" $PROBE
	assert_contains "$what, a share beside 3 GPUs held: Slurm gives GPU 3" \
		"gpus=3 " "$OUT"
	one_gpu "$what, a share beside 3 GPUs held" 1
	scancel "$hold"
	wait_for "job $hold to end" 60 job_done "$hold"
	as alice srun -N2 -w n1,n2 --gres="$g:$small" $PROBE
	one_gpu "$what, a job on both nodes, --gres=$g:$small a node" 2
}

# add_gres_type: slurm.conf with the GRES type the QD_*_GRES variable adds.
# A running slurmd cannot change its GRES plugins, which slurmctld's
# restart asks of it (a reconfigure), and slurmctld refuses a slurmd with
# less of a GRES than its slurm.conf says (INVAL): slurmd first, then both
# as usual. (Taking it away, slurmctld first does.)
add_gres_type() {
	bash "$QD_ROOT/tests/cluster/cluster.sh" write-conf >/dev/null &&
		{ bash "$QD_ROOT/tests/cluster/cluster.sh" restart-slurmd \
			>/dev/null 2>&1 || true; } &&
		reconfigure_nodes
}

# share_lines NAME COUNT: gres.conf's lines giving each GPU of both nodes
# COUNT of NAME (File= per GPU).
share_lines() {
	local i
	for i in 0 1 2 3 4 5 6 7; do
		echo "NodeName=n$((i / 4 + 1)) Name=$1 Count=$2 File=$QD_DEV_DIR/nvidia$i"
	done
}

# share_test NAME COUNT SMALL WHOLE VAR: the whole of a shared-GPU test.
# Each node's four GPUs get COUNT of NAME each in gres.conf (File= per GPU)
# and slurm.conf (VAR=yes: tests/cluster/cluster.sh); the shapes run under
# Slurm's ConstrainDevices alone (the oracle), beside qosdeny, under
# qosdeny alone and with its v2 device program; then the nodes are put
# back.
share_test() {
	local g=$1 small=$3 whole=$4 var=$5 gres=$QD_SLURM_ETC/gres.conf
	cp "$gres" "$gres.orig"
	share_lines "$g" "$2" >>"$gres"
	export "$var=yes"
	task_cgroup_on "$g on both nodes, beside task/cgroup with ConstrainDevices=yes" \
		add_gres_type
	shapes() { share_gpus "$1" "$g" "$small" "$whole"; }
	against_slurm shapes
	task_cgroup_off "$g on task/none"
	as alice srun -w n2 --gres="$g:$small" $PROBE
	assert_contains "without qosdeny, task/none confines nothing" \
		"0=ENXIO 1=ENXIO 2=ENXIO 3=ENXIO" "$OUT"
	echo "required spank_qosdeny.so" >"$PLUGSTACK"
	shapes "qosdeny alone"
	echo "required spank_qosdeny.so cgroup=v2" >"$PLUGSTACK"
	as alice srun -w n2 --gres="$g:$small" $PROBE
	one_gpu "qosdeny alone, cgroup v2 device program, --gres=$g:$small" 1

	: >"$PLUGSTACK"
	unset "$var"
	mv -f "$gres.orig" "$gres"
	check "the nodes have their whole GPUs alone again" reconfigure_nodes
	remove_slurm_cgroups
}
