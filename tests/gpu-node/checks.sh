#!/usr/bin/env bash
# The GPU node's checks, inside the runtime's chroot as root (run.sh): Slurm
# 24.11 on cgroup/v2 with the qosdeny package's spank_qosdeny.so, beside
# task/none and task/cgroup with ConstrainDevices=no and =yes.
#
# - Binding: a task may open its step's GPUs (/dev/nvidiaN) and no other,
#   a step with --gres=none inside a GPU allocation none.
# - CUDA through libcuda (qd-cuda-probe) and nvidia-smi, where the host's
#   driver was copied in (QD_GPU_NO_CUDA says why not): a job with
#   --gres=gpu:1 gets a context and an allocation; a job without GPUs and a
#   --gres=none step get CUDA_ERROR_NO_DEVICE (100) and "No devices were
#   found".
# - scancel and the time limit leave the node idle, not drained, no `Kill
#   task failed`, no cgroup of qosdeny's or of the job's left.
# - Launch cost of `srun -n1 true` with and without the plugin, interleaved
#   rounds in this one run (QD_GPU_ROUNDS of QD_GPU_JOBS each), medians.
export QD_CLUSTER_DIR=/var/lib/qd
export SLURM_CONF=$QD_CLUSTER_DIR/etc/slurm.conf
source /qosdeny/tests/integration/lib.sh
NODESH=/qosdeny/tests/gpu-node/node.sh
SLURMD_LOG=$QD_CLUSTER_DIR/log/slurmd.log
CG=/sys/fs/cgroup
ROUNDS=${QD_GPU_ROUNDS:-3}
JOBS=${QD_GPU_JOBS:-15}

skip() { echo "skip - $*"; }
node_state() { scontrol show node "$NODE" | sed -n 's/.* State=\([^ ]*\).*/\1/p'; }
node_idle() { [ "$(node_state)" == IDLE ]; }
node_settled() { node_idle || [[ $(node_state) == *DRAIN* ]]; }
job_gone() { [ -z "$(squeue -h -j "$1" 2>/dev/null)" ]; }
job_pids() { grep -lzx "SLURM_JOB_ID=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3; }
no_job_pids() { [ -z "$(job_pids "$1")" ]; }
has_job_pids() { [ -n "$(job_pids "$1")" ]; }
leftovers() { find "$CG" -type d \( -name 'qosdeny_*' -o -name "job_$1" \) 2>/dev/null; }
no_leftovers() { [ -z "$(leftovers "$1")" ]; }
log_mark() { MARK=$(wc -l <"$SLURMD_LOG"); }

# PROBE: run as a task, prints "gpus=IDS 0=R 1=R..." for each
# /dev/nvidiaN, R "open" (allowed: a real GPU opens, a fake one, with no
# driver behind it, gives ENXIO) or "EPERM" (denied by a device program).
PROBE=$QD_CLUSTER_DIR/dev-probe.sh
mkdir -p "$QD_CLUSTER_DIR"
# shellcheck disable=SC2016
echo 'l="gpus=${SLURM_STEP_GPUS-${SLURM_JOB_GPUS-}}"
for d in /dev/nvidia[0-9]*; do
	e=$( (exec 3<"$d") 2>&1)
	case $e in "" | *"No such device"*) r=open ;; *"not permitted"*) r=EPERM ;; *) r="OTHER($e)" ;; esac
	l="$l ${d#/dev/nvidia}=$r"
done
echo "$l"' >"$PROBE"

# batch ARGS...: alice's batch job, waited for; sets OUT to its output.
batch() {
	local out=$QD_CLUSTER_DIR/users/alice/batch.out
	rm -f "$out"
	as alice sbatch --wait -A research -o "$out" "$@"
	OUT=$(cat "$out" 2>/dev/null)
}

# devs_of OUTPUT: the probe's line without its gpus= field.
devs_of() { printf '%s\n' "$1" | sed -n 's/^gpus=[^ ]* //p' | head -n 1; }

