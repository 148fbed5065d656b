# SPDX-License-Identifier: GPL-2.0-or-later
# cluster_up / cluster_down: the test cluster with job_submit/qosdeny and the
# example policy, for the integration tests and `make demo` (bash, sourced
# after lib.sh and example-policy.sh).

# Unix socket paths (munged's) hold 107 bytes: a checkout deep in the
# filesystem gets its cluster under /tmp instead, one per checkout.
# A suite of its own (integration-asan: QD_CLUSTER_SUFFIX=-asan) has a
# cluster directory of its own, so that its logs never overwrite
# integration's.
if [ -z "${QD_CLUSTER_DIR:-}" ]; then
	QD_CLUSTER_DIR=$QD_BUILD/cluster${QD_CLUSTER_SUFFIX:-}
	if [ ${#QD_CLUSTER_DIR} -gt 60 ]; then
		QD_CLUSTER_DIR=/tmp/qdc-$(printf '%s' "$QD_ROOT" | md5sum | cut -c1-8)${QD_CLUSTER_SUFFIX:-}
	fi
fi
export QD_CLUSTER_DIR
export QD_RESULTS=${QD_RESULTS:-$QD_BUILD/results}
export QD_JOBSUBMIT=qosdeny
# Every Slurm RPC on loopback otherwise waits ~40 ms for a delayed ACK;
# cluster.sh restores the loopback routes at stop.
export QD_QUICKACK=${QD_QUICKACK:-1}

cluster_up() {
	local etc=$QD_BUILD/etc-initial
	mkdir -p "$etc"
	printf '%s\n' "$EXAMPLE_POLICY" >"$etc/qosdeny.conf"
	export QD_ETC_FILES="$etc/qosdeny.conf"
	bash "$QD_ROOT/tests/cluster/cluster.sh" start || return 1
	# shellcheck disable=SC1091
	source "$QD_CLUSTER_DIR/env"
}

cluster_down() {
	bash "$QD_ROOT/tests/cluster/cluster.sh" stop
}
