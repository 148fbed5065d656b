# SPDX-License-Identifier: GPL-2.0-or-later
# The launch benchmark's rounds and figures (docs/performance.md "Launch
# cost"), one copy for its three places: tests/bench/launch.sh (make
# bench, this host's test cluster), tests/vm/bench_launch.sh (the pure
# cgroup v2 VM) and tests/gpu-node/launch.sh (a GPU node, the opt-in part
# of make check-gpu-node). Sourced after tests/integration/lib.sh (as,
# wait_for, queue_empty).
#
# Rounds: in each, the three plugstack.conf settings of LAUNCH_SETTINGS in
# rotating order, slurmd restarted for each (it looks for a plugin's job
# prolog and epilog only when it starts), then one untimed warm-up and RUNS
# timed jobs, each started once the one before left the queue (its epilog
# done), so that no epilog runs beside a timed srun:
#   empty   no plugin;
#   hooks   tests/bench/spank_hooks_only.c, a job prolog and epilog that do
#           nothing: what Slurm charges any plugin with them;
#   plugin  spank_qosdeny.so reporting to Redis.
# A job is timed twice: srun's wall time (the job prolog, unless it ran at
# allocation, and the step) and the whole job, from srun's start to the
# end of its epilog as slurmd logs it at debug level ("completed epilog for
# jobid 5", "... for JobId=5 SLUID=..." from 26.05; stamps to the
# millisecond). With no plugin slurmd runs no epilog
# at all (src/slurmd/slurmd/req.c answers the job's end at once), so the
# job is whole when srun returns.
#
# The caller sets ROUNDS, RUNS and LAUNCH_LOGS (the slurmd logs, an
# array), and defines:
#   launch_use SETTING  plugstack.conf for it, slurmd restarted, the node
#                       idle; non-zero when that failed
#   launch_job          one job as the user, e.g. `as alice srun -n1 true`
#                       (lib.sh's as: RC and OUT)

LAUNCH_SETTINGS=(empty hooks plugin)

# summary: "n median p10 p90 min max" of the numbers on stdin. The median
# of an even count is the mean of the middle two: the lower one alone
# flattered a goal judged over 4 rounds (1,931 for 2,447 us on the GPU
# node, 2026-11-30).
summary() {
	sort -n | awk '{ a[NR] = $1 } END {
		if (!NR) { print "0 - - - - -"; exit }
		m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		printf "%d %d %d %d %d %d\n", NR, m,
			a[int((NR - 1) * 0.1) + 1], a[int((NR - 1) * 0.9) + 1], a[1], a[NR] }'
}
median() { summary | cut -d' ' -f2; }
# minus A B / plus A B: arithmetic on medians, "-" when either is "-" (no
# runs or no traced process), so that a short run still writes its report.
minus() { if [ "$1" = - ] || [ "$2" = - ]; then echo -; else echo $(($1 - $2)); fi; }
plus() { if [ "$1" = - ] || [ "$2" = - ]; then echo -; else echo $(($1 + $2)); fi; }
row() { printf '%-26s %6s %8s %8s %8s %8s %8s\n' "$@"; }
# col FILE N: column N of FILE's lines, "-" left out.
col() { cut -d' ' -f"$2" "$1" | grep -v '^-$'; }

# launch_log_mark: where each of LAUNCH_LOGS ends now.
launch_log_mark() {
	local f
	LAUNCH_MARK=()
	for f in "${LAUNCH_LOGS[@]}"; do
		LAUNCH_MARK+=("$(stat -c %s "$f" 2>/dev/null || echo 0)")
	done
}

# launch_epilog_end T0_US: when slurmd last said a job's epilog completed
# since the mark and after T0_US (epoch microseconds), or nothing.
launch_epilog_end() {
	local i
	for i in "${!LAUNCH_LOGS[@]}"; do
		tail -c +"$((LAUNCH_MARK[i] + 1))" "${LAUNCH_LOGS[i]}"
	done | awk -v t0="$1" 'tolower($0) ~ /completed epilog for jobid/ {
		ts = substr($1, 2, 23); gsub(/[-T:.]/, " ", ts); split(ts, t, " ")
		us = mktime(t[1] " " t[2] " " t[3] " " t[4] " " t[5] " " t[6]) * 1e6 + t[7] * 1000
		if (us >= t0 - 1000 && us > last) last = us } END { if (last) printf "%.0f\n", last }'
}

# launch_one SETTING: "SRUN_US WHOLE_US" of one job (WHOLE_US "-" when
# slurmd said no epilog's end); non-zero, saying why, when it failed.
launch_one() {
	local t0 t1 end
	launch_log_mark
	t0=$(date +%s%N)
	launch_job
	t1=$(date +%s%N)
	if [ "$RC" -ne 0 ]; then
		echo "launch: the job failed ($RC): $OUT" >&2
		return 1
	fi
	wait_for "the job's epilog" 60 queue_empty >&2 || return 1
	if [ "$1" = empty ]; then
		end=$((t1 / 1000))
	else
		end=$(launch_epilog_end $((t0 / 1000)))
	fi
	echo "$(((t1 - t0) / 1000)) $([ -n "$end" ] && echo $((end - t0 / 1000)) || echo -)"
}

