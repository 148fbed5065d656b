# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the tests of the pure cgroup v2 VM (bash, sourced by each
# tests/vm/t_*.sh, which runs inside the VM as root: boot.sh). The
# assertions, `as USER CMD`, wait_for and finish are the integration
# suite's (tests/integration/lib.sh).
export QD_CLUSTER_DIR=/var/lib/qd
export SLURM_CONF=$QD_CLUSTER_DIR/etc/slurm.conf
source /qosdeny/tests/integration/lib.sh
SLURMD_LOG=$QD_CLUSTER_DIR/log/slurmd.log
CG=/sys/fs/cgroup
VMDIR=/qosdeny/tests/vm

# vm_slurm TASKPLUGIN CONSTRAIN: Slurm (re)started with that TaskPlugin
# and cgroup.conf ConstrainDevices=yes|no (slurm.sh). The first call of a
# test also records which cgroups the slurmstepd scope holds before its
# first job (leftovers).
vm_slurm() {
	check "Slurm up with $1, ConstrainDevices=$2" \
		bash "$VMDIR/slurm.sh" start "$1" "$2" || return 1
	if [ -z "${SCOPE_BEFORE+set}" ]; then
		SCOPE_BEFORE=$(scope_dirs)
		echo "# slurmstepd scope before the first job: $(printf '%s\n' "$SCOPE_BEFORE" |
			sed "s|^$CG/||" | paste -sd ' ')"
	fi
}

assert_match() { # DESCRIPTION ERE TEXT
	if [[ $3 =~ $2 ]]; then
		pass "$1"
	else
		fail "$1: /$2/ does not match: $3"
	fi
}

node_state() {
	[[ $(scontrol show node vm) =~ \ State=([^ ]*) ]] && echo "${BASH_REMATCH[1]}"
}
node_idle() { [ "$(node_state)" == IDLE ]; }
node_settled() { node_idle || [[ $(node_state) == *DRAIN* ]]; }
node_drained() { [ "$(node_state)" == IDLE+DRAIN ]; }
job_gone() { [ -z "$(squeue -h -j "$1" 2>/dev/null)" ]; }
job_has_state() { [ "$(squeue -h -j "$1" -o %T 2>/dev/null)" == "$2" ]; }

# scope_dirs: every cgroup under the one slurmd keeps its slurmstepds in
# (IgnoreSystemd=yes: system.slice/vm_slurmstepd.scope, made by slurmd).
# Each job's cgroups are in a directory of its own there: job_N up to 25.11
# (and on 26.05 with CgroupJobIdPaths=yes), else the job's SLUID
# (s4CDM8EPVE3X00/step_0/user/task_0). Not the scope's system/, where the
# first slurmstepd puts itself and which stays (26.05 makes it then, not
# with slurmd's own slurmd/).
scope_dirs() {
	find "$CG" -type d -path '*slurmstepd.scope/*' 2>/dev/null |
		grep -v 'slurmstepd\.scope/system$' | sort
}

# job_dir_re [JOB]: the name Slurm gives a job's cgroup, as an ERE.
job_dir_re() {
	if [ "${QD_VM_SLURM:-24.11}" != 26.05 ] || [ "${QD_VM_JOBID_PATHS:-}" = yes ]; then
		echo "job_${1:-[0-9]+}"
	else
		echo 's[0-9A-Z]+'
	fi
}

# leftovers [JOB]: the cgroups of qosdeny anywhere under /sys/fs/cgroup,
# and any under the slurmstepd scope that was not there before the test's
# first job (vm_slurm), each only where its parent is not listed. Whatever
# the job: on 26.05 the job's directory bears no number to find it by,
# and each test checks with no other job running.
# One walk of the tree and three processes: the tests call it a few times
# for each job, and in the emulated guest every process costs (0.44 s a
# call when it took two walks and eight).
leftovers() {
	find "$CG" -type d \( -name 'qosdeny_*' -o -path '*slurmstepd.scope/*' \) \
		2>/dev/null | sort | QD_BEFORE=${SCOPE_BEFORE:-} awk '
		BEGIN { n = split(ENVIRON["QD_BEFORE"], b, "\n"); for (i = 1; i <= n; i++) old[b[i]] = 1 }
		/\/qosdeny_[^\/]*$/ || (!/slurmstepd\.scope\/system$/ && !($0 in old)) { d[$0] = 1; l[++k] = $0 }
		END { for (i = 1; i <= k; i++) { p = l[i]; sub("/[^/]*$", "", p); if (!(p in d)) print l[i] } }'
}

# job_pids JOB: the pids of the job's processes, found by their environment
# (wherever their cgroup is): what must be gone once the job ended.
job_pids() {
	grep -lzx "SLURM_JOB_ID=$1" /proc/[0-9]*/environ 2>/dev/null |
		cut -d/ -f3
}
no_job_pids() { [ -z "$(job_pids "$1")" ]; }
has_job_pids() { [ -n "$(job_pids "$1")" ]; }
no_leftovers() { [ -z "$(leftovers "$1")" ]; }

