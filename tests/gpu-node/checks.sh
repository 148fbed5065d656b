#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The GPU node's checks, inside the runtime's chroot as root (run.sh): the
# runtime's Slurm (24.11 or 26.05) on cgroup/v2 with this checkout's
# spank_qosdeny.so, beside task/none and task/cgroup with
# ConstrainDevices=no and =yes.
#
# - Binding: a task may open its step's GPUs (/dev/nvidiaN) and no other,
#   a step with --gres=none inside a GPU allocation none.
# - CUDA through libcuda (qd-cuda-probe) and nvidia-smi, where the host's
#   driver was copied in (QD_GPU_NO_CUDA says why not): a job with
#   --gres=gpu:1 gets a context and an allocation; a job without GPUs and a
#   --gres=none step get CUDA_ERROR_NO_DEVICE (100) and "No devices were
#   found".
# - Ending, of jobs whose tasks the plugin binds (none of the GPUs, and
#   where the node has several, one of them): scancel, the time limit,
#   srun's interrupt and a signal (scancel -s USR1) the task's trap gets
#   leave the node idle, not drained, no `Kill task failed`, no cgroup of
#   qosdeny's and none of the job's left.
# - Launch cost, where QD_GPU_LAUNCH is set (launch.sh): a whole job with
#   the plugin, beside a do-nothing plugin and none.
#
# What a task printed is compared on its own (srun --quiet, stdout apart
# from stderr): srun's and salloc's own lines ("job 8 queued and waiting
# for resources") are no part of it.
# shellcheck disable=SC2086 # SRUN, CUDA_PROBE and a job's GRES: word lists
export QD_CLUSTER_DIR=/var/lib/qd
export SLURM_CONF=$QD_CLUSTER_DIR/etc/slurm.conf
source /qosdeny/tests/integration/lib.sh
source /qosdeny/tests/vm/signalled.sh
source /qosdeny/tests/gpu-node/launch.sh
NODESH=/qosdeny/tests/gpu-node/node.sh
SLURMD_LOG=$QD_CLUSTER_DIR/log/slurmd.log
ALICE=$QD_CLUSTER_DIR/users/alice
CG=/sys/fs/cgroup

