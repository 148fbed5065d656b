#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The QoS in GPU usage records: job_submit/qosdeny puts the QoS Slurm gives
# each job in its SPANK environment, the prolog/epilog read it, and Redis
# keeps per-QoS usage. A QoS given by --qos, by the association's default,
# by `scontrol update qos=` of a pending job; what a user forges under
# qosdeny's name in a submission (libslurm's spank_job_env) is not what the
# record carries.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
source "$(dirname "$0")/usage-lib.sh"
FORGE=$QD_BUILD/tests/forge_submit

redis_clear
check "reporting on (plugstack.conf, slurmd restarted)" reporting_on

# qos_usage NAME: the QoS's usage in Redis, as stored (undecayed).
qos_usage() {
	local v
	v=$(rcli hget "qosdeny:{$QD_CLUSTER_NAME}:qos:$1" v)
	echo "${v:-0}"
}
# job_qos ID: the QoS slurmctld gave the job.
job_qos() { scontrol -o show job "$1" | sed -n 's/.* QOS=\([^ ]*\).*/\1/p'; }

# --qos: alice's research account allows interactive.
as alice sbatch --parsable -N1 --qos=interactive --gres=gpu:1 --wrap 'sleep 2'
j_qos=${OUT%%;*}

# Forged through libslurm, both spellings; the job gets research, alice's
# default, and the forged name is a QoS that exists.
as alice "$FORGE" - batch-lowprio
j_forged=$OUT
check "forge_submit submitted job '$j_forged'" test "$j_forged" -gt 0

# Pending, then its QoS updated by alice; then an update her association
# does not allow, which Slurm refuses: the label stays.
as alice sbatch --parsable -N1 --hold --qos=normal --gres=gpu:1 --wrap 'sleep 2'
j_upd=${OUT%%;*}
as alice scontrol update jobid="$j_upd" qos=interactive
assert_eq "alice may move her pending job to interactive" 0 "$RC"
as alice scontrol update jobid="$j_upd" qos=batch-lowprio
check "Slurm refuses batch-lowprio for research: $OUT" test "$RC" -ne 0
assert_eq "job $j_upd has QoS interactive" interactive "$(job_qos "$j_upd")"
as alice scontrol release "$j_upd"

# Array tasks copy the array's environment; each het component is its own
# submission, with its own environment. interactive caps alice at 2 GPUs in
# use: the array's tasks and the het job's 2 GPUs each need the jobs before
# them to have ended, or DenyOnMaxPerUser refuses them.
check "alice's first jobs ended" wait_for "jobs to end" 60 queue_empty
as alice sbatch --parsable -N1 --array=1-2 --qos=interactive --gres=gpu:1 \
	--wrap 'sleep 2'
j_arr=${OUT%%;*}
check "the array was submitted: '$j_arr' ($OUT)" test "$j_arr" -gt 0
check "alice's jobs so far ended" wait_for "jobs to end" 60 queue_empty
as alice sbatch --parsable -N1 --qos=interactive --gres=gpu:1 : \
	-N1 --gres=gpu:1 --wrap 'srun --het-group=0,1 sleep 2'
j_het=${OUT%%;*}
check "the het job was submitted: '$j_het' ($OUT)" test "$j_het" -gt 0

# An srun job: its prolog starts from the step launch, whose SPANK
# environment is the client's (22.05's srun drops SLURM_SPANK_*, but any
# libslurm client can send one); the epilog's QoS, slurmctld's, is the
# record's.
as bob env SLURM_SPANK_QOSDENY_QOS=batch-lowprio srun -N1 -w n2 \
	--gpus-per-node=1 bash -c 'sleep 2; echo "job=$SLURM_JOB_ID"'
