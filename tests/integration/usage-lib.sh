# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the GPU usage reporting tests (bash, sourced after lib.sh and
# example-policy.sh): the plugin's job prolog/epilog on, Redis and the
# spools looked at directly, Slurm's view of each job.
QD=$QD_BUILD/qosdeny
CLUSTER=$QD_ROOT/tests/cluster/cluster.sh
PLUGSTACK=$QD_SLURM_ETC/plugstack.conf
# Decay over the seconds a test takes stays below the 6 decimals compared.
HALF_LIFE=365-0

rcli() { redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" "$@"; }

# Every usage key of the test cluster, gone.
redis_clear() {
	rcli --scan --pattern "qosdeny:{$QD_CLUSTER_NAME}:*" |
		xargs -r redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" del >/dev/null
}

# reporting_on / reporting_off: slurmd looks for a plugin's job prolog and
# epilog only when it starts, so both restart the slurmd.
reporting_on() {
	write_policy "$EXAMPLE_POLICY
UsageHalfLife=$HALF_LIFE"
	echo "required spank_qosdeny.so redis=$QD_REDIS_ADDR" >"$PLUGSTACK"
	bash "$CLUSTER" restart-slurmd >/dev/null
}
reporting_off() {
	: >"$PLUGSTACK"
	bash "$CLUSTER" restart-slurmd >/dev/null
}

# job_ids ID: the job's own ids (each task of an array has its own).
job_ids() {
	scontrol -o show job "$1" | sed -n 's/^JobId=\([0-9]*\) .*/\1/p'
}

# job_nodes ID: the nodes the job ran on, one a line (an array's first
# task has the array's id, which scontrol shows with all its tasks).
job_nodes() {
	scontrol show hostnames "$(scontrol -o show job "$1" |
		sed -n "s/^JobId=$1 .* NodeList=\([^ ]*\).*/\1/p")"
}

# job_line ID: JOB, the line `scontrol -o show job` has for the job
# itself (an array's first task is shown with all its tasks), with its
# times in Unix seconds (SLURM_TIME_FORMAT=%s); status 1 without one.
job_line() {
	local out l
	JOB=
	out=$(SLURM_TIME_FORMAT=%s scontrol -o show job "$1" 2>/dev/null) || return 1
	while IFS= read -r l; do
		[[ $l == "JobId=$1 "* ]] && JOB=$l && return 0
	done <<<"$out"
	return 1
}

# job_key KEY: KEY's value in JOB (job_line), a word.
job_key() {
	[[ " $JOB" =~ \ $1=([^ ]*) ]] && printf '%s\n' "${BASH_REMATCH[1]}"
}

# job_elapsed ID: the seconds from the job's start to its end, as
# slurmctld has them.
job_elapsed() {
	local start end
	job_line "$1" || return 1
	start=$(job_key StartTime) end=$(job_key EndTime)
	echo $((end - start))
}

# redis_record JOB NODE: the record Redis applied for the job on the node.
redis_record() {
	local key
	key=$(rcli --scan --pattern "qosdeny:{$QD_CLUSTER_NAME}:rec:$1:$2:*")
	[ -n "$key" ] && rcli get "$key"
}

# field RECORD KEY: one field of a record's text (each KEY=VALUE word's
# VALUE), read by the shell alone: the tests read thousands of them.
field() {
	local w words
	IFS=$' \n' read -r -d '' -a words <<<"$1"
	for w in "${words[@]}"; do
		[[ $w == "$2="* ]] && printf '%s\n' "${w#"$2="}"
	done
	return 0
}

# stored_usage USER: the user's usage in Redis, as stored (undecayed).
stored_usage() {
	local v
	v=$(rcli hget "qosdeny:{$QD_CLUSTER_NAME}:user:$1" v)
	echo "${v:-0}"
}

