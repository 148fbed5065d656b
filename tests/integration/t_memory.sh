#!/usr/bin/env bash
# slurmctld's memory stays flat over many submissions through
# job_submit/qosdeny: no per-submission leak. alice and bob submit at once,
# each in turn a job qosdeny denies (counted, decided, message built, Slurm
# rejects it, no job record) and a --test-only job it accepts (Slurm's
# will-run path calls job_submit too, then drops the job record it made).
# slurmctld's anonymous resident memory (RssAnon) is read before, after
# every tenth of the submissions, and compared between the end of the
# warm-up (the first 4 tenths: slurmctld's heaps and thread stacks settle
# there) and the end: the growth per submission must stay below a bound
# that a leak of 64 bytes per submission (80 in glibc's heap) exceeds.
# slurmctld's own per-submission state does not accumulate here: its RPC
# statistics are per user (two) and per message type, and --test-only's job
# records are purged at once; what remains is its heaps settling, in steps
# of whole pages that come rarer as the run goes on.
#
# QD_MEMORY_SUBMISSIONS (default 10000; make bench: 20000), and
# QD_MEMORY_OUT: a file for the figures (make bench: tests/bench/memory.txt).
source "$(dirname "$0")/lib.sh"

TOTAL=${QD_MEMORY_SUBMISSIONS:-10000}
CHUNKS=10
WARM_CHUNKS=4
PER=$((TOTAL / CHUNKS / 4)) # per user and kind in a chunk
BOUND=${QD_MEMORY_BOUND:-40} # bytes per submission

pid=$(tr -dc 0-9 <"$QD_CLUSTER_DIR/run/slurmctld.pid")

# mem FIELD: a /proc/PID/status figure of slurmctld, in kB.
mem() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$pid/status"; }

# worker USER N DENIED_ARGS: N denied and N accepted submissions as USER;
# prints "denied accepted other".
worker() {
	bash "$QD_ROOT/tests/cluster/as-user.sh" "$1" bash -c '
		d=0 a=0 o=0
		for ((i = 0; i < $1; i++)); do
			out=$(sbatch $2 --wrap true 2>&1)
			case $? in 1) case $out in *qosdeny:*) d=$((d + 1)) ;; *) o=$((o + 1)) ;; esac ;; *) o=$((o + 1)) ;; esac
			if sbatch --test-only -q interactive --gres=gpu:1 --wrap true >/dev/null 2>&1; then
				a=$((a + 1))
			else
				o=$((o + 1))
			fi
		done
		echo "$d $a $o"' _ "$2" "$3"
}

# chunk: one chunk of submissions, alice and bob in parallel; adds to the
# DENIED ACCEPTED OTHER tallies.
DENIED=0 ACCEPTED=0 OTHER=0
chunk() {
	local f=$QD_CLUSTER_DIR/memory-worker d a o
	worker alice "$PER" "-q interactive --gres=gpu:3" >"$f.alice" &
	worker bob "$PER" "--gres=gpu:9" >"$f.bob"
	wait
	while read -r d a o; do
		DENIED=$((DENIED + d)) ACCEPTED=$((ACCEPTED + a)) OTHER=$((OTHER + o))
	done < <(cat "$f.alice" "$f.bob")
}

cancel_all # alice's running jobs from earlier tests would change the answers
check "slurmctld's pid is readable" [ -r "/proc/$pid/status" ]
rss0=$(mem RssAnon)
t0=$SECONDS
series=""
for ((c = 1; c <= CHUNKS; c++)); do
	chunk
	series="$series $(mem RssAnon)"
	if [ $c -eq $WARM_CHUNKS ]; then
		rss_warm=$(mem RssAnon) vm_warm=$(mem VmRSS) data_warm=$(mem VmData)
	fi
done
rss_end=$(mem RssAnon) vm_end=$(mem VmRSS) data_end=$(mem VmData)
secs=$((SECONDS - t0))
n=$((DENIED + ACCEPTED + OTHER))
warm=$((n * WARM_CHUNKS / CHUNKS))
per=$(awk -v a="$rss_warm" -v b="$rss_end" -v n=$((n - warm)) \
	'BEGIN { printf "%.1f", (b - a) * 1024 / n }')

assert_eq "every submission went through: $n" "$((PER * 4 * CHUNKS))" "$n"
assert_eq "none failed otherwise" 0 "$OTHER"
check "half were denied by qosdeny ($DENIED)" [ "$DENIED" -eq $((n / 2)) ]
check "half were accepted with --test-only ($ACCEPTED)" [ "$ACCEPTED" -eq $((n / 2)) ]
assert_eq "no job record is left" "" "$(squeue -h -o %i)"
check "slurmctld's RssAnon grew ${per} B per submission after the warm-up (bound $BOUND)" \
	awk -v p="$per" -v b="$BOUND" 'BEGIN { exit !(p < b) }'

report() {
	echo "# slurmctld memory over $n submissions through job_submit/qosdeny"
	echo "# (alice and bob in parallel; half denied by qosdeny, half accepted"
	echo "# with sbatch --test-only; $secs s); /proc/PID/status, kB"
	printf '%-28s %s\n' "RssAnon_at_0" "$rss0"
	printf '%-28s %s\n' "RssAnon_after_$warm" "$rss_warm"
	printf '%-28s %s\n' "RssAnon_after_$n" "$rss_end"
	printf '%-28s %s\n' "VmRSS_after_$warm" "$vm_warm"
	printf '%-28s %s\n' "VmRSS_after_$n" "$vm_end"
	printf '%-28s %s\n' "VmData_after_$warm" "$data_warm"
	printf '%-28s %s\n' "VmData_after_$n" "$data_end"
	printf '%-28s %s\n' "growth_B_per_submission" "$per"
	printf '%-28s %s\n' "RssAnon_every_$((n / CHUNKS))" "${series# }"
}
report | sed 's/^/# /'
[ -n "${QD_MEMORY_OUT:-}" ] && report >"$QD_MEMORY_OUT"
finish
