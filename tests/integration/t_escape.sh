#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Proof under attack: what a user may try to get past the caps or out of
# the GPUs allocated to them, each refused or confined. Covered elsewhere:
# het jobs summing past a cap and arrays over the per-user cap (t_jobs),
# scontrol update of GPUs/QoS/partition (t_update, t_partition), typed
# requests counted as Slurm counts them (t_counting), untyped requests
# against typed caps (t_untyped_gpus), --test-only
# (t_scenario), a broken qosdeny.conf (t_reload).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
source "$(dirname "$0")/gpu-lib.sh"
ESCAPE="$QD_ROOT/tests/integration/cgroup-escape.sh"
POLICY_ERR="Job violates accounting/QOS policy"

sacctmgr -i add qos esc-free esc-gpu0 esc-a100-0 esc-typed >/dev/null
sacctmgr -i modify qos esc-gpu0 set MaxTRESPerJob=gres/gpu=0 >/dev/null
sacctmgr -i modify qos esc-a100-0 set MaxTRESPerJob=gres/gpu:a100=0 >/dev/null
sacctmgr -i modify qos esc-typed set MaxTRESPerJob=gres/gpu:a100=2 >/dev/null
sacctmgr -i modify account research set qos+=esc-gpu0,esc-a100-0,esc-typed >/dev/null
wait_for "slurmctld to know the QoS" 20 \
	sh -c 'scontrol show assoc_mgr flags=qos qos=esc-typed | grep -q "QOS=esc-typed"'
write_policy "$EXAMPLE_POLICY
QOS=esc-free   Flags=DenyOnMaxPerJob MaxTRESPerJob=gres/gpu=8
QOS=esc-gpu0   Flags=DenyOnMaxPerJob
QOS=esc-a100-0 Flags=DenyOnMaxPerJob
QOS=esc-typed  Flags=DenyOnMaxPerJob"

ctld_alive() { scontrol ping 2>&1 | grep -q 'is UP'; }
alice_jobs() { squeue -h -u alice -r -o %i | grep -c .; }
running_tasks() { squeue -h -u alice -t R -r -o %i | grep -c .; }

# --- another user's identity --------------------------------------------
as alice sbatch --uid=bob -q interactive --gres=gpu:1 --wrap true
check "sbatch --uid=bob as alice is refused" [ "$RC" -ne 0 ]
assert_contains "by sbatch itself" "--uid only permitted by root user" "$OUT"
# Past sbatch: the same request through libslurm, as slurmctld receives it.
SPOOF=$QD_BUILD/tests/submit_as_uid
as alice "$SPOOF" "$(id -u bob)" "$(id -g bob)"
check "a job description naming bob, sent by alice, is refused" [ "$RC" -ne 0 ]
assert_contains "by slurmctld, before any plugin" "Invalid user id" "$OUT"
assert_contains "slurmctld logs the mismatch" \
	"Requested UID=$(id -u bob) doesn't match user UID=$(id -u alice)" "$(ctld_log)"
as alice "$SPOOF" "$(id -u alice)" "$(id -g alice)"
assert_eq "the same description with alice's own id is accepted" 0 "$RC"
assert_eq "nothing of bob's was queued" "" "$(squeue -h -u bob -o %i)"
cancel_all

# --- a QoS the association does not allow --------------------------------
as alice sbatch -q esc-free --gres=gpu:1 --wrap true
check "a QoS research may not use is refused, though within its caps" \
	[ "$RC" -ne 0 ]
assert_contains "with Slurm's QoS error" "Invalid qos specification" "$OUT"
as alice sbatch --parsable --hold -q research --gres=gpu:1 --wrap true
J=$OUT
as alice scontrol update jobid="$J" qos=esc-free
check "nor can a pending job be moved into it" [ "$RC" -ne 0 ]
assert_contains "the job keeps its QoS" "QOS=research" "$(scontrol show job "$J")"
sacctmgr -i modify account research set qos+=esc-free >/dev/null
allowed() {
	as alice sbatch --parsable --hold -q esc-free --gres=gpu:1 --wrap true
	[ "$RC" -eq 0 ]
}
check "allowed to research, the same job is accepted" \
	wait_for "esc-free allowed" 20 allowed
sacctmgr -i modify account research set qos-=esc-free >/dev/null
cancel_all

# --- requeue after the user's usage grew ---------------------------------
A=$(submit_running alice -q interactive --gres=gpu:2)
check "alice's 2-GPU job runs, her per-user cap full" [ -n "$A" ]
as alice scontrol requeue "$A"
assert_eq "alice requeues it" 0 "$RC"
check "it is pending again" wait_for "requeue" 30 \
	sh -c "[ \"\$(squeue -h -j $A -o %T)\" = PENDING ]"
