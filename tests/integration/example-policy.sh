# The README's worked example, in the Slurm database and in qosdeny.conf.
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
