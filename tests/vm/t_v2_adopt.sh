#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ssh into a job's node on Slurm's cgroup/v2 (pure cgroup v2 VM, Slurm
# 24.11 or 26.05, proctrack/cgroup, PrologFlags=Contain): pam_slurm_adopt
# adds the session to the extern step's cgroup (.../JOB/step_extern/user/
# task_special, JOB job_N or on 26.05 the job's SLUID), which the extern
# step confined in place with the job's
# GPUs, and pam_qosdeny.so checks that it is: the session opens the job's
# GPU and not the node's other, stays where Slurm put it (no qosdeny_*
# cgroup anywhere), and ends with the job, nothing left. Beside task/none
# and task/cgroup with ConstrainDevices=no and =yes.
#
# Each job is cancelled once its extern slurmstepd stopped waiting on the
# sessions' processes, as a real session ends well before its job. Slurm
# 24.11.5's extern stepd polls each adopted pid once a second from a
# thread of its own (`_wait_extern_pid`, src/slurmd/slurmstepd/req.c)
# which its teardown does not join: one still polling when the job ends
# calls into plugins already finalized, and the stepd dies (`segfault at 0
# ip 0000000000000000` in dmesg, no `done with step`, its empty
# job_N/step_extern left), with or without qosdeny (tests/vm/README.md).
# SchedMD ticket 22770, fixed in 24.11.6 (commits 824d5364a5, cdd07341b7).
# Every segfault the kernel logged is printed.
source "$(dirname "$0")/vm-lib.sh"
source /qosdeny/tests/integration/sshd-lib.sh
ADOPT=$(ls /usr/lib/*/security/pam_slurm_adopt.so 2>/dev/null | head -n 1)
PAM_QD=$(dirname "$QD_VM_PLUGIN")/pam_qosdeny.so
ADOPT_DIR=/run/qosdeny

if [ -z "$ADOPT" ] || [ ! -r "$PAM_QD" ]; then
	fail "pam_slurm_adopt.so ($ADOPT) and $PAM_QD are needed"
	finish
	exit
fi

# contain TASKPLUGIN CONSTRAIN: Slurm as vm_slurm starts it, plus
# PrologFlags=Contain (both daemons started again on it).
contain() {
	vm_slurm "$1" "$2" || return 1
	bash "$VMDIR/slurm.sh" stop
	echo "PrologFlags=Contain" >>"$SLURM_CONF"
	# cancel's marker is a debug2 line of the extern stepd.
	sed -i 's/^SlurmdDebug=.*/SlurmdDebug=debug2/' "$SLURM_CONF"
	slurmctld -f "$SLURM_CONF" -i &&
		bash "$VMDIR/slurm.sh" restart-slurmd &&
		wait_for "node idle" 30 node_idle
}

pam_lines() { # with_qosdeny: 1 or 0
	local l="account  required $ADOPT service=$SSHD_SERVICE"
	[ "$1" = 1 ] && l+="
account  required $PAM_QD
session  required $PAM_QD"
	sshd_pam_stack "$l"
}

probe_cmd="$(gpu_probe)
echo \"job=\$SLURM_JOB_ID\"
echo \"cg=\$(cut -d: -f3 /proc/self/cgroup)\""

# hold GRES: alice's job holding GRES until cancelled; sets J once its
# extern step recorded the confinement.
hold() {
	SESSIONS=0
	J=$(sbatch_running --gres="$1" --wrap 'sleep 300') &&
		wait_for "job $J's extern step" 30 test -e "$ADOPT_DIR/vm/job_$J.adopt"
}

# sessions_waited: the extern stepd's thread for each of job J's SESSIONS
# saw its pid end. Once it did, it logs (debug2) `adding tracking of
# orphaned process` for the stepd itself, whose parent is init here, in
# the step's cgroup (req.c); a thread then waits on that pid, which never
# ends before the stepd, and never calls into a plugin.
sessions_waited() {
	[ "$(log_since | grep -c "\[$J\.extern\].*adding tracking of orphaned process")" \
		-ge "$SESSIONS" ]
}

# cancel: scancel $J once sessions_waited, then the kernel's segfault
# lines since the last cancel. Only on 24.11: 26.05 has the fix, and its
# extern stepd logs no such line.
cancel() {
	if [ "${QD_VM_SLURM:-24.11}" = 24.11 ]; then
		wait_for "job $J's extern stepd to see its $SESSIONS sessions end" 10 \
			sessions_waited || echo "# job $J: extern stepd still polling a session's pid"
	fi
	scancel "$J"
}
SEGV=$(dmesg | grep -ci segfault)
segfaults() {
	dmesg | grep -i segfault | tail -n +$((SEGV + 1)) | sed 's/^/# dmesg: /'
	SEGV=$(dmesg | grep -ci segfault)
}

# session WHAT GPUS: an ssh session as alice, adopted into $J, opens GPUS
# and not the node's other GPU, in the extern step's own cgroup.
session() {
	ssh_alice "$probe_cmd"
	SESSIONS=$((SESSIONS + 1))
	[ "$RC" = 0 ] || printf '# %s\n' "$OUT"
	assert_eq "$1: ssh session runs" 0 "$RC"
	assert_eq "$1: adopted into job $J" "job=$J" \
		"$(printf '%s\n' "$OUT" | grep '^job=')"
	assert_eq "$1: opens the job's GPUs ($2), not the other" \
		"$(expected_probe "$2" | cut -d' ' -f2-)" \
		"$(printf '%s\n' "$OUT" | grep '^gpus=' | cut -d' ' -f2-)"
	assert_match "$1: in the extern step's own cgroup" \
		"slurmstepd\.scope/$(job_dir_re "$J")/step_extern/user/task_special\$" \
		"$(printf '%s\n' "$OUT" | grep '^cg=')"
	assert_eq "$1: no cgroup of qosdeny's" "" \
		"$(find "$CG" -type d -name 'qosdeny_*' 2>/dev/null)"
}

sshd_start
check "sshd up on 127.0.0.1:$SSHD_PORT" test -n "$SSHD_PORT"
trap 'sshd_stop' EXIT

for setting in "task/none no" "task/cgroup no" "task/cgroup yes"; do
	read -r tp cd <<<"$setting"
	name="$tp ConstrainDevices=$cd"
	echo "# ---- $name"
	contain "$tp" "$cd" || {
		fail "$name: Slurm with PrologFlags=Contain"
		continue
	}
	log_mark
	pam_lines 1

	hold gpu:1 || fail "$name: job holding a GPU"
	gpus=$(cat "$ADOPT_DIR/vm/job_$J.gpus" 2>/dev/null)
	check "$name: the prolog recorded the job's GPU" test -n "$gpus"
	assert_contains "$name: the extern step confined its cgroup in place" \
		"dir=$CG/" "$(cat "$ADOPT_DIR/vm/job_$J.adopt" 2>/dev/null)"
	session "$name" "$gpus"
	# The extern step's cgroup is confined whatever the PAM stack: even a
	# session pam_qosdeny never saw cannot open the other GPU.
	pam_lines 0
	session "$name, without pam_qosdeny" "$gpus"
	pam_lines 1
	cancel
	ended_cleanly "$name, the job with a session cancelled" "$J"
	segfaults
	assert_eq "$name: no record left" "" \
		"$(find "$ADOPT_DIR" -name "job_$J.*" 2>/dev/null)"

	# A job holding all the node's GPUs: nothing to confine.
	hold gpu:2 || fail "$name: job holding both GPUs"
	session "$name, job with both GPUs" 0,1
	cancel
	ended_cleanly "$name, the job with both GPUs" "$J"
	segfaults
done
finish
