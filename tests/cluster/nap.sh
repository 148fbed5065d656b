# SPDX-License-Identifier: GPL-2.0-or-later
# nap SECONDS: a sleep without a process (read's timeout on a pipe this
# shell holds both ends of). A `sleep` is a fork and an exec, about 5 ms
# of CPU here and far more in a VM's emulated guest. Sourced by
# cluster.sh (its stop and start loops) and tests/integration/lib.sh
# (wait_for naps between every two polls).
nap() {
	[ -n "${QD_NAP_FD:-}" ] || exec {QD_NAP_FD}<> <(:)
	read -r -t "$1" -u "$QD_NAP_FD" _ || true
}
