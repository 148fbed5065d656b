#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurmctld's memory stays flat over many submissions through
# job_submit/qosdeny: no per-submission leak. alice and bob submit at once,
# each in turn a job qosdeny denies (counted, decided, message built, Slurm
# rejects it, no job record) and a job it accepts (decided, its QoS label
# put in its SPANK environment) that Slurm then refuses for its unknown
# partition, so that no job record stays. (--test-only did that up to
# 22.05; 24.11.5's will-run path itself keeps 16 kB per submission, with or
# without a job_submit plugin.) Each user's submissions come from one
# process (tests/helpers/submit_many.c), the job sbatch would send: one
# sbatch per submission cost about 35 ms of CPU, most of it the clients'.
#
# slurmctld's anonymous resident memory (RssAnon) is read before and after
# every tenth of the submissions. The first 4 tenths are a warm-up (its
# heaps and thread stacks settle). After it, memory moves in rare steps of
# a few pages, wherever the heaps' free space runs out; a leak moves it in
# every tenth. So the figure is the median growth of the last 6 tenths, per
# submission. Slurm itself may grow per rejected submission (24.11.5: about
# 40 bytes, without any plugin), so the same load is run again through a
# slurmctld without job_submit/qosdeny, every submission refused for its
# partition, and what is asserted is qosdeny's part: the difference, below
# a bound that a leak of 64 bytes per submission (80 in glibc's heap), or
# per denied one only, exceeds. The growth from the warm-up to the end is
# reported beside it.
#
# QD_MEMORY_SUBMISSIONS (default 10000; make bench: 20000), and
# QD_MEMORY_OUT: a file for the figures (make bench: tests/bench/memory.txt).
# 10000, each run in 10 tenths of 1000: a 64-byte leak (80 in glibc's heap)
# grows RssAnon by 80 kB a tenth (an injected one measured 77 B per
# submission at 4000), and a heap's step of a few pages is a few bytes per
# submission. 10000 took 25 s on 22.05 (one sbatch each: 4000, 456 s).
source "$(dirname "$0")/lib.sh"

TOTAL=${QD_MEMORY_SUBMISSIONS:-10000}
CHUNKS=10
WARM_CHUNKS=4
PER=$((TOTAL / CHUNKS / 4)) # per user and kind in a chunk
BOUND=${QD_MEMORY_BOUND:-32} # bytes per submission
CLUSTER=$QD_ROOT/tests/cluster/cluster.sh
NOPART=qd-no-such-partition
work=$QD_CLUSTER_DIR/t_memory
mkdir -p "$work"

ctld_pid() { slurm_pid "$QD_CLUSTER_DIR/run/slurmctld.pid"; }

# mem FIELD: a /proc/PID/status figure of slurmctld, in kB.
mem() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$pid/status"; }

# worker USER N DENIED ACCEPTED: N submissions of each kind as USER, from
# one process (tests/helpers/submit_many.c: the clients' cost is not the
# test's; a kind is "QOS,GPUS,PARTITION"); prints "denied accepted other".
# Denied: by qosdeny, whose message submit_many prints as sbatch does, once
# per denial. Accepted: refused by Slurm for the partition. Any other
# answer on stderr.
worker() {
	local out d a o q
	out=$(bash "$QD_ROOT/tests/cluster/as-user.sh" "$1" \
		"$QD_BUILD/tests/submit_many" "$2" "$3" "$4" 2>"$work/$1.err")
	# A denial without qosdeny's message is counted as another answer.
	read -r d a o <<<"$out"
	q=$(grep -c 'qosdeny:' "$work/$1.err")
	[ "$q" -le "${d:-0}" ] || q=${d:-0}
	grep -v -e 'qosdeny:' -e 'error: invalid partition specified' \
		"$work/$1.err" >&2
	echo "$q ${a:-0} $((${o:-0} + ${d:-0} - q))"
}

