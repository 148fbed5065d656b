#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs each Criterion unit-test binary and records its counts for
# tests/summary.sh. Usage: run-unit.sh BINARY...
results=${QD_RESULTS:-${QD_BUILD:-build}/results}
mkdir -p "$results"
rc=0
for t in "$@"; do
	name=$(basename "$t")
	out=$("$t" --jobs 1 2>&1)
	st=$?
	printf '%s\n' "$out"
	# "[====] Synthesis: Tested: 12 | Passing: 12 | Failing: 0 | Crashing: 0"
	syn=$(printf '%s\n' "$out" | grep 'Synthesis:' | tail -n 1)
	pass=$(printf '%s' "$syn" | sed -n 's/.*Passing: \([0-9]*\).*/\1/p')
	fail=$(printf '%s' "$syn" | sed -n 's/.*Failing: \([0-9]*\).*/\1/p')
	crash=$(printf '%s' "$syn" | sed -n 's/.*Crashing: \([0-9]*\).*/\1/p')
	if [ -z "$pass" ]; then
		pass=0 fail=1 crash=0 # the binary did not get as far as a summary
	fi
	if [ "$st" -ne 0 ] && [ $((fail + crash)) -eq 0 ]; then
		fail=1
	fi
	echo "${QD_SUITE:-unit} $name $pass $((fail + crash))" >>"$results/counts"
	[ "$st" -eq 0 ] || rc=1
done
exit $rc
