#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make demo: docs/worked-example.md's example on a throwaway cluster. Starts the
# test cluster with job_submit/qosdeny, sets up the example QoS and policy,
# shows accepted and denied jobs, GPU binding, GPU usage and fair share,
# and two users' pending jobs ordered by GPU fair share, and stops the
# cluster.
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/integration/lib.sh"
source "$here/integration/example-policy.sh"
source "$here/integration/cluster-up.sh"
trap cluster_down EXIT

cluster_up || exit 1
example_qos || exit 1

show() { # USER CMD...: runs and prints it as a user would see it
	local user=$1
	shift
	printf '\n%s$ %s\n' "$user" "$*"
	as "$user" "$@"
	printf '%s\n' "$OUT"
}

echo "== qosdeny.conf"
cat "$(dirname "$SLURM_CONF")/qosdeny.conf"
echo
echo "== QoS limits in the Slurm database"
sacctmgr -P show qos research,interactive,batch-lowprio \
	format=Name,MaxTRESPerJob,MaxTRESPerUser,GrpTRES

echo
echo "== bob asks interactive for 5 GPUs (per-job cap 4), on every path"
show bob sbatch -q interactive --gpus=5 --wrap true
show bob salloc -q interactive --gpus=5 true
show bob srun -q interactive --gpus=5 true

echo
echo "== alice runs 2 GPUs, then asks for 1 more (per-user cap 2)"
A=$(submit_running alice -q interactive --gres=gpu:2)
echo "alice's job $A is running"
echo "-- what may she ask for now? (qosdeny limits)"
show alice "$QD_BUILD/qosdeny" limits --qos interactive
show alice sbatch -q interactive --gres=gpu:1 --wrap true

echo
echo "== bob takes 2 GPUs: the group (GrpTRES 4) is now full"
B=$(submit_running bob -q interactive --gres=gpu:2)
echo "bob's job $B is running"
show charlie sbatch -q interactive --gres=gpu:1 --wrap true

echo
echo "== charlie runs 24 CPUs in batch-lowprio (per-user cap 32)"
C=$(submit_running charlie -q batch-lowprio -n 24)
echo "charlie's job $C is running"
show charlie sbatch -q batch-lowprio -n 16 --wrap true
show charlie sbatch -q batch-lowprio -n 8 --wrap true
show charlie "$QD_BUILD/qosdeny" limits -P

echo
echo "== squeue"
squeue -o '%.8i %.9u %.14q %.10T %b %C'
echo
echo "== slurmctld's log"
grep 'qosdeny' "$QD_CLUSTER_DIR/log/slurmctld.log" | tail -n 8
cancel_all >/dev/null

echo
echo "== GPU binding: spank_qosdeny.so in plugstack.conf"
echo "required spank_qosdeny.so" | tee "$QD_SLURM_ETC/plugstack.conf"
echo "Each task opens every GPU of its node. The GPUs here are fake device"
echo "files (no driver): an allowed one fails with ENXIO, a denied one EPERM."
show alice srun -N 1 --gres=gpu:1 \
	"$here/integration/gpu-probe.sh" "$QD_DEV_DIR"
show alice srun -N 2 --gpus-per-node=2 \
	"$here/integration/gpu-probe.sh" "$QD_DEV_DIR"

echo
echo "== GPU usage to Redis and GPU fair share"
sacctmgr -i modify account research set fairshare=500 >/dev/null
sacctmgr -i modify account batch set fairshare=100 >/dev/null
echo "required spank_qosdeny.so redis=$QD_REDIS_ADDR" |
	tee "$QD_SLURM_ETC/plugstack.conf"
# slurmd looks for a plugin's job prolog/epilog only when it starts.
bash "$here/cluster/cluster.sh" restart-slurmd >/dev/null
show alice srun -q research --gres=gpu:2 sleep 2
show bob srun -q research --gres=gpu:1 sleep 2
show charlie srun -q interactive -A batch --gres=gpu:1 sleep 1
# The epilog reports after srun returns; the job completes after it.
no_completing() { [ -z "$(squeue -h -t CG -o %i)" ]; }
wait_for "epilogs" 30 no_completing
show root "$QD_BUILD/qosdeny" share
show root "$QD_BUILD/qosdeny" share -P

echo
echo "== GPU fair share in job priority: site_factor/qosdeny"
extra=$QD_CLUSTER_DIR/demo-priority.conf
printf '%s\n' PriorityType=priority/multifactor \
	PrioritySiteFactorPlugin=site_factor/qosdeny \
	PrioritySiteFactorParameters=weight=10000,interval=5 \
	PriorityWeightAge=0 PriorityWeightFairshare=0 PriorityWeightJobSize=0 \
	PriorityWeightPartition=0 PriorityWeightQOS=0 | tee "$extra"
QD_SLURM_CONF_EXTRA=$extra bash "$here/cluster/cluster.sh" write-conf >/dev/null
bash "$here/cluster/cluster.sh" restart-ctld >/dev/null
grep 'qosdeny: site factor' "$QD_CLUSTER_DIR/log/slurmctld.log" | tail -n 1
echo "Every GPU of n1 busy (bob); alice (more GPU time above) and charlie"
echo "(less) each queue a 4-GPU job for n1."
F=$(submit_running bob -q research -w n1 --gres=gpu:4 --wrap 'sleep 300')
# The plugin publishes running jobs at each refresh: once bob's is in
# Redis, the factors have been read since the restart.
published() {
	[ -n "$(redis-cli -p "$QD_REDIS_PORT" hget "qosdeny:{$QD_CLUSTER_NAME}:running" "$F")" ]
}
wait_for "the site factor's first refresh" 20 published
show alice sbatch -q research -w n1 --gres=gpu:4 --wrap 'sleep 1'
show charlie sbatch -q batch-lowprio -A batch -w n1 --gres=gpu:4 --wrap 'sleep 1'
show root sprio -o "%.8i %.9u %.10Y %.8S"
echo "When n1 frees up, the job with the higher SITE starts first:"
scancel "$F"
one_started() { [ -n "$(squeue -h -t R,CG -u alice,charlie -o %u)" ]; }
wait_for "a job to start" 60 one_started
squeue -u alice,charlie -o '%.8i %.9u %.10T %.10Q'
cancel_all >/dev/null
: >"$QD_SLURM_ETC/plugstack.conf"
