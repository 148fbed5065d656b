#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench, part 3: what a job_submit plugin adds to slurmctld's handling
# of a submission, side by side on one throwaway cluster in one run:
#   none     no JobSubmitPlugins
#   qosdeny  job_submit/qosdeny with docs/worked-example.md's policy
#   lua      job_submit/lua with tests/bench/job_submit.lua (the example
#            policy's per-job GPU caps, the most Lua can do: no usage)
# with QD_BENCH_QUEUED jobs already queued (held, so nothing runs; filled by
# build/tests/fill_queue).  Per row, COUNT requests from N parallel clients:
#   batch  sbatch --hold --gres=gpu:1 (accepted by all three), real sbatch
#          processes as alice
#   alloc  the same job through REQUEST_RESOURCE_ALLOCATION (salloc's RPC):
#          fill_queue --alloc, as salloc would block waiting for the held job
#   seq    the batch job from one client (fill_queue), one request at a
#          time: slurmctld's cost without the clients' contention for the
#          CPU and its locks, the steadiest figure on a small machine
#   deny   sbatch -q interactive --gpus=5 --hold: over the QoS's per-job cap,
#          so qosdeny and lua reject it; without a plugin slurmctld queues it
# The cost comes from slurmctld itself (sdiag, reset before each row: average
# microseconds of the RPC) and the clients' rate (requests per second, wall
# clock).  Configurations alternate in rotated order for ROUNDS rounds so
# drift hits all alike, in one slurmctld process (use_config); the table
# gives the median and the range.
#
# Environment: QD_BENCH_QUEUED ("1000 20000"), QD_BENCH_N (8),
# QD_BENCH_KINDS ("seq batch alloc deny"),
# QD_BENCH_COUNT (400 per row), QD_BENCH_ROUNDS (5), QD_BENCH_OUT
# (tests/bench/submit.txt), QD_CLUSTER_DIR.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/bench/bench-lib.sh"
N=${QD_BENCH_N:-8}
COUNT=${QD_BENCH_COUNT:-400}
ROUNDS=${QD_BENCH_ROUNDS:-5}
KINDS=${QD_BENCH_KINDS:-seq batch alloc deny}
out=${QD_BENCH_OUT:-$here/bench/submit.txt}
work=$QD_BUILD/bench-submit
PER=$((COUNT / N))
COUNT=$((PER * N))
T_START=$SECONDS

[ "$PER" -gt 0 ] || die "QD_BENCH_COUNT must be at least QD_BENCH_N"
bench_cluster_up

# One sbatch client: $1 submissions of the job given by the other words;
# prints "accepted rejected last-error".
SBATCH_LOOP='n=$1; shift; ok=0; bad=0; err=
for ((i = 0; i < n; i++)); do
	if e=$(sbatch -J bench "$@" --wrap true 2>&1 >/dev/null); then
		ok=$((ok + 1))
	else
		bad=$((bad + 1)); err=$e
	fi
done
echo "$ok $bad $err"'