B=$(submit_running alice -q interactive --gres=gpu:2)
check "meanwhile another 2-GPU job of hers is accepted and runs" [ -n "$B" ]
# Slurm holds a requeued job back for a while; end that wait now.
scontrol update jobid="$A" starttime=now
held_by_cap() { [ "$(squeue -h -j "$A" -o %r)" = QOSMaxGRESPerUser ]; }
check "the requeued job waits on Slurm's per-user limit" \
	wait_for "QOSMaxGRESPerUser" 30 held_by_cap
assert_eq "and does not run" PENDING "$(job_state "$A")"
scancel "$B"
check "it runs once the other job ended" wait_for "job $A" 30 job_running "$A"
cancel_all

# --- a large array -------------------------------------------------------
as alice sbatch --array=0-999 -q interactive --gres=gpu:5 --wrap true
assert_eq "1000 tasks each over the per-job cap: refused" 1 "$RC"
assert_contains "as one job" \
	'qosdeny: DenyOnMaxPerJob: QOS interactive: gres/gpu requested 5, MaxTRESPerJob limit 4' "$OUT"
assert_eq "no task queued" 0 "$(alice_jobs)"
as alice sbatch --parsable --array=0-999 -q interactive --gres=gpu:1 --wrap 'sleep 600'
assert_eq "1000 tasks of 1 GPU each: accepted" 0 "$RC"
check "two tasks run" wait_for "two tasks" 30 sh -c '[ "$(squeue -h -u alice -t R -r -o %i | grep -c .)" -ge 2 ]'
pending_on_cap() { squeue -h -u alice -t PD -o %r | grep -qx QOSMaxGRESPerUser; }
check "the rest wait on Slurm's per-user limit" \
	wait_for "QOSMaxGRESPerUser" 30 pending_on_cap
# Three scheduler and backfill passes (sched_interval=2, bf_interval=1).
most=0
for _ in $(seq 30); do
	n=$(running_tasks)
	[ "$n" -gt "$most" ] && most=$n
	sleep 0.2
done
assert_eq "never more than the cap's 2 tasks run at once" 2 "$most"
cancel_all

# --- typed and untyped caps ----------------------------------------------
as alice sbatch -q research --gres=gpu:a100:9 --wrap true
assert_contains "a typed request counts against an untyped cap" \
	'qosdeny: DenyOnMaxPerJob: QOS research: gres/gpu requested 9, MaxTRESPerJob limit 8' "$OUT"
as alice sbatch -q esc-typed --gres=gpu:A100:3 --wrap true
assert_contains "a type in other case counts against the typed cap" \
	'qosdeny: DenyOnMaxPerJob: QOS esc-typed: gres/gpu:a100 requested 3, MaxTRESPerJob limit 2' "$OUT"
as alice sbatch --parsable --hold -q esc-typed --gres=gpu:a100:2 --wrap true
assert_eq "within the typed cap: accepted" 0 "$RC"
as alice sbatch --parsable --hold -q esc-typed --gres=gpu:v100:3 --wrap true
assert_eq "another type is not under it" 0 "$RC"
cancel_all