# expected_devs GPUS: that line for a step that may open GPUS (0,1...).
expected_devs() {
	local d i l=""
	for d in /dev/nvidia[0-9]*; do
		i=${d#/dev/nvidia}
		if [[ ",$1," == *",$i,"* ]]; then l+=" $i=open"; else l+=" $i=EPERM"; fi
	done
	echo "${l# }"
}

# check_devs WHAT OUTPUT: the step opens its own GPUs (the probe's gpus=)
# and no other.
check_devs() {
	local gpus
	gpus=$(printf '%s\n' "$2" | sed -n 's/^gpus=\([^ ]*\).*/\1/p' | head -n 1)
	assert_eq "$1" "$(expected_devs "$gpus")" "$(devs_of "$2")"
}

# CUDA_PROBE: the probe with every GPU of the node in sight, as a task that
# ignores Slurm's CUDA_VISIBLE_DEVICES would have it: only the binding
# stands between the task and the GPUs it was not given.
CUDA_PROBE="env -u CUDA_VISIBLE_DEVICES qd-cuda-probe"

# cuda_checks NAME: CUDA and nvidia-smi in a job with a GPU, without one,
# and in a --gres=none step of a GPU allocation.
cuda_checks() {
	if [ -n "${QD_GPU_NO_CUDA:-}" ]; then
		skip "$1: CUDA and nvidia-smi: $QD_GPU_NO_CUDA"
		return
	fi
	as alice srun -A research --gres=gpu:1 $CUDA_PROBE
	assert_eq "$1: --gres=gpu:1: a CUDA context and an allocation" \
		"cuInit=0 devices=1 ctx=0 alloc=0" "$OUT"
	as alice srun -A research --gres=gpu:1 nvidia-smi -L
	assert_contains "$1: --gres=gpu:1: nvidia-smi lists the GPU" "GPU 0:" "$OUT"
	as alice srun -A research $CUDA_PROBE
	assert_eq "$1: no GPU: cuInit gives CUDA_ERROR_NO_DEVICE" "cuInit=100" "$OUT"
	as alice srun -A research nvidia-smi -L
	assert_contains "$1: no GPU: nvidia-smi finds none" "No devices" "$OUT"
	as alice salloc -A research --gres=gpu:1 srun --gres=none $CUDA_PROBE
	assert_contains "$1: --gres=none step of a GPU allocation: CUDA_ERROR_NO_DEVICE" \
		"cuInit=100" "$OUT"
	as alice salloc -A research --gres=gpu:1 srun --gres=none nvidia-smi -L
	assert_contains "$1: --gres=none step of a GPU allocation: nvidia-smi finds none" \
		"No devices" "$OUT"
	batch --gres=gpu:1 --wrap "$CUDA_PROBE; srun --gres=none $CUDA_PROBE"
	assert_eq "$1: batch step with a GPU: CUDA; its --gres=none step: none" \
		"$(printf 'cuInit=0 devices=1 ctx=0 alloc=0\ncuInit=100')" "$OUT"
}

# sbatch_running ARGS...: alice's batch job, once its task runs; prints the id.
sbatch_running() {
	local id
	as alice sbatch --parsable -A research "$@"
	id=${OUT%%;*}
	if [ "$RC" -ne 0 ] || ! wait_for "job $id's task" 60 has_job_pids "$id"; then
		echo "# job did not start: $OUT" >&2
		return 1
	fi
	echo "$id"
}

# ended_cleanly WHAT JOB: the job ended as it would without qosdeny: gone
# from the queue, its processes gone, the node idle (never drained), no
# `Kill task failed` in slurmd's log since log_mark, no cgroup left. A
# failed case is recovered from as an administrator would, so the next
# starts clean.
ended_cleanly() {
	local what=$1 job=$2 p d
	check "$what: job $job left the queue" wait_for "job $job to end" 90 job_gone "$job"
	wait_for "node idle or drained" 60 node_settled
	check "$what: the job's processes are gone" \
		wait_for "job $job's processes to end" 5 no_job_pids "$job"
	check "$what: the node is idle again" node_idle
	assert_not_contains "$what: node not drained" DRAIN "$(node_state)"
	assert_eq "$what: no 'Kill task failed' in slurmd's log" "" \
		"$(tail -n +$((MARK + 1)) "$SLURMD_LOG" |
			grep -e 'Kill task failed' -e 'NOT ENDING WITH SIGNALS')"
	wait_for "job $job's cgroups to go" 10 no_leftovers "$job" 2>/dev/null
	assert_eq "$what: no cgroup of qosdeny's or of job $job left" "" "$(leftovers "$job")"
	for p in $(job_pids "$job"); do kill -9 "$p" 2>/dev/null; done
	for d in $(leftovers "$job" | sort -r); do rmdir "$d" 2>/dev/null; done
	if [[ $(node_state) == *DRAIN* ]]; then
		wait_for "the node's steps to end" 60 node_settled
		scontrol update nodename="$NODE" state=resume
		wait_for "node idle after resume" 30 node_idle
	fi
}