# row KIND EXPECT: one measurement of KIND (batch, alloc, deny, seq)
# expected to be accepted (ok) or rejected (no); prints "rate avg_us p50_us",
# p50 the clients' median latency where fill_queue is the client, else "-".
row() {
	local kind=$1 expect=$2 rpc=REQUEST_SUBMIT_BATCH_JOB w t0 t1 ok=0 bad=0 a b e err=
	local clients=$N per=$PER p50=-
	[ "$kind" = seq ] && clients=1 per=$COUNT
	rm -rf "$work/c"
	mkdir "$work/c"
	sdiag -r >/dev/null
	t0=$(date +%s%N)
	for ((w = 0; w < clients; w++)); do
		case $kind in
		batch)
			bash "$QD_ROOT/tests/cluster/as-user.sh" alice bash -c "$SBATCH_LOOP" \
				loop "$PER" --hold --gres=gpu:1 ;;
		deny)
			bash "$QD_ROOT/tests/cluster/as-user.sh" alice bash -c "$SBATCH_LOOP" \
				loop "$PER" --hold -q interactive --gpus=5 ;;
		alloc)
			"$fill" --user alice --alloc --count "$PER" --hold --gres gpu:1 \
				-J bench --keep-going 2>"$work/c/e$w" ;;
		seq)
			"$fill" --user alice --count "$per" --hold --gres gpu:1 \
				-J bench --keep-going 2>"$work/c/e$w" ;;
		esac >"$work/c/w$w" 2>&1 &
	done
	wait
	t1=$(date +%s%N)
	for ((w = 0; w < clients; w++)); do
		if [ "$kind" = alloc ] || [ "$kind" = seq ]; then
			read -r _ a _ b _ <"$work/c/w$w"
		else
			read -r a b e <"$work/c/w$w"
			[ -n "$e" ] && err=$e
		fi
		ok=$((ok + ${a:-0}))
		bad=$((bad + ${b:-0}))
	done
	[ "$kind" = alloc ] && rpc=REQUEST_RESOURCE_ALLOCATION
	if [ "$kind" = alloc ] || [ "$kind" = seq ]; then
		p50=$(sed -n 's/.* p50 \([0-9]*\) us.*/\1/p' "$work"/c/w* | sort -n |
			awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	fi
	read -r c avg < <(sdiag_avg $rpc)
	if [ "$expect" = ok ] && [ "$ok" -ne "$COUNT" ]; then
		die "$CONFIG $kind: $ok of $COUNT accepted: $err $(cat "$work/c/w0")"
	fi
	if [ "$expect" = no ] && [ "$bad" -ne "$COUNT" ]; then
		die "$CONFIG $kind: $bad of $COUNT rejected"
	fi
	case $CONFIG/$kind in
	qosdeny/deny) [[ $err == *qosdeny* ]] || die "qosdeny did not deny: $err" ;;
	lua/deny) [[ $err == *"allows at most 4 GPUs"* ]] || die "lua did not deny: $err" ;;
	esac
	[ "$c" -eq "$COUNT" ] || die "$CONFIG $kind: sdiag counted $c $rpc, sent $COUNT"
	if [ "$ok" -gt 0 ]; then
		scancel -u alice -n bench
		wait_for "measured jobs cancelled" 60 no_bench_pending >&2
	fi
	awk -v n="$COUNT" -v ns=$((t1 - t0)) -v a="$avg" -v p="$p50" \
		'BEGIN { printf "%.1f %d %s\n", n / (ns / 1e9), a, p }'
}

