# SPDX-License-Identifier: GPL-2.0-or-later
# The worked example (docs/worked-example.md), in the Slurm database and in qosdeny.conf.
# Sourced by the integration tests and by `make demo` with the cluster up.

EXAMPLE_POLICY='# The worked example of the README.
Enforce=yes
ExemptUsers=root,slurm
QOS=research      Flags=DenyOnMaxPerJob
QOS=interactive   Flags=DenyOnMaxPerJob,DenyOnMaxPerUser,DenyOnGrp
QOS=batch-lowprio Flags=DenyOnMaxPerUser'

example_qos() {
	sacctmgr -i add qos research interactive batch-lowprio >/dev/null
	sacctmgr -i modify qos research set MaxTRESPerJob=gres/gpu=8 >/dev/null
	sacctmgr -i modify qos interactive set GrpTRES=gres/gpu=4 \
		MaxTRESPerUser=gres/gpu=2 MaxTRESPerJob=gres/gpu=4 >/dev/null
	sacctmgr -i modify qos batch-lowprio set MaxTRESPerUser=cpu=32 >/dev/null
	sacctmgr -i modify account research set \
		qos=normal,research,interactive defaultqos=research >/dev/null
	sacctmgr -i modify account batch set \
		qos=normal,interactive,batch-lowprio defaultqos=batch-lowprio >/dev/null
	# slurmctld takes the new QoS through its slurmdbd connection; wait
	# until it reports them so the first submission sees their limits.
	wait_for "slurmctld to know the example QoS" 20 ctld_knows_qos
}

ctld_knows_qos() {
	scontrol show assoc_mgr flags=qos qos=interactive 2>/dev/null |
		grep -q 'GrpTRES=.*gres/gpu=4'
}

# partition_qos_on / partition_qos_off: a partition `short` (n1, n2) whose
# QoS pq-short (MaxTRESPerJob=cpu=4) has a DenyOnMaxPerJob record; slurmctld
# restarted to take the partition, and restarted without it.
partition_qos_on() {
	local extra=$QD_CLUSTER_DIR/partition-qos.conf
	sacctmgr -i add qos pq-short >/dev/null
	sacctmgr -i modify qos pq-short set MaxTRESPerJob=cpu=4 >/dev/null
	echo "PartitionName=short Nodes=n1,n2 QOS=pq-short MaxTime=INFINITE State=UP" >"$extra"
	QD_SLURM_CONF_EXTRA=$extra bash "$QD_ROOT/tests/cluster/cluster.sh" write-conf >/dev/null &&
		bash "$QD_ROOT/tests/cluster/cluster.sh" restart-ctld >/dev/null
	write_policy "$EXAMPLE_POLICY
QOS=pq-short Flags=DenyOnMaxPerJob"
}
partition_qos_off() {
	bash "$QD_ROOT/tests/cluster/cluster.sh" write-conf >/dev/null &&
		bash "$QD_ROOT/tests/cluster/cluster.sh" restart-ctld >/dev/null
	write_policy "$EXAMPLE_POLICY"
}
