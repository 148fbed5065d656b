#!/usr/bin/env bash
# slurmctld's memory stays flat over many submissions through
# job_submit/qosdeny: no per-submission leak. alice and bob submit at once,
# each in turn a job qosdeny denies (counted, decided, message built, Slurm
# rejects it, no job record) and a --test-only job it accepts (Slurm's
# will-run path calls job_submit too, then drops the job record it made).
#
# slurmctld's anonymous resident memory (RssAnon) is read before and after
# every tenth of the submissions. The first 4 tenths are a warm-up (its
# heaps and thread stacks settle). After it, memory moves in rare steps of
# a few pages, wherever the heaps' free space runs out; a leak moves it in
# every tenth. So the figure asserted is the median growth of the last 6
# tenths, per submission: below a bound that a leak of 64 bytes per
# submission (80 in glibc's heap), or per denied one only, exceeds. The
# growth from the warm-up to the end is reported beside it.
#
# slurmctld's own per-submission state does not accumulate here: its RPC
# statistics are per user (two) and per message type, and --test-only's job
# records are purged at once.
#
# QD_MEMORY_SUBMISSIONS (default 10000; make bench: 20000), and
# QD_MEMORY_OUT: a file for the figures (make bench: tests/bench/memory.txt).
source "$(dirname "$0")/lib.sh"

TOTAL=${QD_MEMORY_SUBMISSIONS:-10000}
CHUNKS=10
WARM_CHUNKS=4
PER=$((TOTAL / CHUNKS / 4)) # per user and kind in a chunk
BOUND=${QD_MEMORY_BOUND:-32} # bytes per submission
work=$QD_CLUSTER_DIR/t_memory
mkdir -p "$work"

pid=$(tr -dc 0-9 <"$QD_CLUSTER_DIR/run/slurmctld.pid")

# mem FIELD: a /proc/PID/status figure of slurmctld, in kB.
mem() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$pid/status"; }

# worker USER N DENIED_ARGS: N denied and N accepted submissions as USER;
# prints "denied accepted other", and any unexpected answer on stderr.
worker() {
	bash "$QD_ROOT/tests/cluster/as-user.sh" "$1" bash -c '
		d=0 a=0 o=0
		for ((i = 0; i < $1; i++)); do
			if out=$(sbatch $2 --wrap true 2>&1); then
				o=$((o + 1)) && echo "accepted: $out" >&2
			elif [[ $out == *qosdeny:* ]]; then
				d=$((d + 1))
			else
				o=$((o + 1)) && echo "$out" >&2
			fi
			if out=$(sbatch --test-only -q interactive --gres=gpu:1 \
				--wrap true 2>&1); then
				a=$((a + 1))
			else
				o=$((o + 1)) && echo "--test-only: $out" >&2
			fi
		done
		echo "$d $a $o"' _ "$2" "$3"
}

# chunk: one chunk of submissions, alice and bob in parallel; adds to the
# DENIED ACCEPTED OTHER tallies.
DENIED=0 ACCEPTED=0 OTHER=0
chunk() {
	local d a o
	worker alice "$PER" "-q interactive --gres=gpu:3" \
		>"$work/alice" 2>>"$work/unexpected" &
	worker bob "$PER" "--gres=gpu:9" >"$work/bob" 2>>"$work/unexpected"
	wait
	while read -r d a o; do
		DENIED=$((DENIED + d)) ACCEPTED=$((ACCEPTED + a)) OTHER=$((OTHER + o))
	done < <(cat "$work/alice" "$work/bob")
}

cancel_all # jobs left by earlier tests would change the answers
check "slurmctld's pid is readable" [ -r "/proc/$pid/status" ]
rss=("$(mem RssAnon)")
t0=$SECONDS
for ((c = 1; c <= CHUNKS; c++)); do
	chunk
	rss+=("$(mem RssAnon)")
	if [ $c -eq $WARM_CHUNKS ]; then
		vm_warm=$(mem VmRSS) data_warm=$(mem VmData)
	fi
done
vm_end=$(mem VmRSS) data_end=$(mem VmData)
secs=$((SECONDS - t0))
n=$((DENIED + ACCEPTED + OTHER))
chunk_n=$((n / CHUNKS))
warm=$((chunk_n * WARM_CHUNKS))
overall=$(awk -v a="${rss[WARM_CHUNKS]}" -v b="${rss[CHUNKS]}" -v n=$((n - warm)) \
	'BEGIN { printf "%.1f", (b - a) * 1024 / n }')
median=$(for ((c = WARM_CHUNKS + 1; c <= CHUNKS; c++)); do
	echo $((rss[c] - rss[c - 1]))
done | sort -n | awk -v n="$chunk_n" '{ d[NR] = $1 }
	END { printf "%.1f", (NR % 2 ? d[(NR + 1) / 2] : (d[NR / 2] + d[NR / 2 + 1]) / 2) * 1024 / n }')

assert_eq "every submission went through: $n" "$((PER * 4 * CHUNKS))" "$n"
assert_eq "every answer was the expected one" 0 "$OTHER"
[ -s "$work/unexpected" ] && sort "$work/unexpected" | uniq -c | head -n 5 | sed 's/^/# /'
check "half were denied by qosdeny ($DENIED)" [ "$DENIED" -eq $((n / 2)) ]
check "half were accepted with --test-only ($ACCEPTED)" [ "$ACCEPTED" -eq $((n / 2)) ]
assert_eq "no job record is left" "" "$(squeue -h -o %i)"
check "slurmctld's RssAnon grew a median $median B per submission a tenth (bound $BOUND)" \
	awk -v p="$median" -v b="$BOUND" 'BEGIN { exit !(p < b) }'

report() {
	echo "# slurmctld memory over $n submissions through job_submit/qosdeny"
	echo "# (alice and bob in parallel; half denied by qosdeny, half accepted"
	echo "# with sbatch --test-only; $secs s); /proc/PID/status, kB"
	printf '%-34s %s\n' "RssAnon_at_0" "${rss[0]}"
	printf '%-34s %s\n' "RssAnon_after_$warm" "${rss[WARM_CHUNKS]}"
	printf '%-34s %s\n' "RssAnon_after_$n" "${rss[CHUNKS]}"
	printf '%-34s %s\n' "VmRSS_after_$warm" "$vm_warm"
	printf '%-34s %s\n' "VmRSS_after_$n" "$vm_end"
	printf '%-34s %s\n' "VmData_after_$warm" "$data_warm"
	printf '%-34s %s\n' "VmData_after_$n" "$data_end"
	printf '%-34s %s\n' "RssAnon_every_$chunk_n" "${rss[*]:1}"
	printf '%-34s %s\n' "B_per_submission_after_$warm" "$overall"
	printf '%-34s %s\n' "B_per_submission_median_of_tenths" "$median"
}
report | sed 's/^/# /'
[ -n "${QD_MEMORY_OUT:-}" ] && report >"$QD_MEMORY_OUT"
finish
