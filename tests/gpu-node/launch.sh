# SPDX-License-Identifier: GPL-2.0-or-later
# The launch benchmark on the GPU node (tests/bench/launch-lib.sh), the
# opt-in part of make check-gpu-node: checks.sh sources this file and runs
# gpu_launch where QD_GPU_LAUNCH is set (`make check-gpu-node
# QD_GPU_LAUNCH=1`; a node's time is short). Beside task/none, ROUNDS
# rounds (QD_GPU_ROUNDS, 4) of RUNS `srun -n1 true` as alice (QD_GPU_JOBS,
# 20) per setting: empty, hooks (the do-nothing plugin the runtime carries)
# and plugin (spank_qosdeny.so reporting to the node's Redis), slurmd
# restarted for each at SlurmdDebug=debug (its "completed epilog" lines
# end the whole job). The report, with its "goal:" line judged as measured
# (a real node), goes to $QD_RESULTS/launch.txt and to the output.
# shellcheck disable=SC2086 # SRUN and CUDA_PROBE: word lists (checks.sh)
# shellcheck source=tests/bench/launch-lib.sh
source /qosdeny/tests/bench/launch-lib.sh

launch_use() { bash "$NODESH" plugin "$1" && bash "$NODESH" restart-slurmd; }
launch_job() { as alice srun -A research -n1 true; }

gpu_launch() {
	local d=/tmp/launch
	ROUNDS=${QD_GPU_ROUNDS:-4}
	RUNS=${QD_GPU_JOBS:-20}
	LAUNCH_LOGS=("$SLURMD_LOG")
	echo "# ---- launch cost, task/none"
	check "launch: the do-nothing plugin is in the runtime" \
		test -r "$(bash "$NODESH" hooks-so)" || return
	check "launch: Slurm up, task/none, SlurmdDebug=debug" \
		bash "$NODESH" start task/none no debug || return
	# Without the plugin a job without GPUs opens them all: the empty
	# setting really takes the plugin out of the launch.
	launch_use empty
	run_as alice $SRUN bash "$PROBE"
	assert_eq "launch: without the plugin a job without GPUs opens them" \
		"$(expected_devs "$(seq -s, 0 99)")" "$(devs_of "$OUT")"
	if [ -z "${QD_GPU_NO_CUDA:-}" ]; then
		run_as alice $SRUN $CUDA_PROBE
		assert_eq "launch: without the plugin a job without GPUs runs CUDA" \
			"cuInit=0 devices=$(expected_devs "" | wc -w) ctx=0 alloc=0" "$OUT"
	fi
	mkdir -p "$d"
	check "launch: every job of every round ran" launch_rounds "$d"
	{
		echo "# what spank_qosdeny.so adds to a whole job on this GPU node, beside a"
		echo "# plugin whose job prolog and epilog do nothing (hooks): srun -n1 true as"
		echo "# alice, task/none, no PrologFlags, Redis on loopback; $ROUNDS rounds x $RUNS"
		echo "# jobs per setting, rotating, slurmd restarted for each. Microseconds."
		echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $NODE, $(nproc) CPUs, kernel $(uname -r), Slurm $(dpkg-query -W -f '${Version}' slurmd)"
		launch_table "$d"
		launch_goal "$d" judged
	} >"$QD_RESULTS/launch.txt"
	sed 's/^/# /' "$QD_RESULTS/launch.txt"
}
