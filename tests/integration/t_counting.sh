#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The request qosdeny counts must equal what Slurm itself counts for the job.
# For each option combination, Slurm's own count is read from a held job's
# ReqTRES, and qosdeny's from its message against a per-job cap of 0.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"

sacctmgr -i add qos qd-cpu qd-mem qd-node qd-gpu >/dev/null
sacctmgr -i modify account research set \
	qos=normal,research,interactive,qd-cpu,qd-mem,qd-node,qd-gpu >/dev/null
wait_for "slurmctld to know the probe QoS" 20 \
	sh -c 'scontrol show assoc_mgr flags=qos qos=qd-gpu | grep -q "QOS=qd-gpu"'
write_policy "$EXAMPLE_POLICY
QOS=qd-cpu  Flags=DenyOnMaxPerJob MaxTRESPerJob=cpu=0
QOS=qd-mem  Flags=DenyOnMaxPerJob MaxTRESPerJob=mem=0
QOS=qd-node Flags=DenyOnMaxPerJob MaxTRESPerJob=node=0
QOS=qd-gpu  Flags=DenyOnMaxPerJob MaxTRESPerJob=gres/gpu=0"

# mib VALUE: Slurm's "2G"/"300M" as MiB.
mib() {
	local v=$1
	case $v in
	*T) echo $((${v%T} * 1024 * 1024)) ;;
	*G) echo $((${v%G} * 1024)) ;;
	*M) echo "${v%M}" ;;
	*) echo "$v" ;;
	esac
}

# qosdeny_count TRES OPTIONS...: sets Q to the count in qosdeny's message
# (0 when the job passes a cap of 0, i.e. requests none); a job it let
# through is added to HELD.
qosdeny_count() {
	local tres=$1 q
	shift
	case $tres in cpu) q=qd-cpu ;; mem) q=qd-mem ;; node) q=qd-node ;; *) q=qd-gpu ;; esac
	as alice sbatch --parsable --hold -q "$q" "$@" --wrap true
	if [ "$RC" -eq 0 ]; then
		HELD+=("$OUT")
		Q=0
		return
	fi
	Q=$(printf '%s\n' "$OUT" | sed -n "s|.*: $tres requested \([0-9]*\)M\?, .*|\1|p")
}

# compare OPTIONS: for each TRES, Slurm's count, the ReqTRES of one held
# job, against qosdeny's. The held jobs are cancelled at once at the end.
compare() {
	local tres req s
	HELD=()
	# shellcheck disable=SC2086
	as alice sbatch --parsable --hold -q normal $1 --wrap true
	[ "$RC" -eq 0 ] && HELD+=("$OUT")
	req=$(job_tres "$OUT")
	for tres in cpu mem node gres/gpu; do
		s=$(printf '%s\n' "${req//,/$'\n'}" | sed -n "s|^$tres=||p")
		[ "$tres" == mem ] && s=$(mib "${s:-0}")
		# shellcheck disable=SC2086
		qosdeny_count "$tres" $1
		assert_eq "$tres for '$1'" "${s:-0}" "$Q"
	done
	[ ${#HELD[@]} -eq 0 ] || scancel "${HELD[@]}"
}

while IFS= read -r opts; do
	[ -n "$opts" ] && compare "$opts"
done <<'EOF_OPTS'
--gres=gpu:2
--gres=gpu:a100:2
-N 2 --gres=gpu:1
--gpus=3
-N 2 --gpus-per-node=2
-n 3 --gpus-per-task=1
-n 4 -c 2
--mem=2G
-n 2 --mem-per-cpu=300
--gpus=2 --mem-per-gpu=500
-N 2 -n 4
-N 2 --mem=1000
-n 2 --gpus-per-task=1 --mem-per-gpu=100
EOF_OPTS

# The shapes later releases count differently, or only they take: -c sent
# as cpu=N in tres_per_task, --tres-per-task (23.02), tasks and GPUs derived
# from each other, the one-node default, CPUs per GPU (24.05), per-job GPU
# counts over per-socket ones (24.05).
if slurm_at_least 23.02; then
	while IFS= read -r opts; do
		[ -n "$opts" ] && compare "$opts"
	done <<'EOF_OPTS'
-n 2 -c 4 --gpus-per-task=1
-n 2 -c 2 --gpus-per-task=a100:1
-n 3 -c 2 --gpus-per-task=1 --mem-per-gpu=1G
-n 2 --tres-per-task=gres/gpu:1
-n 2 --tres-per-task=gres/gpu:a100:1
-n 2 --tres-per-task=cpu=4,gres/gpu:1
-n 2 --tres-per-task=cpu=4
-n 2 --tres-per-task=gres:gpu:1
--gpus=2 --ntasks-per-gpu=2
--gpus=2 --ntasks-per-gpu=2 -c 2
--gpus=2 --ntasks-per-gpu=2 -c 4
-N 1 --ntasks-per-gpu=2
-N 2 --ntasks-per-gpu=2
--gpus=4 --gpus-per-task=2
--ntasks-per-node=4
-N 1 --ntasks-per-node=2 --gpus-per-task=1
--gpus=2 --cpus-per-gpu=4
--gpus=a100:2 --cpus-per-gpu=4
-N 2 --gres=gpu:2 --cpus-per-gpu=3
-n 2 --gpus-per-task=2 --cpus-per-gpu=3
--gpus-per-socket=1 --sockets-per-node=2 --cpus-per-gpu=4
--gpus=2 --gpus-per-socket=2 --sockets-per-node=2
--gpus=4 --gpus-per-node=2
--gpus=3 --gres=gpu:1 -N 1-3
-O -n 4 -c 2 --gres=gpu:1
-n 2 --gpus-per-task=a100:1,v100:1
-N 1 -w n1,n2
EOF_OPTS
fi

write_policy "$EXAMPLE_POLICY"
finish
