# SPDX-License-Identifier: GPL-2.0-or-later
# The throwaway cluster of the submission benchmarks (submit.sh,
# plugin_time.sh): one slurmctld for the whole run, job_submit plugins
# switched by `scontrol reconfigure`, a queue of held filler jobs.
# Sourced by those scripts, which set `work` (a scratch directory) before
# calling bench_cluster_up. QD_BENCH_QUEUED: the queue lengths ("1000
# 20000").

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$bench_dir/../integration/lib.sh"
source "$bench_dir/../integration/example-policy.sh"
source "$bench_dir/../integration/cluster-up.sh"
QUEUED=${QD_BENCH_QUEUED:-1000 20000}
CONFIGS=(none qosdeny lua)
fill=$QD_BUILD/tests/fill_queue
cluster=$QD_ROOT/tests/cluster/cluster.sh

die() {
	echo "bench: $*" >&2
	exit 1
}

# bench_cluster_up: the cluster with the example policy, the benchmark's
# Lua script, and room for the longest queue plus the measured jobs;
# stopped when the caller exits.
bench_cluster_up() {
	local q max=0
	[ -x "$fill" ] || die "$fill missing (make $fill)"
	for q in $QUEUED; do
		[ "$q" -gt "$max" ] && max=$q
	done
	rm -rf "$work"
	mkdir -p "$work/etc"
	printf '%s\n' "$EXAMPLE_POLICY" >"$work/etc/qosdeny.conf"
	# MinJobAge: the measured jobs are cancelled after each row and must
	# leave slurmctld's job list (purged every 10 s) before the next
	# configuration.
	cat >"$work/slurm.conf.extra" <<EOC
MaxJobCount=$((max * 2 + 10000))
MinJobAge=2
EOC
	export QD_ETC_FILES="$work/etc/qosdeny.conf $QD_ROOT/tests/bench/job_submit.lua"
	export QD_SLURM_CONF_EXTRA=$work/slurm.conf.extra
	trap cluster_down EXIT
	bash "$cluster" start >/dev/null || exit 1
	# shellcheck disable=SC1091
	source "$QD_CLUSTER_DIR/env"
	example_qos || die "example QoS not set up"
	CTLD_PID=$(ctld_pid)
}

ctld_pid() { slurm_pid "$QD_CLUSTER_DIR/run/slurmctld.pid"; }
ctld_replaced() { # OLD_PID
	local p
	p=$(ctld_pid)
	[ -n "$p" ] && [ "$p" != "$1" ] && [ -d "/proc/$p" ]
}

# Every configuration must have been measured in the same process (on
# 24.05 and later: in the process its reconfigure started).
same_ctld() {
	[ "$(ctld_pid)" = "$CTLD_PID" ] && [ -d "/proc/$CTLD_PID" ] ||
		die "slurmctld restarted during the run"
}

# use_config NAME (none, qosdeny, lua): slurm.conf's JobSubmitPlugins for
# NAME, taken by `scontrol reconfigure` (job_submit_plugin_reconfig unloads
# and loads the plugins): one slurmctld process for the whole run, so no
# configuration gets a luckier process than another. A first version
# restarted slurmctld per configuration: one configuration's rounds spread
# wider than the gaps between configurations (none, seq, 1,000 queued:
# 678-1253 us).
use_config() {
	case $1 in
	none) unset QD_JOBSUBMIT ;;
	*) export QD_JOBSUBMIT=$1 ;;
	esac
	local old=$CTLD_PID
	bash "$cluster" write-conf && scontrol reconfigure ||
		die "slurmctld did not take config $1"
	# From 24.05 a reconfigure starts a new slurmctld process, which
	# writes the pidfile once it is up: the rows measure that one (on
	# 22.05 the whole run is one process).
	if slurm_at_least 24.05; then
		wait_for "a new slurmctld after the reconfigure" 60 \
			ctld_replaced "$old" || die "config $1: no new slurmctld"
		CTLD_PID=$(ctld_pid)
	fi
	local have
	have=$(scontrol show config | sed -n 's/^JobSubmitPlugins *= *//p')
	[ "$have" == "${QD_JOBSUBMIT:-(null)}" ] ||
		die "config $1: slurmctld reports JobSubmitPlugins=$have"
	# the first submission after a reconfigure pays for caches
	as alice sbatch -J bench --hold --gres=gpu:1 --wrap true
	[ "$RC" -eq 0 ] || die "$1 warm-up: $OUT"
	scancel -u alice -n bench
}

pending() { squeue -h -t PD -n "$1" -o %i | wc -l; }
no_bench_pending() { [ "$(pending bench)" -eq 0 ]; }
# no job named bench left in slurmctld's job list (cancelled ones purged)
bench_gone() { [ -z "$(squeue -h -t all -n bench -o %i)" ]; }

# The measured jobs (named bench) cancelled and purged.
clear_bench() {
	scancel -u alice -n bench
	wait_for "measured jobs cancelled" 60 no_bench_pending >&2
	wait_for "cancelled jobs purged" 60 bench_gone || die "bench jobs not purged"
}

# fill_to Q: the filler jobs (held, alice, gpu:1) topped up to Q.
fill_to() {
	local have
	have=$(pending fill)
	[ "$have" -lt "$1" ] || return 0
	"$fill" --user alice --count $(($1 - have)) --hold --gres gpu:1 \
		-J fill >"$work/fill.log" 2>&1 || die "fill_queue: $(cat "$work/fill.log")"
	cat "$work/fill.log" >&2
	[ "$(pending fill)" -eq "$1" ] || die "queue holds $(pending fill) jobs, not $1"
}

# sdiag_avg RPC: "count average_us" of RPC since the last `sdiag -r`
sdiag_avg() {
	sdiag | awk -v r="$1" '$1 == r {
		for (i = 2; i <= NF; i++) {
			if ($i ~ /^count:/) c = substr($i, 7)
			if ($i ~ /^ave_time:/) a = substr($i, 10)
		}
	} END { print c + 0, a + 0 }'
}

# The machine, for a table's header.
machine() {
	echo "$(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
}

# probe_durations PERF_DATA GROUP EVENT: one line per call, microseconds from
# the uprobe GROUP:EVENT to GROUP:EVENT_ret (perf probe's %return) of the
# same thread.
probe_durations() {
	perf script -i "$1" --ns -F tid,time,event 2>/dev/null | awk -v e="$2:$3:" \
		-v r="$2:$3_ret__return:" '
		{ t = $2; sub(":", "", t) }
		$3 == e { start[$1] = t }
		$3 == r && ($1 in start) { printf "%.2f\n", (t - start[$1]) * 1e6; delete start[$1] }'
}

# pick N P: the P-quantile (0-1) of the N sorted numbers on stdin.
pick() { awk -v n="$1" -v p="$2" 'NR == int((n - 1) * p) + 1 { print; exit }'; }