raw=$work/raw
: >"$raw"
for q in $QUEUED; do
	for ((r = 0; r < ROUNDS; r++)); do
		for ((k = 0; k < ${#CONFIGS[@]}; k++)); do
			CONFIG=${CONFIGS[$(((k + r) % ${#CONFIGS[@]}))]}
			use_config "$CONFIG"
			wait_for "cancelled jobs purged" 60 bench_gone || die "bench jobs not purged"
			fill_to "$q"
			for kind in $KINDS; do
				expect=ok
				[ "$kind" = deny ] && [ "$CONFIG" != none ] && expect=no
				read -r rate avg p50 < <(row "$kind" "$expect") || exit 1
				[ -n "${p50:-}" ] || exit 1
				echo "$q $CONFIG $kind $expect $avg $rate $p50" | tee -a "$raw" >&2
			done
		done
	done
done
elapsed=$((SECONDS - T_START))
same_ctld

# median [min-max] over the rounds of each (queued, config, kind)
summary() {
	printf '%-7s %-8s %-6s %-9s %-20s %-20s %s\n' queued config kind result \
		"rpc_avg_us [range]" "client_p50_us" "submits_per_s [range]"
	awk -v order="$QUEUED" -v kinds="seq batch alloc deny" -v cfgs="${CONFIGS[*]}" '
	function med(k, f, n,   i, j, t, a) {
		for (i = 1; i <= n; i++) a[i] = v[k, f, i]
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		lo = a[1]; hi = a[n]
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function cell(k, f, fmt,   m) {
		if (v[k, f, 1] == "-") return "-"
		m = med(k, f, cnt[k])
		return sprintf(fmt " [" fmt "-" fmt "]", m, lo, hi)
	}
	{ k = $1 SUBSEP $2 SUBSEP $3; n = ++cnt[k]; res[k] = $4
	  v[k, 5, n] = $5; v[k, 6, n] = $6; v[k, 7, n] = $7 }
	END {
		nq = split(order, Q, " "); nk = split(kinds, K, " "); nc = split(cfgs, C, " ")
		for (a = 1; a <= nq; a++) for (b = 1; b <= nk; b++) for (c = 1; c <= nc; c++) {
			k = Q[a] SUBSEP C[c] SUBSEP K[b]
			if (!cnt[k]) continue
			printf "%-7s %-8s %-6s %-9s %-20s %-20s %s\n", Q[a], C[c], K[b],
				res[k] == "ok" ? "accepted" : "denied", cell(k, 5, "%d"),
				cell(k, 7, "%d"), cell(k, 6, "%.0f")
		}
	}' "$raw"
}

# qosdeny against none and lua per (queued, kind): medians of sdiag's
# average and, where fill_queue is the client, of the clients' p50
compare() {
	awk -v order="$QUEUED" -v kinds="seq batch alloc deny" '
	function med(k, c, f,   n, i, j, t, a) {
		n = cnt[k, c]
		for (i = 1; i <= n; i++) a[i] = v[k, c, f, i]
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function pct(a, b) { return b ? sprintf("%+6.1f%%", (a - b) * 100 / b) : "-" }
	function line(k, f, what,   n, qd, l) {
		n = med(k, "none", f); qd = med(k, "qosdeny", f); l = med(k, "lua", f)
		split(k, p, SUBSEP)
		printf "# queued %-6s %-5s %-8s qosdeny %s, %s vs lua\n", p[1], p[2], what,
			p[2] == "deny" ? "(none queues it)" : pct(qd, n) " vs none", pct(qd, l)
	}
	{ k = $1 SUBSEP $3; n = ++cnt[k, $2]
	  v[k, $2, 5, n] = $5; v[k, $2, 7, n] = $7 }
	END {
		nq = split(order, Q, " "); nk = split(kinds, K, " ")
		for (a = 1; a <= nq; a++) for (b = 1; b <= nk; b++) {
			k = Q[a] SUBSEP K[b]
			if (!cnt[k, "qosdeny"] || !cnt[k, "none"] || !cnt[k, "lua"]) continue
			line(k, 5, "rpc_avg")
			if (v[k, "qosdeny", 7, 1] != "-") line(k, 7, "p50")
		}
	}' "$raw"
}

{
	echo "# slurmctld's cost per submission RPC by job_submit plugin (sdiag ave_time, us)"
	echo "# and the clients' rate; $COUNT requests per row, $ROUNDS rounds, configs rotated"
	echo "# each round, switched by scontrol reconfigure in one slurmctld process"
	echo "# for the whole run; median [min-max] over rounds. seq: one client (fill_queue), one"
	echo "# request at a time, --hold --gres=gpu:1; batch: the same job from $N parallel"
	echo "# sbatch processes; alloc: the same as REQUEST_RESOURCE_ALLOCATION ($N x"
	echo "# fill_queue --alloc); deny: $N x sbatch -q interactive --gpus=5, over the"
	echo "# per-job cap (no plugin: queued, held)."
	echo "# queued: held jobs already in the queue. sdiag 22.05 reports no per-RPC max;"
	echo "# client_p50_us: median request latency seen by fill_queue (seq, alloc)."
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(machine), run took ${elapsed}s"
	summary
	compare
} | tee "$out"