# launch_rounds DIR: the rounds, "SETTING ROUND SRUN_US WHOLE_US" per job
# in DIR/srun; non-zero at the first failure.
launch_rounds() {
	local r k s t j
	: >"$1/srun"
	for ((r = 0; r < ROUNDS; r++)); do
		for ((k = 0; k < ${#LAUNCH_SETTINGS[@]}; k++)); do
			s=${LAUNCH_SETTINGS[$(((k + r) % ${#LAUNCH_SETTINGS[@]}))]}
			launch_use "$s" || return 1
			launch_one "$s" >/dev/null || return 1
			for ((j = 0; j < RUNS; j++)); do
				t=$(launch_one "$s") || return 1
				echo "$s $r $t" >>"$1/srun"
			done
			echo "launch: round $r $s done" >&2
		done
	done
}

# launch_round_medians DIR ROUND COLUMN: "EMPTY HOOKS PLUGIN", each
# setting's median of that column of DIR/srun in that round.
launch_round_medians() {
	local s
	for s in "${LAUNCH_SETTINGS[@]}"; do
		awk -v s="$s" -v r="$2" -v c="$3" '$1 == s && $2 == r && $c != "-" { print $c }' \
			"$1/srun" | median
	done | paste -sd' '
}

# launch_table DIR: srun's and the whole job's rows per setting, then per
# round srun's difference from empty (DIR/rounds: "HOOKS PLUGIN") and the
# whole job's differences (DIR/whole_rounds: "SLURM QOSDENY"): Slurm's
# charge (hooks - empty: the spank prolog and epilog processes and slurmd's
# 10 ms sleep after each) and qosdeny's own (plugin - hooks). Microseconds.
launch_table() {
	local s n m p10 p90 lo hi
	row what n median p10 p90 min max
	for s in "${LAUNCH_SETTINGS[@]}"; do
		read -r n m p10 p90 lo hi < <(awk -v s="$s" '$1 == s { print $3 }' "$1/srun" | summary)
		row "srun_$s" "$n" "$m" "$p10" "$p90" "$lo" "$hi"
	done
	for s in "${LAUNCH_SETTINGS[@]}"; do
		read -r n m p10 p90 lo hi < <(awk -v s="$s" '$1 == s && $4 != "-" { print $4 }' "$1/srun" | summary)
		row "whole_$s" "$n" "$m" "$p10" "$p90" "$lo" "$hi"
	done
	echo "# per round: median srun minus empty's in the same round, microseconds"
	printf '%-26s %6s %8s %8s\n' round runs hooks plugin
	launch_diffs "$1" 3 empty >"$1/rounds"
	launch_rows round_ <"$1/rounds"
	echo "# whole job (srun's start to the epilog's end), per round: median"
	echo "# hooks - empty (Slurm's charge) and plugin - hooks (qosdeny's own), us"
	printf '%-26s %6s %8s %8s\n' round runs slurm qosdeny
	launch_diffs "$1" 4 hooks >"$1/whole_rounds"
	launch_rows whole_round_ <"$1/whole_rounds"
}

# launch_diffs DIR COLUMN BASE: per round, "HOOKS-EMPTY PLUGIN-BASE" of the
# settings' medians of that column of DIR/srun (BASE empty or hooks).
launch_diffs() {
	local r e h p
	for ((r = 0; r < ROUNDS; r++)); do
		read -r e h p < <(launch_round_medians "$1" "$r" "$2")
		echo "$(minus "$h" "$e") $(minus "$p" "$([ "$3" = hooks ] && echo "$h" || echo "$e")")"
	done
}

# launch_rows PREFIX: launch_diffs' lines as rows PREFIX0, PREFIX1...
launch_rows() {
	awk -v p="$1" -v runs="$RUNS" '{ printf "%-26s %6s %8s %8s\n", p (NR - 1), runs, $1, $2 }'
}

# launch_goal DIR HOW [FSYNC_US]: the medians of launch_table's whole-job
# rounds against the goal, qosdeny's own time per whole job under 2 ms:
#   judged    on a node, as measured;
#   fsync     judged with FSYNC_US (the plugin's fsyncs per job) taken out
#             and said beside it (this host: its disk syncs several times
#             slower than a node's);
#   reported  a figure only (the VM: qemu's TCG is a software CPU).
# A "goal:" line: a report, never a failure.
launch_goal() {
	local charge own lo hi net sync=${3:--} what="qosdeny's own time per whole job under 2 ms"
	charge=$(col "$1/whole_rounds" 1 | median)
	own=$(col "$1/whole_rounds" 2 | median)
	read -r lo hi < <(col "$1/whole_rounds" 2 | summary | cut -d' ' -f5,6)
	printf 'slurm_charge_per_job %s\n' "$charge"
	printf 'qosdeny_own_per_job %s (rounds %s to %s)\n' "$own" "$lo" "$hi"
	net=$own
	if [ "$2" = fsync ]; then
		printf 'qosdeny_fsync_per_job %s\n' "$sync"
		net=$(minus "$own" "$sync")
	fi
	if [ "$net" = - ]; then
		echo "goal: $what: not measured"
	elif [ "$2" = reported ]; then
		echo "goal: $what: reported, not judged here: ${net} us"
	elif [ "$net" -lt 2000 ]; then
		echo "goal: $what: met, ${net} us${3:+ without its fsyncs (${sync} us)}, $((2000 - net)) us to spare"
	else
		echo "goal: $what: missed, ${net} us${3:+ without its fsyncs (${sync} us)}, $((net - 2000)) us over"
	fi
}