# spool_records: the text of every record in the nodes' spools.
spool_records() {
	cat "$QD_SPOOL_DIR"/*/qosdeny/*.rec 2>/dev/null
}

# check_record WHAT JOB NODE GPUS SECONDS [from-step]: Redis has the job's
# record on the node with its GPUs, lasting what slurmctld has from the
# job's start to its end, within 2 s (what Slurm held: the charge), and at
# least the job's SECONDS of work less 2 s (a record cut short). Not at
# most: on a loaded host Slurm itself may take seconds more to launch and
# end a step, and holds the GPUs meanwhile (CI once saw a `srun sleep 2`
# job last 5 s). from-step: a node where the job's first step, step 0,
# starts after the job (a batch job's second node: without PrologFlags=Alloc
# its prolog runs then, and its time counts from then, docs/gpu-and-usage.md):
# the record starts at that step's start (sacct's) within 2 s and ends at
# the job's end within 2 s, in place of the two checks above (SECONDS is
# then unused). gpu_seconds is their product. Adds the record's
# gpu_seconds to USED[its user].
declare -A USED
check_record() {
	local what=$1 job=$2 node=$3 gpus=$4 secs=$5 from=${6:-} rec s e
	rec=$(redis_record "$job" "$node")
	if [ -z "$rec" ]; then
		fail "$what: no record of job $job on $node in Redis"
		return
	fi
	s=$(($(field "$rec" end) - $(field "$rec" start)))
	e=$(job_elapsed "$job")
	assert_eq "$what: job $job on $node, GPUs" "$gpus" "$(field "$rec" gpus)"
	if [ "$from" = from-step ]; then
		step_start "$job"
		check "$what: job $job on $node, from its step's start ($STEP_START) within 2 s" \
			near "$(field "$rec" start)" "${STEP_START:-0}" 2
		check "$what: job $job on $node, to the job's end ($(job_end "$job")) within 2 s" \
			near "$(field "$rec" end)" "$(job_end "$job")" 2
	else
		check "$what: job $job on $node lasted ${s}s, at least its ${secs}s of work less 2 s" \
			test "$s" -ge $((secs - 2))
		check "$what: job $job on $node, slurmctld's ${e}s within 2 s" \
			test "$s" -ge $((e - 2)) -a "$s" -le $((e + 2))
	fi
	assert_eq "$what: job $job on $node, gpu_seconds = GPUs x seconds" \
		"$((gpus * s))" "$(field "$rec" gpu_seconds)"
	USED[$(field "$rec" user)]=$((${USED[$(field "$rec" user)]:-0} + gpus * s))
}

# step_start JOB: STEP_START, step 0's start by slurmdbd, Unix seconds,
# once it is there (the step's start reaches slurmdbd through slurmctld's
# queue to it).
step_start() {
	has_step_start() {
		STEP_START=$(SLURM_TIME_FORMAT=%s sacct -n -P -j "$1.0" -o Start 2>/dev/null |
			head -n 1)
		[[ "$STEP_START" =~ ^[0-9]+$ ]]
	}
	wait_for "step $1.0's start in sacct" 10 has_step_start "$1"
}

# job_end JOB: the job's end by slurmctld, Unix seconds.
job_end() { unix_field "$1" EndTime; }

# near A B TOLERANCE: |A - B| <= TOLERANCE.
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { exit !((a - b) ^ 2 <= t * t) }'; }

# ctld_state JOB: the job's state as slurmctld has it (squeue leaves out
# NODE_FAIL).
ctld_state() { job_line "$1" && job_key JobState; }

# unix_field JOB KEY: one of slurmctld's times for the job, Unix seconds.
unix_field() {
	job_line "$1" && [[ " $JOB" =~ \ $2=([0-9]*) ]] &&
		printf '%s\n' "${BASH_REMATCH[1]}"
}

# crash_node NODE JOB: kills -9 the node's slurmd and every process of the
# job's steps (its slurmstepds and what they started), as a crash of the
# node would, then sets the node DOWN: slurmctld ends or requeues the job.
crash_node() {
	local stepds pids
	stepds=$(ps -eo pid=,args= | awk -v j="[$2." \
		'index($0, "slurmstepd: " j) { print $1 }')
	pids=$(ps -eo pid=,ppid= | awk -v roots=" $(echo $stepds) " '
		{ parent[$1] = $2 }
		END { for (p in parent) for (q = p; q > 1; q = parent[q])
			if (index(roots, " " q " ")) { print p; break } }')
	kill -KILL "$(slurm_pid "$QD_CLUSTER_DIR/run/slurmd-$1.pid")" $pids
	scontrol update nodename="$1" state=down reason=qosdeny-test
}

# node_back NODE: slurmd starts again (its start closes the orphaned
# records) and the node is resumed, unless its registration did
# (ReturnToService).
node_up() { sinfo -h -n "$1" -o %T | grep -Eq '^(idle|mixed|allocated)$'; }
node_back() {
	bash "$CLUSTER" restart-slurmd "$1" >/dev/null || return 1
	node_up "$1" || scontrol update nodename="$1" state=resume
	wait_for "$1 to be up" 20 node_up "$1"
}

# running_half WHAT ID: the site factor publishes job ID's running entry,
# "ACCOUNT USER GPU_SECONDS START NODES SEEN" (shared/usage/running_usage.h),
# once it covers 6 s of the job's run, and its GPU-seconds are half that
# run so far (within 3 s): the job holds half a GPU, as weighed or shared.
running_half() {
	local what=$1 id=$2
	running_entry() {
		E=($(rcli hget "qosdeny:{$QD_CLUSTER_NAME}:running" "$id"))
		[ "${#E[@]}" -eq 6 ] && [ $((E[5] - E[3])) -ge 6 ]
	}
	if check "$what is published running" \
		wait_for "its running entry" 30 running_entry; then
		check "its GPU-seconds, ${E[2]}, are half its $((E[5] - E[3])) s so far" \
			test $((E[5] - E[3] - 2 * E[2])) -ge 0 -a $((E[5] - E[3] - 2 * E[2])) -le 3
	fi
}
