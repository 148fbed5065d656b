# SPDX-License-Identifier: GPL-2.0-or-later
# Which integration tests integration-asan runs (bash, sourced by run.sh
# and asan.sh): those that drive the controller plugins, which it loads
# into slurmctld built with ASan and UBSan. make check runs each of them
# once per Slurm version, there, and the plain integration part runs the
# others (QD_SPLIT=plain, tests/chroot/suite.sh): run plain as well, the
# controller's tests were half of a version's integration CPU (258 s of
# 22.05's 523 s alone) for no check of their own (docs/development.md,
# "What it costs"). The hardened build of the controller plugins still
# runs in slurmctld on every version: deb-test runs t_scenario.sh on the
# package's plugins.

# Not under ASan: the node side's tests (ssh adoption, GPU binding, usage
# records, the tool) exercise slurmd, slurmstepd and the tool, which run
# uninstrumented there. t_memory.sh measures resident memory, which ASan's
# quarantine and shadow make meaningless; leaks are LeakSanitizer's
# business there.
QD_NOT_UNDER_ASAN="t_adopt.sh t_doctor.sh t_escape.sh t_gpu_binding.sh \
t_gpu_cgroup.sh t_gpu_mig.sh t_gpu_mps.sh t_gpu_shard.sh t_memory.sh \
t_restart_slurmd.sh t_tool.sh t_usage.sh t_usage_alloc.sh t_usage_fault.sh \
t_usage_noacct.sh t_usage_node_down.sh t_usage_qos.sh t_usage_reply_lost.sh"

# under_asan NAME: whether integration-asan runs the test file NAME. With
# QD_CORE_EXTRAS=no (make check, every Slurm version after the first) the
# site factor's long test stays in the plain part, as the Sentinel failover
# drill leaves both (run.sh): what it mostly exercises under ASan is the
# core's Redis code, the same on every version; the site factor's own
# adapter still starts, refreshes and stops under ASan in
# t_site_factor_start.sh and t_site_factor_stop.sh.
under_asan() {
	case " $QD_NOT_UNDER_ASAN " in *" $1 "*) return 1 ;; esac
	[ "${QD_CORE_EXTRAS:-yes}" = no ] && [ "$1" = t_site_factor.sh ] && return 1
	return 0
}
