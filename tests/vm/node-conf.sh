# SPDX-License-Identifier: GPL-2.0-or-later
# A one-node Slurm on pure cgroup v2, as the VM (tests/vm/slurm.sh) and a
# real GPU node (tests/gpu-node/node.sh) run it: slurmctld and slurmd as
# root, CgroupPlugin=cgroup/v2 with IgnoreSystemd=yes, proctrack/cgroup,
# accounting off, the node's GPUs in gres.conf, and what the tests need of
# ending jobs (KillWait=2, OverTimeLimit=0; UnkillableStepTimeout=60: a step that
# ends with its signals ends within it even in a TCG guest starved of CPU
# beside make check's other lanes, where 20 s was once too short).
# Sourced; the plugstack.conf line is the caller's.
#
#   write_node_conf ETC D CLUSTER NODE ADDR CPUS GPUS TASKPLUGIN CONSTRAIN [LINE...]
#
# ETC gets slurm.conf, cgroup.conf, gres.conf (/dev/nvidia0 to GPUS-1) and a
# qosdeny.conf; D the state, spool and logs. Each LINE is added to
# slurm.conf (ports). QD_NODE_SHARDS=N gives each GPU N shards (gres/shard)
# too.
write_node_conf() {
	local etc=$1 d=$2 cluster=$3 node=$4 addr=$5 cpus=$6 gpus=$7
	local task=$8 constrain=$9 shards=${QD_NODE_SHARDS:-0} types=gpu
	local gres=gpu:$7 i
	shift 9
	if [ "$shards" -gt 0 ]; then
		types=gpu,shard
		gres+=,shard:$((shards * gpus))
	fi
	mkdir -p "$etc" "$d/log" "$d/state" "$d/spool"
	{
		cat <<EOF
ClusterName=$cluster
SlurmctldHost=$node($addr)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/cgroup
TaskPlugin=$task
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
GresTypes=$types
SchedulerParameters=sched_interval=1
ReturnToService=2
MessageTimeout=4
UnkillableStepTimeout=60
KillWait=2
OverTimeLimit=0
InactiveLimit=0
MinJobAge=300
Waittime=0
NodeName=$node NodeAddr=$addr CPUs=$cpus RealMemory=1000 Gres=$gres State=UNKNOWN
PartitionName=main Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
		[ $# -eq 0 ] || printf '%s\n' "$@"
	} >"$etc/slurm.conf"
	cat >"$etc/cgroup.conf" <<EOF
CgroupPlugin=cgroup/v2
IgnoreSystemd=yes
ConstrainDevices=$constrain
EOF
	cat >"$etc/gres.conf" <<EOF
AutoDetect=off
NodeName=$node Name=gpu File=/dev/nvidia[0-$((gpus - 1))]
EOF
	for ((i = 0; i < gpus && shards > 0; i++)); do
		echo "NodeName=$node Name=shard Count=$shards File=/dev/nvidia$i"
	done >>"$etc/gres.conf"
	printf 'Enforce=no\nUsageHalfLife=365-0\n' >"$etc/qosdeny.conf"
}