# measure DENY_ALICE DENY_BOB: CHUNKS chunks of submissions, alice and bob
# in parallel, RssAnon read after each; sets DENIED ACCEPTED OTHER, rss[],
# median (B per submission), overall, the kB figures and secs.
measure() {
	local c d a o t0=$SECONDS
	DENIED=0 ACCEPTED=0 OTHER=0
	pid=$(ctld_pid)
	rss=("$(mem RssAnon)")
	for ((c = 1; c <= CHUNKS; c++)); do
		worker alice "$PER" "$1" "interactive,1,$NOPART" \
			>"$work/alice" 2>>"$work/unexpected" &
		worker bob "$PER" "$2" "-,1,$NOPART" \
			>"$work/bob" 2>>"$work/unexpected"
		wait
		while read -r d a o; do
			DENIED=$((DENIED + d)) ACCEPTED=$((ACCEPTED + a))
			OTHER=$((OTHER + o))
		done < <(cat "$work/alice" "$work/bob")
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
	overall=$(awk -v a="${rss[WARM_CHUNKS]}" -v b="${rss[CHUNKS]}" \
		-v n=$((n - warm)) 'BEGIN { printf "%.1f", (b - a) * 1024 / n }')
	median=$(for ((c = WARM_CHUNKS + 1; c <= CHUNKS; c++)); do
		echo $((rss[c] - rss[c - 1]))
	done | sort -n | awk -v n="$chunk_n" '{ d[NR] = $1 }
		END { printf "%.1f", (NR % 2 ? d[(NR + 1) / 2] : (d[NR / 2] + d[NR / 2 + 1]) / 2) * 1024 / n }')
}

report() { # TITLE
	echo "# $1"
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

# --- through job_submit/qosdeny ------------------------------------------
cancel_all # jobs left by earlier tests would change the answers
check "slurmctld's pid is readable" [ -r "/proc/$(ctld_pid)/status" ]
measure "interactive,3,-" "-,9,-"
assert_eq "every submission went through: $n" "$((PER * 4 * CHUNKS))" "$n"
assert_eq "every answer was the expected one" 0 "$OTHER"
[ -s "$work/unexpected" ] && sort "$work/unexpected" | uniq -c | head -n 5 | sed 's/^/# /'
check "half were denied by qosdeny ($DENIED)" [ "$DENIED" -eq $((n / 2)) ]
check "half were accepted by qosdeny, refused by Slurm ($ACCEPTED)" [ "$ACCEPTED" -eq $((n / 2)) ]
assert_eq "no job record is left" "" "$(squeue -h -o %i)"
with=$median
mine=$(report "with job_submit/qosdeny: half denied by it, half accepted by it and refused by Slurm for their partition; $secs s")

# --- the same load, Slurm alone ------------------------------------------
# QD_JOBSUBMIT unset: write-conf drops the JobSubmitPlugins line.
(unset QD_JOBSUBMIT && bash "$CLUSTER" write-conf >/dev/null) &&
	bash "$CLUSTER" restart-ctld >"$work/restart.out" 2>&1
check "slurmctld runs without job_submit/qosdeny" \
	[ -r "/proc/$(ctld_pid)/status" ]
: >"$work/unexpected"
measure "interactive,3,$NOPART" "-,9,$NOPART"
assert_eq "without the plugin, Slurm refused each for its partition" \
	"$((PER * 4 * CHUNKS)) 0" "$ACCEPTED $OTHER"
[ -s "$work/unexpected" ] && sort "$work/unexpected" | uniq -c | head -n 5 | sed 's/^/# /'
without=$median
alone=$(report "Slurm alone: every submission refused for its partition; $secs s")
bash "$CLUSTER" write-conf >/dev/null && bash "$CLUSTER" restart-ctld >>"$work/restart.out" 2>&1
check "slurmctld is back with job_submit/qosdeny" \
	grep -q '^JobSubmitPlugins=qosdeny' "$SLURM_CONF"

qosdeny=$(awk -v a="$with" -v b="$without" 'BEGIN { printf "%.1f", a - b }')
check "qosdeny's part of slurmctld's RssAnon growth: $with - $without = $qosdeny B per submission a tenth (bound $BOUND)" \
	awk -v p="$qosdeny" -v b="$BOUND" 'BEGIN { exit !(p < b) }'

full() {
	echo "# slurmctld memory over $n submissions, alice and bob in parallel,"
	echo "# Slurm $(scontrol --version | awk '{ print $2 }'); /proc/PID/status, kB"
	printf '%s\n' "$mine" "$alone"
	printf '%-34s %s\n' "qosdeny_B_per_submission" "$qosdeny"
}
full | sed 's/^/# /'
[ -n "${QD_MEMORY_OUT:-}" ] && full >"$QD_MEMORY_OUT"
finish
