#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# as-user.sh USER CMD [ARG...]: run CMD as USER against the test cluster
# (SLURM_CONF set), in USER's own directory QD_CLUSTER_DIR/users/USER unless
# QD_KEEP_CWD=1 (job output files land there).  Must run as root.
set -eu
if [ $# -lt 2 ]; then
	echo "usage: as-user.sh USER CMD [ARG...]" >&2
	exit 2
fi
u=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
D=${QD_CLUSTER_DIR:-${QD_BUILD:-$here/../../build}/cluster}
D=$(cd "$D" && pwd)
if [ ! -r "$D/etc/slurm.conf" ]; then
	echo "as-user.sh: no cluster in $D" >&2
	exit 1
fi
if [ "${QD_KEEP_CWD:-0}" != 1 ] && [ -d "$D/users/$u" ]; then
	cd "$D/users/$u"
fi
exec runuser -u "$u" -- env SLURM_CONF="$D/etc/slurm.conf" "$@"