# --- odd spellings of a GPU request --------------------------------------
# Either Slurm refuses the request, or qosdeny counts it as Slurm does:
# Slurm's count from a held job's TRES (QoS normal, no caps), qosdeny's from
# its message against a per-job cap of 0.
slurm_count() { # TRES OPTIONS...: a count, or "refused"
	local tres=$1 v
	shift
	as alice sbatch --parsable --hold -q normal "$@" --wrap true
	if [ "$RC" -ne 0 ]; then
		echo refused
		return
	fi
	v=$(job_tres "$OUT" | tr , '\n' | sed -n "s|^$tres=||p")
	scancel "$OUT"
	echo "${v:-0}"
}
qosdeny_count() { # TRES OPTIONS...: a count, or "refused" (by Slurm)
	local tres=$1 q=esc-gpu0
	shift
	[ "$tres" = gres/gpu ] || q=esc-a100-0
	as alice sbatch --parsable --hold -q "$q" "$@" --wrap true
	if [ "$RC" -eq 0 ]; then
		scancel "$OUT"
		echo 0
	elif [[ "$OUT" == *"qosdeny: "* ]]; then
		printf '%s\n' "$OUT" | sed -n "s|.*: $tres requested \([0-9]*\), .*|\1|p"
	else
		echo refused
	fi
}
# Untyped GPUs count toward gres/gpu:a100 too, up to the 4 A100s of the
# partition (t_untyped_gpus), unless the option names another type: a word
# before the count is a type to Slurm (--gpus-per-node=GPU:3 asks for type
# "GPU", which no node has). Held, A100:1,a100:2 counts as Slurm's later
# record, a100=2, with gres/gpu=3: qosdeny takes the third as untyped and
# counts 3 (unheld, Slurm refuses it: no node has type "A100").
types_named() { # OPTION: the GPU types it names, lowercase, one per line
	local last=${1##*[:=]}
	printf '%s\n' "$1" | grep -oE '(gpu: *|^--gpus[-a-z]*= *)[A-Za-z][A-Za-z0-9]*:' |
		sed -E 's/^(gpu: *|--gpus[-a-z]*= *)//; s/:$//' | tr 'A-Z' 'a-z'
	# 23.11 and later read a count only as digits and a unit: '8 ', ' 8'
	# and '+8' are types there (strtoull's blanks and sign before).
	if slurm_at_least 23.11 &&
		! [[ "$last" =~ ^[0-9]+([kKmMgGtTpP]([iI]?[bB])?)?$ ]]; then
		printf '%s\n' "$last" | tr 'A-Z' 'a-z'
	fi
}
expected_a100() { # OPTION ALL A100
	local n=$2
	if types_named "$1" | grep -qvx a100; then
		echo "$3"
		return
	fi
	[ "$n" -gt 4 ] && n=4
	[ "$3" -gt "$n" ] && n=$3
	echo "$n"
}
for opt in --gres=GPU:8 '--gres=gpu: 8' --gres=gpu:A100:8 '--gres=gpu:a100: 8' \
	--gres=Gpu:8 '--gres= gpu:8' '--gres=gpu:8 ' --gres=gpu:+8 --gres=gpu:08 \
	--gres=gpu:A100:1,gpu:a100:2 --gpus=A100:3 '--gpus= 3' \
	--gpus-per-node=GPU:3 --gres=gpu:3KiB --gres=gpu:16777216t; do
	all=$(slurm_count gres/gpu "$opt")
	a100=$(slurm_count gres/gpu:a100 "$opt")
	for tres in gres/gpu gres/gpu:a100; do
		q=$(qosdeny_count "$tres" "$opt")
		if [ "$all" = refused ] || [ "$a100" = refused ]; then
			check "'$opt': Slurm refuses it, the capped QoS too ($q)" \
				[ "$q" != 0 ]
		elif [ "$tres" = gres/gpu ]; then
			assert_eq "'$opt': gres/gpu as Slurm counts it" "$all" "$q"
		else
			assert_eq "'$opt': gres/gpu:a100 as Slurm counts it, untyped GPUs up to the partition's 4" \
				"$(expected_a100 "$opt" "$all" "$a100")" "$q"
		fi
	done
done

# --- zero, huge and negative counts --------------------------------------
for opt in --gres=gpu:99999999999 --gpus=-1 --gres=gpu:-1 \
	--gpus-per-node=4294967295 --gpus=18446744073709551615 \
	--gpus-per-task=4294967295 --gres=gpu:16p '--gpus=1 --mem-per-gpu=99999999999999' \
	'--gpus=1 --mem-per-gpu=-1'; do
	# shellcheck disable=SC2086
	as alice sbatch -q interactive $opt --wrap true
	check "'$opt' is refused" [ "$RC" -ne 0 ]
	assert_contains "'$opt': with an error line" "error: " "$OUT"
	check "'$opt': slurmctld still answers" ctld_alive
done
assert_contains "a count qosdeny can read is refused by qosdeny, saying what" \
	'qosdeny: DenyOnMaxPerJob: QOS interactive: gres/gpu requested 99999999999, MaxTRESPerJob limit 4' \
	"$(as alice sbatch -q interactive --gres=gpu:99999999999 --wrap true; echo "$OUT")"
assert_eq "none was queued" 0 "$(alice_jobs)"
for opt in --gpus=0 --gres=gpu:0 --gres=gpu:16777216t; do
	as alice sbatch --parsable --hold -q interactive "$opt" --wrap true
	assert_eq "'$opt' is accepted" 0 "$RC"
	tres=$(job_tres "$OUT")
	assert_contains "'$opt': Slurm counts the job" "cpu=" "$tres"
	assert_not_contains "'$opt': with no GPU in Slurm's count" "gres/gpu" \
		"$tres"
done
cancel_all

# --- inside a job: environment, device paths, cgroup files ---------------
enxio() { printf '%s\n' "$1" | grep -o '=ENXIO' | grep -c .; }
echo "required spank_qosdeny.so" >"$PLUGSTACK"
as alice srun -N1 --gres=gpu:1 bash -c \
	"export CUDA_VISIBLE_DEVICES=0,1,2,3 SLURM_STEP_GPUS=0,1,2,3; $PROBE"
assert_eq "CUDA_VISIBLE_DEVICES/SLURM_STEP_GPUS set in the task open no more GPUs" \
	1 "$(enxio "$OUT")"
as alice srun -N1 --gres=gpu:1 \
	--export=ALL,SLURM_STEP_GPUS=0,1,2,3,CUDA_VISIBLE_DEVICES=0,1,2,3 $PROBE
check_lines "SLURM_STEP_GPUS exported to srun is replaced by Slurm's" 1 "$OUT"
assert_eq "and opens one GPU" 1 "$(enxio "$OUT")"
as alice srun -N1 --export=ALL,SLURM_STEP_GPUS=0,1,2,3 $PROBE
assert_eq "a step without GPUs, SLURM_STEP_GPUS exported: none opens" \
	0 "$(enxio "$OUT")"
OUT=$(batch -N1 --gres=gpu:1 \
	--export=ALL,SLURM_JOB_GPUS=0,1,2,3,CUDA_VISIBLE_DEVICES=0,1,2,3)
check_lines "SLURM_JOB_GPUS exported to sbatch is replaced by Slurm's" 1 "$OUT"
# Which of n1's GPUs Slurm gives the step is its choice (22.05 takes the
# first free, 24.11 may not): the task links to the first one it cannot
# open by its own name.
as alice srun -N1 -w n1 --gres=gpu:1 bash -c \
	"for i in 0 1 2 3; do (exec 3<$QD_DEV_DIR/nvidia\$i) 2>&1 | grep -q 'not permitted' && break; done
	echo denied=nvidia\$i
	ln -sf $QD_DEV_DIR/nvidia\$i /tmp/qd-esc-\$SLURM_JOB_ID; (exec 3</tmp/qd-esc-\$SLURM_JOB_ID) 2>&1; rm -f /tmp/qd-esc-\$SLURM_JOB_ID"
assert_contains "another GPU through a path of one's own: EPERM ($(printf '%s' "$OUT" | grep -o 'denied=[a-z0-9]*'))" \
	"Operation not permitted" "$OUT"

for mode in v1 v2; do
	echo "required spank_qosdeny.so cgroup=$mode" >"$PLUGSTACK"
	as alice srun -N1 --gres=gpu:1 bash -c "$ESCAPE $mode; $PROBE"
	line=$(printf '%s\n' "$OUT" | grep '^cgroup=')
	check "$mode: the task tried every write ($line)" \
		[ "$(echo "$line" | wc -w)" -ge 5 ]
	assert_not_contains "$mode: none succeeded" "=OK" "$line"
	assert_not_contains "$mode: each refused with EACCES/EPERM" "=OTHER" "$line"
	check_lines "$mode: afterwards the task still opens only its GPU" 1 "$OUT"
done
: >"$PLUGSTACK"

# A node whose slurm.conf leaves gpu out of GresTypes: no Slurm plugin
# writes a step's SLURM_STEP_GPUS there, so one in the task's environment
# is the user's own export, and opens nothing (its GPUs from gpu_devices=).
# No slurmd may report fewer GPUs than slurmctld has for its node (the node
# is drained): slurmctld is restarted first when they go, the slurmds first
# when they come back.
CLUSTER=$QD_ROOT/tests/cluster/cluster.sh
not_drained() { ! sinfo -h -o %T | grep -Eq 'drain|inval'; }
check "slurm.conf without gpu GRES" env QD_NO_GPU_GRES=yes bash "$CLUSTER" write-conf
check "slurmctld restarted on it" bash "$CLUSTER" restart-ctld
check "the slurmds restarted on it" bash "$CLUSTER" restart-slurmd
assert_eq "n1 has no GRES" "(null)" "$(sinfo -h -n n1 -o %G)"
echo "required spank_qosdeny.so gpu_devices=$QD_DEV_DIR/nvidia[0-3]" >"$PLUGSTACK"
as alice env SLURM_STEP_GPUS=0,1,2,3 srun -N1 -w n1 $PROBE
assert_eq "no gpu in GresTypes, SLURM_STEP_GPUS exported: the step ran" 0 "$RC"
assert_eq "and none opens" 0 "$(enxio "$OUT")"
assert_contains "slurmd says whose list it was" \
	"SLURM_STEP_GPUS=0,1,2,3 is not Slurm's" "$(cat "$QD_LOG_DIR/slurmd-n1.log")"
: >"$PLUGSTACK"
check "slurm.conf with gpu GRES again" bash "$CLUSTER" write-conf
check "the slurmds restarted on it" bash "$CLUSTER" restart-slurmd
check "slurmctld restarted on it" bash "$CLUSTER" restart-ctld
check "no node drained" wait_for "the nodes" 30 not_drained
assert_eq "n1 has its GPUs again" "gpu:a100:4" "$(sinfo -h -n n1 -o %G)"

sacctmgr -i modify account research set qos-=esc-gpu0,esc-a100-0,esc-typed >/dev/null
sacctmgr -i delete qos esc-free esc-gpu0 esc-a100-0 esc-typed >/dev/null
write_policy "$EXAMPLE_POLICY"
finish
