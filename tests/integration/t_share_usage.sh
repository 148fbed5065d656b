#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A job on part of a GPU is charged its share of it: S of a GPU's N shards
# (gres/shard) or MPS share (gres/mps) count S/N GPUs for the job's time
# on the node, to a thousandth; whole GPUs beside them count 1 each. S/N is
# slurmctld's (`qosdeny held`, asked by the prolog), which `scontrol show
# job -d` shows too; nothing the job's user sets changes it. The site
# factor's running usage charges the same share while the job runs. Where
# the prolog cannot ask, the job is charged its whole GPUs and slurmd's
# log says so. Each GPU gets 4 shards, then 100 MPS shares.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/gpu-lib.sh"
source "$(dirname "$0")/example-policy.sh"
source "$(dirname "$0")/usage-lib.sh"
GRES=$QD_SLURM_ETC/gres.conf

# milli_text M: thousandths as a record writes them ("0.5", "2").
milli_text() {
	local w=$(($1 / 1000)) f
	if (($1 % 1000 == 0)); then
		echo "$w"
		return
	fi
	f=$(printf '%03d' $(($1 % 1000)))
	f=${f%0}
	f=${f%0}
	echo "$w.$f"
}

# shares NAME COUNT VAR: NAME:COUNT on each GPU of both nodes.
shares() {
	cp "$GRES.orig" "$GRES"
	unset QD_SHARD_GRES QD_MPS_GRES
	share_lines "$1" "$2" >>"$GRES"
	export "$3=yes"
	check "$1:$2 on each GPU of both nodes" add_gres_type
}