j_srun=$(echo "$OUT" | sed -n 's/^job=//p')
check "bob's srun ran: job '$j_srun'" test -n "$j_srun"
# 24.11 and later: a job that may run under several QoS. interactive's
# per-user cap (2 GPUs) keeps it from running there, so Slurm runs it under
# research; the epilog asks slurmctld, and the record says research.
j_multi=""
if slurm_at_least 24.11; then
	as alice sbatch --parsable -N1 --qos=interactive,research --gres=gpu:3 \
		--wrap 'sleep 2'
	j_multi=${OUT%%;*}
	check "the job listing two QoS was submitted: '$j_multi' ($OUT)" \
		test "$j_multi" -gt 0
fi
check "all jobs ended, epilogs included" wait_for "jobs to end" 60 queue_empty

# qos_of ID: the QoS in the job's record in Redis.
qos_of() { field "$(redis_record "$1" "$(job_nodes "$1" | head -1)")" qos; }
gs_of() { field "$(redis_record "$1" "$(job_nodes "$1" | head -1)")" gpu_seconds; }
assert_eq "--qos=interactive: the record's QoS" interactive "$(qos_of "$j_qos")"
assert_eq "forged label: the record has alice's default QoS" research \
	"$(qos_of "$j_forged")"
assert_eq "slurmctld agrees" research "$(job_qos "$j_forged")"
assert_eq "updated while pending: the record has the new QoS" interactive \
	"$(qos_of "$j_upd")"
assert_eq "srun: the record has bob's default QoS" research \
	"$(field "$(redis_record "$j_srun" n2)" qos)"

tasks=$(job_ids "$j_arr")
assert_eq "the array has 2 tasks" 2 "$(echo "$tasks" | wc -w)"
for t in $tasks; do
	assert_eq "array task $t: the array's QoS" interactive "$(qos_of "$t")"
done
het_rec() { # OFFSET: the record of the het job's component
	rcli --scan --pattern "qosdeny:{$QD_CLUSTER_NAME}:rec:$((j_het + $1)):*" |
		head -1 | xargs -r redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" get
}
het_qos() { # OFFSET: the QoS slurmctld gave the component
	scontrol -o show job "$j_het" | grep "^JobId=$((j_het + $1)) " |
		sed -n 's/.* QOS=\([^ ]*\).*/\1/p'
}
# sbatch gives every component the QoS one of them names.
assert_eq "het component 0: its --qos" interactive "$(field "$(het_rec 0)" qos)"
assert_eq "het component 1: the QoS slurmctld gave it" "$(het_qos 1)" \
	"$(field "$(het_rec 1)" qos)"

want_i=$(($(gs_of "$j_qos") + $(gs_of "$j_upd") + $(field "$(het_rec 0)" gpu_seconds)))
want_r=0
if [ "$(het_qos 1)" == interactive ]; then
	want_i=$((want_i + $(field "$(het_rec 1)" gpu_seconds)))
else
	want_r=$(field "$(het_rec 1)" gpu_seconds)
fi
for t in $tasks; do want_i=$((want_i + $(gs_of "$t"))); done
if [ -n "$j_multi" ]; then
	assert_eq "two QoS listed: slurmctld ran it under research" research \
		"$(job_qos "$j_multi")"
	assert_eq "two QoS listed: the record has the one it ran under" research \
		"$(qos_of "$j_multi")"
	want_r=$((want_r + $(gs_of "$j_multi")))
fi
want_r=$((want_r + $(gs_of "$j_forged") + $(field "$(redis_record "$j_srun" n2)" gpu_seconds)))
check "interactive's usage is its jobs' ${want_i} GPU-seconds ($(qos_usage interactive))" \
	near "$(qos_usage interactive)" "$want_i" 0.01
check "research's usage is its jobs' ${want_r} GPU-seconds ($(qos_usage research))" \
	near "$(qos_usage research)" "$want_r" 0.01
check "${want_i} and ${want_r} are GPU time" test "$want_i" -gt 0 -a "$want_r" -gt 0
assert_eq "the forged QoS has no usage" 0 "$(qos_usage batch-lowprio)"
assert_eq "the spools are empty" "" "$(spool_records)"

reporting_off
redis_clear
finish
