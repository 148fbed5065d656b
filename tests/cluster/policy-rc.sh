# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced (POSIX sh) by install-deps.sh and tests/chroot/install-slurm.sh:
# while they install packages, the packages' maintainer scripts start no
# daemon. invoke-rc.d asks /usr/sbin/policy-rc.d, which refuses every
# start with 101, as on a Debian build machine. policy_rc_deny before the
# install, policy_rc_restore after: it removes only a policy-rc.d it wrote
# itself.
QD_POLICY_RC=/usr/sbin/policy-rc.d
qd_policy_rc_ours=""

policy_rc_deny() {
	[ -e "$QD_POLICY_RC" ] && return 0
	printf '#!/bin/sh\nexit 101\n' >"$QD_POLICY_RC"
	chmod 755 "$QD_POLICY_RC"
	qd_policy_rc_ours=1
}

policy_rc_restore() {
	[ -z "$qd_policy_rc_ours" ] || rm -f "$QD_POLICY_RC"
	qd_policy_rc_ours=""
}
