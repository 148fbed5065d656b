#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make integration-asan: the integration tests of the controller plugins
# again, with slurmctld loading job_submit_qosdeny.so and
# site_factor_qosdeny.so built with AddressSanitizer and UBSan (trapping:
# ASan reports the trap, see the Makefile's ASAN_CTLD_FLAGS).
#
# Slurm's daemons are not instrumented, so the compiler's ASan runtime is
# preloaded into slurmctld alone (QD_CTLD_ENV, tests/cluster/README.md); the
# plugin directory (QD_PLUGINDIR) holds the instrumented job_submit plugin
# and the plain spank_qosdeny.so that slurmd and slurmstepd load. Reports go
# to files under the cluster's log directory; after the suite any report
# fails the run (one "integ-asan sanitizer-reports" count line), as does a
# run in which no slurmctld exit was leak-checked (ASan not loaded).
#
# Usage (the Makefile sets both): QD_ASAN_RT=libasan.so QD_PLUGINDIR=DIR
#   asan.sh [t_NAME.sh...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/example-policy.sh"
# A cluster directory of its own (cluster-up.sh): integration's logs stay.
# shellcheck disable=SC2034
QD_CLUSTER_SUFFIX=-asan
source "$here/cluster-up.sh" # QD_CLUSTER_DIR, QD_RESULTS
mkdir -p "$QD_RESULTS"

for v in QD_ASAN_RT QD_PLUGINDIR; do
	if [ -z "${!v:-}" ] || [ ! -e "${!v}" ]; then
		echo "integ-asan: $v='${!v:-}' does not exist" >&2
		echo "integ-asan sanitizer-setup 0 1" >>"$QD_RESULTS/counts"
		exit 1
	fi
done
if ! nm -D "$QD_PLUGINDIR/job_submit_qosdeny.so" | grep -q __asan_init; then
	echo "integ-asan: $QD_PLUGINDIR/job_submit_qosdeny.so is not built with ASan" >&2
	echo "integ-asan sanitizer-setup 0 1" >>"$QD_RESULTS/counts"
	exit 1
fi

# Leaks: slurmctld (not built with MEMORY_LEAK_DEBUG) and glibc leave a few
# blocks of their own unreachable at exit; lsan.supp names those, by
# functions qosdeny never calls, so that a leak through qosdeny's code is a
# report. atexit: every slurmctld exit writes ASan's exit statistics, which
# shows that it exited with ASan there to check (Slurm 24.11 leaves none of
# 22.05's blocks, so no "Suppressions used" table shows it).
log=@QD_CLUSTER_DIR@/log/asan
export QD_CTLD_ENV="LD_PRELOAD=$QD_ASAN_RT \
ASAN_OPTIONS=log_path=$log:handle_sigill=1:detect_leaks=1:atexit=1:malloc_context_size=30:quarantine_size_mb=64 \
LSAN_OPTIONS=suppressions=$here/lsan.supp:print_suppressions=1"
export QD_PLUGINDIR QD_SUITE=integ-asan

# Only the tests that drive the instrumented plugins (split.sh).
QD_SPLIT=asan bash "$here/run.sh" "$@"
rc=$?

# One file per slurmctld process (log_path.PID).
mapfile -t files < <(find "$QD_CLUSTER_DIR/log" -maxdepth 1 -name 'asan.*' | sort)
errors=0 checked=0
for f in "${files[@]}"; do
	errors=$((errors + $(grep -c '^==[0-9]*==ERROR' "$f")))
	checked=$((checked + $(grep -c '^AddressSanitizer exit stats:' "$f")))
	grep -q '^==[0-9]*==ERROR' "$f" && sed "s|^|# $(basename "$f"): |" "$f"
done
echo "# $checked slurmctld exits leak-checked, ${#files[@]} report files"
if [ "$errors" -eq 0 ] && [ "$checked" -gt 0 ]; then
	echo "ok - no sanitizer report from slurmctld"
	echo "integ-asan sanitizer-reports 1 0" >>"$QD_RESULTS/counts"
else
	[ "$errors" -gt 0 ] || echo "# no slurmctld exit was leak-checked: was ASan preloaded?"
	echo "not ok - $errors sanitizer reports from slurmctld"
	echo "integ-asan sanitizer-reports 0 1" >>"$QD_RESULTS/counts"
	rc=1
fi
exit $rc