# held WHAT USER MGPUS NODES ARGS...: USER's job of ARGS runs 5 s; while it
# runs, on each of NODES `qosdeny held` says it holds MGPUS thousandths of
# GPUs and Slurm's detail shows its GRES; once it ended, each node's record
# in Redis charges MGPUS for the seconds slurmctld gives it. Sets J.
held() {
	local what=$1 user=$2 m=$3 nodes=$4 node rec s e t0 out
	shift 4
	as "$user" sbatch --parsable "$@" --wrap 'sleep 5'
	J=${OUT%%;*}
	if [ "$RC" -ne 0 ] || ! wait_for "job $J to run" 30 job_running "$J"; then
		fail "$what: the job did not run: $OUT"
		return
	fi
	for node in ${nodes//,/ }; do
		t0=${EPOCHREALTIME/./}
		out=$("$QD" held "$J" "$node" 2>&1)
		echo "# qosdeny held $J $node took $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
		assert_eq "$what: qosdeny held $J $node" "$(milli_text "$m")" "$out"
	done
	assert_contains "$what: Slurm's detail of the job" "GRES=" \
		"$(scontrol show job -d "$J" | grep -E '^ +Nodes=')"
	wait_for "job $J to end" 30 queue_empty
	for node in ${nodes//,/ }; do
		rec=$(redis_record "$J" "$node")
		if [ -z "$rec" ]; then
			fail "$what: no record of job $J on $node in Redis"
			continue
		fi
		s=$(($(field "$rec" end) - $(field "$rec" start)))
		e=$(job_elapsed "$J")
		assert_eq "$what: job $J on $node, GPUs" "$(milli_text "$m")" \
			"$(field "$rec" gpus)"
		check "$what: job $J on $node lasted ${s}s, slurmctld's ${e}s within 2 s" \
			test "$s" -ge $((e - 2)) -a "$s" -le $((e + 2))
		assert_eq "$what: job $J on $node, gpu_seconds = $(milli_text "$m") GPUs x ${s}s" \
			"$(milli_text $((m * s)))" "$(field "$rec" gpu_seconds)"
	done
}

cp "$GRES" "$GRES.orig"
redis_clear
check "reporting on (plugstack.conf, slurmd restarted)" reporting_on
shares shard 4 QD_SHARD_GRES

# The prolog at the batch step's launch, then at allocation on every node
# of the job (PrologFlags=Alloc, as README's slurm.conf has it).
held "shard:2 of a GPU's 4" alice 500 n1 -w n1 --gres=shard:2
export QD_SLURM_CONF_EXTRA=$QD_CLUSTER_DIR/prolog-alloc.conf
echo "PrologFlags=Alloc" >"$QD_SLURM_CONF_EXTRA"
check "PrologFlags=Alloc in slurm.conf" reconfigure_nodes
held "shard:2 of a GPU's 4, the prolog at allocation" alice 500 n1 \
	-w n1 --gres=shard:2
held "shard:1 on each of two nodes" charlie 250 n1,n2 -N2 --gres=shard:1
held "a whole GPU on a node with shards" bob 1000 n1 -w n1 --gres=gpu:1
# What the user sets is not what is held: a name in the detail's form,
# SLURM_JOB_GPUS and SLURM_SHARDS_ON_NODE exported.
held "shard:1, the job's name and environment posing as more" alice 250 n2 \
	-w n2 --gres=shard:1 -J 'x GRES=gpu:4(IDX:0-3)' \
	--export=ALL,SLURM_JOB_GPUS=0-3,SLURM_SHARDS_ON_NODE=16

# The site factor's running usage charges the same share while the job
# runs: its entry's GPU-seconds are half its run time so far.
cat >>"$QD_SLURM_CONF_EXTRA" <<EOF
PriorityType=priority/multifactor
PrioritySiteFactorPlugin=site_factor/qosdeny
PrioritySiteFactorParameters=interval=5
EOF
check "slurmctld with the site factor" reconfigure_nodes
as alice sbatch --parsable -w n1 --gres=shard:2 --wrap 'sleep 300'
J=${OUT%%;*}
running_half "alice's shard:2 job" "$J"
scancel "$J"
wait_for "job $J to end" 30 queue_empty
gone() { [ -z "$(rcli hget "qosdeny:{$QD_CLUSTER_NAME}:running" "$J")" ]; }
check "its record replaced its running entry" wait_for "the entry to go" 30 gone
echo "PrologFlags=Alloc" >"$QD_SLURM_CONF_EXTRA"

# Where the prolog finds no tool to ask, the share is unknown: the whole
# GPU is charged, and said. The plugin alone in a directory, without the
# build's qosdeny beside it (none is installed on the test host).
alone=$QD_CLUSTER_DIR/plugin-alone
mkdir -p "$alone"
cp "$QD_BUILD/spank_qosdeny.so" "$alone/"
echo "required $alone/spank_qosdeny.so redis=$QD_REDIS_ADDR" >"$PLUGSTACK"
bash "$CLUSTER" restart-slurmd >/dev/null
J=$(submit_running bob -w n2 --gres=shard:1) || fail "bob's shard job did not run"
# Cancelled before its prolog ran on n2, the job would hold nothing there
# and have no record (make check run on stop 53, 26.05: RUNNING in squeue,
# the prolog not yet run after slurmd's restart): it ends once the prolog
# has said why it charges the whole GPU.
why="qosdeny: job $J prolog: its share of its GPUs on n2 is unknown (qosdeny is not at /usr/local/bin/qosdeny nor in $alone); charged as 1 whole GPU(s)"
check "and slurmd logged why" wait_for "the prolog's line" 30 \
	grep -qF "$why" "$QD_LOG_DIR/slurmd-n2.log"
scancel "$J"
wait_for "job $J to end" 30 queue_empty
assert_eq "the share unknown: charged as the whole GPU" 1 \
	"$(field "$(redis_record "$J" n2)" gpus)"
DOUT=$("$QD" doctor -P --node=n2 2>&1)
l=$(printf '%s\n' "$DOUT" | grep "^[^|]*|gpus|" | head -n 1)
assert_eq "doctor's gpus check warns of it" warn "${l%%|*}"
assert_contains "naming why" \
	"jobs on n2 may hold shards or MPS shares, and the job prolog cannot learn a job's share (qosdeny is not at /usr/local/bin/qosdeny nor in $alone)" \
	"$l"
check "reporting with the build's plugin again" reporting_on
DOUT=$("$QD" doctor -P --node=n2 2>&1)
assert_eq "and is ok with the tool beside the plugin" ok \
	"$(printf '%s\n' "$DOUT" | grep "^[^|]*|gpus|" | cut -d'|' -f1)"
rm -rf "$alone"

# Shards in slurm.conf alone, none in gres.conf: Slurm spreads them over
# each node's GPUs (gres.shtml, "No Shard/MPS configuration").
cp "$GRES.orig" "$GRES"
check "16 shards a node from slurm.conf's Gres= alone" reconfigure_nodes
held "shard:2, the node's shards in slurm.conf alone" alice 500 n1 \
	-w n1 --gres=shard:2

# From shards to MPS through whole GPUs: a slurmd registering without the
# shares its slurmctld expects is drained.
cp "$GRES.orig" "$GRES"
unset QD_SHARD_GRES
check "the nodes have their whole GPUs alone" reconfigure_nodes
shares mps 100 QD_MPS_GRES
held "mps:50 of a GPU's 100" alice 500 n1 -w n1 --gres=mps:50
held "mps:25 of a GPU's 100" bob 250 n2 -w n2 --gres=mps:25

cp "$GRES.orig" "$GRES"
rm -f "$GRES.orig" "$QD_SLURM_CONF_EXTRA"
unset QD_MPS_GRES QD_SLURM_CONF_EXTRA
check "the nodes have their whole GPUs alone again" reconfigure_nodes
reporting_off
finish