skip() { echo "skip - $*"; }
node_state() { scontrol show node "$NODE" | sed -n 's/.* State=\([^ ]*\).*/\1/p'; }
node_idle() { [ "$(node_state)" == IDLE ]; }
node_settled() { node_idle || [[ $(node_state) == *DRAIN* ]]; }
node_drained() { [ "$(node_state)" == IDLE+DRAIN ]; }
job_gone() { [ -z "$(squeue -h -j "$1" 2>/dev/null)" ]; }
job_state_is() { scontrol show job "$1" 2>/dev/null | grep -q " JobState=$2 "; }
job_pids() { grep -lzx "SLURM_JOB_ID=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3; }
no_job_pids() { [ -z "$(job_pids "$1")" ]; }
has_job_pids() { [ -n "$(job_pids "$1")" ]; }
# has_step JOB: a task of the job's first srun step runs.
has_step() {
	local p
	for p in $(job_pids "$1"); do
		grep -qzx SLURM_STEP_ID=0 "/proc/$p/environ" 2>/dev/null && return 0
	done
	return 1
}
gone_pid() { ! kill -0 "$1" 2>/dev/null; }
log_mark() { MARK=$(wc -l <"$SLURMD_LOG"); }

# scope_dirs: every cgroup under the one slurmd keeps its slurmstepds in
# (IgnoreSystemd=yes: system.slice/slurmstepd.scope, NODE_slurmstepd.scope
# where Slurm is built for several slurmd per host). Each job's cgroups are
# in a directory of its own there, job_N on 24.11 and named by the job's
# SLUID on 26.05, so none is looked for by name: whatever was not there
# before the first job (SCOPE_BEFORE) is left over. Not the scope's
# system/, where the first slurmstepd puts itself and which stays.
scope_dirs() {
	find "$CG" -type d -path '*slurmstepd.scope/*' 2>/dev/null |
		grep -v 'slurmstepd\.scope/system$' | sort
}

# leftovers: the cgroups of qosdeny anywhere under /sys/fs/cgroup, and any
# under the slurmstepd scope that was not there before the first job, each
# only where its parent is not listed. Each ending check runs with no other
# job on the node.
leftovers() {
	{
		find "$CG" -type d -name 'qosdeny_*' 2>/dev/null
		comm -13 <(printf '%s\n' "${SCOPE_BEFORE:-}") <(scope_dirs)
	} | sort -u | awk 'NF { d[$0] = 1; l[++n] = $0 }
		END { for (i = 1; i <= n; i++) { p = l[i]; sub("/[^/]*$", "", p); if (!(p in d)) print l[i] } }'
}
no_leftovers() { [ -z "$(leftovers)" ]; }

# run_as USER CMD...: as lib.sh's `as`, but OUT is the command's stdout
# alone and ERR its stderr, so that what a task printed is compared without
# srun's or salloc's own lines.
run_as() {
	OUT=$(timeout -k 10 "${QD_CLIENT_TIMEOUT:-300}" \
		bash "$QD_ROOT/tests/cluster/as-user.sh" "$@" 2>/tmp/run_as.err)
	RC=$?
	ERR=$(cat /tmp/run_as.err)
}
SRUN="srun --quiet -A research"

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

# batch ARGS...: alice's batch job, waited for; sets OUT to its output,
# its stderr (srun's lines, the job's errors) apart.
batch() {
	local out=$ALICE/batch.out err=$ALICE/batch.err
	rm -f "$out" "$err"
	as alice sbatch --wait -A research -o "$out" -e "$err" "$@"
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
	run_as alice $SRUN --gres=gpu:1 $CUDA_PROBE
	assert_eq "$1: --gres=gpu:1: a CUDA context and an allocation" \
		"cuInit=0 devices=1 ctx=0 alloc=0" "$OUT"
	run_as alice $SRUN --gres=gpu:1 nvidia-smi -L
	assert_contains "$1: --gres=gpu:1: nvidia-smi lists the GPU" "GPU 0:" "$OUT"
	run_as alice $SRUN $CUDA_PROBE
	assert_eq "$1: no GPU: cuInit gives CUDA_ERROR_NO_DEVICE" "cuInit=100" "$OUT"
	run_as alice $SRUN nvidia-smi -L
	assert_contains "$1: no GPU: nvidia-smi finds none" "No devices" "$OUT$ERR"
	run_as alice salloc -A research --gres=gpu:1 srun --quiet --gres=none $CUDA_PROBE
	assert_eq "$1: --gres=none step of a GPU allocation: CUDA_ERROR_NO_DEVICE" \
		"cuInit=100" "$OUT"
	run_as alice salloc -A research --gres=gpu:1 srun --quiet --gres=none nvidia-smi -L
	assert_contains "$1: --gres=none step of a GPU allocation: nvidia-smi finds none" \
		"No devices" "$OUT$ERR"
	batch --gres=gpu:1 --wrap "$CUDA_PROBE; srun --quiet --gres=none $CUDA_PROBE"
	assert_eq "$1: batch step with a GPU: CUDA; its --gres=none step: none" \
		"$(printf 'cuInit=0 devices=1 ctx=0 alloc=0\ncuInit=100')" "$OUT"
}

# sbatch_running ARGS...: alice's batch job, once the task of its first
# srun step runs; prints the id.
sbatch_running() {
	local id
	as alice sbatch --parsable -A research "$@"
	id=${OUT%%;*}
	if [ "$RC" -ne 0 ] || ! wait_for "job $id's srun step" 60 has_step "$id"; then
		echo "# job did not start: $OUT" >&2
		[ "$RC" -ne 0 ] || scancel "$id"
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
	local what=$1 job=$2 p d left
	check "$what: job $job left the queue" wait_for "job $job to end" 90 job_gone "$job"
	wait_for "node idle or drained" 60 node_settled
	check "$what: the job's processes are gone" \
		wait_for "job $job's processes to end" 5 no_job_pids "$job"
	check "$what: the node is idle again" node_idle
	assert_not_contains "$what: node not drained" DRAIN "$(node_state)"
	assert_eq "$what: no 'Kill task failed' in slurmd's log" "" \
		"$(tail -n +$((MARK + 1)) "$SLURMD_LOG" |
			grep -e 'Kill task failed' -e 'NOT ENDING WITH SIGNALS')"
	wait_for "job $job's cgroups to go" 10 no_leftovers 2>/dev/null
	left=$(leftovers)
	assert_eq "$what: no cgroup of qosdeny's or of job $job left" "" "$left"
	# What is in them, for the failure's diagnosis.
	# shellcheck disable=SC2086 # one path a word
	[ -z "$left" ] || {
		find $left -mindepth 1 -type d
		find $left -name cgroup.procs -exec grep -H . {} +
	} | sed 's/^/# left: /'
	for p in $(job_pids "$job"); do kill -9 "$p" 2>/dev/null; done
	for d in $(leftovers | sort -r); do
		find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	if [[ $(node_state) == *DRAIN* ]]; then
		wait_for "the node's steps to end" 60 node_drained
		scontrol update nodename="$NODE" state=resume
		wait_for "node idle after resume" 30 node_idle
	fi
}

# The jobs the ending checks use: each one the plugin binds on any node.
# A job holding every GPU of the node leaves it nothing to deny, so its
# ending would pass as well with a plugin that moved tasks: a job without
# GPUs, and where the node has several, one holding one of them.
NGPUS=$(expected_devs "" | wc -w)
SHAPES=("no GPU|")
[ "$NGPUS" -lt 2 ] || SHAPES+=("1 of $NGPUS GPUs|--gres=gpu:1")

# sleeping_job WHAT GRES: a batch job whose srun step sleeps, running, its
# id in J; a job that does not start is a failure of WHAT.
sleeping_job() {
	log_mark
	J=$(sbatch_running $2 --wrap 'srun --quiet sleep 300') && return 0
	fail "$1: the job did not start"
	return 1
}

