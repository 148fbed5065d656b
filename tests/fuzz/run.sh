#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs one libFuzzer target for a fixed time. Usage: run.sh TARGET SECONDS
#
# The seeds in tests/fuzz/corpus/TARGET are copied into
# $B/fuzz/corpus/TARGET, which libFuzzer then grows, so tests/ is never
# written and later runs start from what earlier ones found. A crash leaves
# its input in $B/fuzz/artifacts/. With QD_RESULTS set, one
# "fuzz TARGET PASSED FAILED" line goes to $QD_RESULTS/counts for
# tests/summary.sh.
set -u
t=$1
secs=$2
b=${B:-build}
bin=$b/fuzz/$t
corpus=$b/fuzz/corpus/$t
art=$b/fuzz/artifacts
log=$b/fuzz/$t.log

# Long enough for the largest meaningful input, short enough that the
# fuzzer does not waste its time on megabytes of filler.
case $t in
fuzz_slurm_time) max_len=64 ;;
fuzz_tres) max_len=1024 ;;
fuzz_check | fuzz_usage_record) max_len=2048 ;;
fuzz_policy | fuzz_request) max_len=4096 ;;
fuzz_options | fuzz_gres) max_len=8400 ;; # names of PATH_MAX and more
*) max_len=4096 ;;
esac

record() {
	[ -n "${QD_RESULTS:-}" ] || return 0
	mkdir -p "$QD_RESULTS"
	echo "fuzz $t $1 $2" >>"$QD_RESULTS/counts"
}

if [ ! -x "$bin" ]; then
	echo "$t: $bin not built" >&2
	record 0 1
	exit 1
fi
mkdir -p "$corpus" "$art"
if [ -d "tests/fuzz/corpus/$t" ]; then
	cp -R "tests/fuzz/corpus/$t/." "$corpus/"
fi
dict=""
if [ -f "tests/fuzz/$t.dict" ]; then
	dict="-dict=tests/fuzz/$t.dict"
fi

# shellcheck disable=SC2086
"$bin" -max_total_time="$secs" -max_len="$max_len" -timeout=10 \
	-use_value_profile=1 -print_final_stats=1 \
	-artifact_prefix="$art/$t-" $dict "$corpus" >"$log" 2>&1
rc=$?

# "#123456  DONE   cov: 345 ft: 1234 corp: 120/8Kb ..." and the final stats
done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
cov=$(printf '%s' "$done_line" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
ft=$(printf '%s' "$done_line" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
corp=$(printf '%s' "$done_line" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')

if [ "$rc" -eq 0 ]; then
	echo "fuzz $t: passed: ${runs:-?} runs in ${secs}s (${rate:-?}/s)," \
		"cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?} (log: $log)"
	record 1 0
	exit 0
fi
echo "fuzz $t: FAILED (exit $rc); log: $log; crash inputs in $art/:" >&2
tail -n 60 "$log" >&2
record 0 1
exit 1