# log_mark / log_since: what slurmd logged since the mark.
log_mark() { MARK=$(wc -l <"$SLURMD_LOG"); }
log_since() { tail -n +$((MARK + 1)) "$SLURMD_LOG"; }

# ended_cleanly WHAT JOB [requeued]: the job (its run, for a requeued job
# then pending) ended as it would without qosdeny: its processes gone, the
# node idle again and never draining, no `Kill task failed`, no cgroup of
# the job's or of qosdeny's left (leftovers). Then puts back whatever a failure left,
# so the next case starts clean.
ended_cleanly() {
	local what=$1 job=$2 left fails=$QD_FAIL
	if [ "${3:-}" == requeued ]; then
		check "$what: job $job pending again" \
			wait_for "job $job to be requeued" 60 job_has_state "$job" PENDING
	else
		check "$what: job $job left the queue" \
			wait_for "job $job to end" 90 job_gone "$job"
	fi
	# A requeued job is pending before its node has ended its run.
	wait_for "node idle or drained" 60 node_settled
	check "$what: the job's processes are gone" \
		wait_for "job $job's processes to end" 5 no_job_pids "$job"
	check "$what: the node is idle again" node_idle
	assert_not_contains "$what: node not drained" DRAIN "$(node_state)"
	assert_eq "$what: no 'Kill task failed' in slurmd's log" "" \
		"$(log_since | grep -e 'Kill task failed' -e 'NOT ENDING WITH SIGNALS')"
	wait_for "job $job's cgroups to go" 10 no_leftovers "$job" 2>/dev/null
	left=$(leftovers "$job")
	assert_eq "$what: no cgroup of qosdeny's or of job $job left" "" "$left"
	# What is in them, for the failure's diagnosis.
	# shellcheck disable=SC2086 # one path a word
	[ -z "$left" ] || {
		find $left -mindepth 1 -type d
		find $left -name cgroup.procs -exec grep -H . {} +
	} | sed 's/^/# left: /'
	# What recover puts back, each check above has found in place.
	[ "$QD_FAIL" -eq "$fails" ] || recover "$job"
	[ "${3:-}" == requeued ] && scancel "$job"
	wait_for "job $job to leave the queue" 60 job_gone "$job"
}

# recover JOB: after a failed case, kills what the job left running, removes
# its cgroups and resumes the node (what an administrator would do).
recover() {
	local p d
	for p in $(job_pids "$1"); do kill -9 "$p" 2>/dev/null; done
	for d in $(leftovers "$1" | sort -r); do
		find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	if [[ $(node_state) == *DRAIN* ]]; then
		wait_for "the node's steps to end" 60 node_drained
		scontrol update nodename=vm state=resume
		wait_for "node idle after resume" 30 node_idle
	fi
}

# gpu_probe: run as a task, prints "gpus=ID[,ID] 0=R 1=R" where R is ENXIO
# (the fake GPU opened: allowed) or EPERM (denied by a device program).
gpu_probe() {
	# shellcheck disable=SC2016
	echo 'l="gpus=${SLURM_STEP_GPUS-${SLURM_JOB_GPUS-}}"
for i in 0 1; do
	e=$( (exec 3</dev/nvidia$i) 2>&1)
	case $e in *"No such device"*) r=ENXIO ;; *"not permitted"*) r=EPERM ;; *) r="OTHER($e)" ;; esac
	l="$l $i=$r"
done
echo "$l"'
}

# expected_probe GPUS: the probe's line for a step that owns GPUS.
expected_probe() {
	local l="gpus=$1" i
	for i in 0 1; do
		if [[ ",$1," == *",$i,"* ]]; then l+=" $i=ENXIO"; else l+=" $i=EPERM"; fi
	done
	echo "$l"
}

# check_probe WHAT OUTPUT: the probe's line says the step's GPUs are the
# ones it may open.
check_probe() {
	local line="" l gpus
	while IFS= read -r l; do
		[[ $l == gpus=* ]] && line=$l && break
	done <<<"$2"
	gpus=${line#gpus=}
	gpus=${gpus%% *}
	assert_eq "$1" "$(expected_probe "$gpus")" "$line"
}

# sbatch_running ARGS...: alice's batch job, once running and its task in
# its cgroup; prints the id.
sbatch_running() {
	local id
	as alice sbatch --parsable -A research "$@"
	id=${OUT%%;*}
	if [ "$RC" -ne 0 ] || ! wait_for "job $id to run" 60 job_has_state "$id" RUNNING ||
		! wait_for "job $id's task" 30 has_job_pids "$id"; then
		echo "# job did not start: $OUT" >&2
		return 1
	fi
	echo "$id"
}

job_state_is() { scontrol show job "$1" 2>/dev/null | grep -q " JobState=$2 "; }