# launch_cost: interleaved rounds of JOBS `srun -n1 true` each, without and
# with the plugin, beside task/none; milliseconds per job, medians.
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
launch_cost() {
	local r i mode t0 failed=0
	: >/tmp/launch.off
	: >/tmp/launch.on
	for ((r = 1; r <= ROUNDS; r++)); do
		for mode in off on; do
			bash "$NODESH" plugin "$mode"
			for ((i = 0; i < JOBS; i++)); do
				t0=$(date +%s%N)
				as alice srun -A research -n1 true
				[ "$RC" -eq 0 ] || failed=$((failed + 1))
				echo $((($(date +%s%N) - t0) / 1000000)) >>/tmp/launch.$mode
			done
		done
	done
	bash "$NODESH" plugin on
	assert_eq "launch: every srun -n1 true ran" 0 "$failed"
	off=$(median </tmp/launch.off)
	on=$(median </tmp/launch.on)
	echo "# launch cost, srun -n1 true, $ROUNDS rounds of $JOBS: without the plugin $off ms, with it $on ms (median)"
	echo "gpu-node launch-ms $off $on $ROUNDS $JOBS" >>"$QD_RESULTS/launch"
}

bash "$NODESH" up || {
	fail "munged and Redis up"
	finish
	exit 1
}
. "$QD_CLUSTER_DIR/node.env"
echo "# node $NODE ($ADDR), $(nproc) CPUs, GPUs: $(echo /dev/nvidia[0-9]*), kernel $(uname -r)"

for setting in "task/none no" "task/cgroup no" "task/cgroup yes"; do
	read -r tp cd <<<"$setting"
	name="$tp ConstrainDevices=$cd"
	echo "# ---- $name"
	check "$name: Slurm up" bash "$NODESH" start "$tp" "$cd" || continue

	as alice srun -A research --gres=gpu:1 bash "$PROBE"
	check_devs "$name: srun --gres=gpu:1 opens its GPU only" "$OUT"
	as alice srun -A research bash "$PROBE"
	assert_eq "$name: a job without GPUs opens none" "$(expected_devs "")" "$(devs_of "$OUT")"
	as alice salloc -A research --gres=gpu:1 srun --gres=none bash "$PROBE"
	assert_eq "$name: a --gres=none step of a GPU allocation opens none" \
		"$(expected_devs "")" "$(devs_of "$OUT")"
	batch --gres=gpu:1 --wrap "bash $PROBE"
	check_devs "$name: a batch step with a GPU opens its GPU only" "$OUT"
	batch --gres=gpu:1 --wrap "srun --gres=none bash $PROBE"
	assert_eq "$name: a --gres=none step of a batch job opens none" \
		"$(expected_devs "")" "$(devs_of "$OUT")"
	cuda_checks "$name"

	# The time limit: the job's end moved to now (as --time would at its
	# limit, without waiting a minute); slurmctld ends it at its next time
	# limit check, within 30 s.
	log_mark
	j=$(sbatch_running --gres=gpu:1 --wrap 'sleep 300')
	scontrol update jobid="$j" EndTime=now+1
	ended_cleanly "$name, time limit" "$j"
	check "$name, time limit: job $j ended by it" \
		bash -c "scontrol show job $j | grep -q ' JobState=TIMEOUT '"

	log_mark
	j=$(sbatch_running --gres=gpu:1 --wrap 'sleep 300')
	scancel "$j"
	ended_cleanly "$name, scancel" "$j"
done

echo "# ---- launch cost, task/none"
if check "launch: Slurm up, task/none" bash "$NODESH" start task/none no; then
	# Without the plugin a job without GPUs opens them all: the toggle
	# really takes the plugin out of the launch.
	bash "$NODESH" plugin off
	as alice srun -A research bash "$PROBE"
	assert_eq "launch: without the plugin a job without GPUs opens them" \
		"$(expected_devs "$(seq -s, 0 99)")" "$(devs_of "$OUT")"
	if [ -z "${QD_GPU_NO_CUDA:-}" ]; then
		as alice srun -A research $CUDA_PROBE
		assert_eq "launch: without the plugin a job without GPUs runs CUDA" \
			"cuInit=0 devices=$(expected_devs "" | wc -w) ctx=0 alloc=0" "$OUT"
	fi
	launch_cost
fi
bash "$NODESH" down
finish