# time_limit WHAT GRES: the job's end moved to now (as --time would at its
# limit, without waiting a minute); slurmctld ends it at its next time
# limit check, within 30 s.
time_limit() {
	sleeping_job "$1" "$2" || return
	scontrol update jobid="$J" EndTime=now+1
	ended_cleanly "$1" "$J"
	check "$1: job $J ended by it" job_state_is "$J" TIMEOUT
}

cancelled() {
	sleeping_job "$1" "$2" || return
	check "$1: scancel" scancel "$J"
	ended_cleanly "$1" "$J"
	check "$1: job $J cancelled" job_state_is "$J" CANCELLED
}

# srun_interrupted WHAT GRES: alice's srun (a job of its own), stopped by
# two SIGINTs within a second (srun's abort), as a user's Ctrl-C twice
# does. The task says its job's id once it runs.
srun_interrupted() {
	local pid j i f=$ALICE/intr.job
	log_mark
	rm -f "$f"
	# shellcheck disable=SC2016
	(cd "$ALICE" && exec setpriv --reuid=alice --regid=alice --init-groups \
		$SRUN $2 bash -c 'echo "$SLURM_JOB_ID" >'"$f"'; exec sleep 300') \
		>/dev/null 2>"$f.err" &
	pid=$!
	if ! wait_for "alice's srun task" 60 test -s "$f"; then
		fail "$1: srun's task did not start"
		kill -9 "$pid"
		wait "$pid" 2>/dev/null
		return
	fi
	j=$(cat "$f")
	wait_for "job $j's task" 30 has_step "$j"
	# The pair again where srun took it for one (a signal sent twice before
	# it is handled arrives once) and only printed its status.
	for ((i = 0; i < 5; i++)); do
		kill -INT "$pid"
		sleep 0.3
		kill -INT "$pid" 2>/dev/null
		wait_for "srun to exit" 10 gone_pid "$pid" 2>/dev/null && break
	done
	check "$1: srun exits after its interrupt" gone_pid "$pid"
	[ "$i" -eq 0 ] || echo "# srun's interrupt: $((i < 5 ? i + 1 : 5)) pairs of SIGINTs"
	gone_pid "$pid" || {
		sed 's/^/# srun: /' "$f.err"
		kill -9 "$pid"
	}
	wait "$pid" 2>/dev/null
	ended_cleanly "$1" "$j"
}


bash "$NODESH" up || {
	fail "munged and Redis up"
	finish
	exit 1
}
. "$QD_CLUSTER_DIR/node.env"
# The package's version: scontrol --version would wait a minute for a
# slurm.conf, written only as Slurm starts.
echo "# node $NODE ($ADDR), $(nproc) CPUs, GPUs: $(echo /dev/nvidia[0-9]*), kernel $(uname -r), Slurm $(dpkg-query -W -f '${Version}' slurmd)"

for setting in "task/none no" "task/cgroup no" "task/cgroup yes"; do
	read -r tp cd <<<"$setting"
	name="$tp ConstrainDevices=$cd"
	echo "# ---- $name"
	check "$name: Slurm up" bash "$NODESH" start "$tp" "$cd" || continue
	if [ -z "${SCOPE_BEFORE+set}" ]; then
		SCOPE_BEFORE=$(scope_dirs)
		echo "# slurmstepd scope before the first job: $(printf '%s\n' "$SCOPE_BEFORE" |
			sed "s|^$CG/||" | paste -sd ' ')"
	fi

	run_as alice $SRUN --gres=gpu:1 bash "$PROBE"
	check_devs "$name: srun --gres=gpu:1 opens its GPU only" "$OUT"
	run_as alice $SRUN bash "$PROBE"
	assert_eq "$name: a job without GPUs opens none" "$(expected_devs "")" "$(devs_of "$OUT")"
	run_as alice salloc -A research --gres=gpu:1 srun --quiet --gres=none bash "$PROBE"
	assert_eq "$name: a --gres=none step of a GPU allocation opens none" \
		"$(expected_devs "")" "$(devs_of "$OUT")"
	batch --gres=gpu:1 --wrap "bash $PROBE"
	check_devs "$name: a batch step with a GPU opens its GPU only" "$OUT"
	batch --gres=gpu:1 --wrap "srun --quiet --gres=none bash $PROBE"
	assert_eq "$name: a --gres=none step of a batch job opens none" \
		"$(expected_devs "")" "$(devs_of "$OUT")"
	cuda_checks "$name"

	for shape in "${SHAPES[@]}"; do
		what="$name, ${shape%%|*}"
		gres=${shape#*|}
		time_limit "$what, time limit" "$gres"
		cancelled "$what, scancel" "$gres"
		srun_interrupted "$what, srun interrupted" "$gres"
		# shellcheck disable=SC2086 # none, or one --gres word
		signalled "$what, scancel -s USR1" $gres
	done
done

if [ -n "${QD_GPU_LAUNCH:-}" ]; then
	gpu_launch
else
	echo "skip - launch cost: opt-in, make check-gpu-node QD_GPU_LAUNCH=1"
fi
bash "$NODESH" down
finish
