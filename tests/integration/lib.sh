# SPDX-License-Identifier: GPL-2.0-or-later
# Assertions and cluster helpers for the integration tests (bash, sourced).
# Each test file is run by run.sh with the cluster up and $QD_CLUSTER_DIR/env
# sourced; results are counted per file for tests/summary.sh.

QD_PASS=0
QD_FAIL=0
QD_ROOT=${QD_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# Where make put this Slurm version's build (make B=...), cluster and results.
export QD_BUILD=${QD_BUILD:-$QD_ROOT/build}

pass() { QD_PASS=$((QD_PASS + 1)); echo "ok - $*"; }
fail() { QD_FAIL=$((QD_FAIL + 1)); echo "not ok - $*"; }

# check DESCRIPTION COMMAND...: passes when the command succeeds.
check() {
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

assert_eq() { # DESCRIPTION EXPECTED ACTUAL
	if [ "$2" == "$3" ]; then
		pass "$1"
	else
		fail "$1: expected '$2', got '$3'"
	fi
}

assert_contains() { # DESCRIPTION NEEDLE HAYSTACK
	if [[ "$3" == *"$2"* ]]; then
		pass "$1"
	else
		fail "$1: '$2' not in: $3"
	fi
}

assert_not_contains() { # DESCRIPTION NEEDLE HAYSTACK
	if [[ "$3" != *"$2"* ]]; then
		pass "$1"
	else
		fail "$1: '$2' unexpectedly in: $3"
	fi
}

# as USER CMD...: runs a Slurm client as that user; sets OUT (stdout+stderr)
# and RC. A client still waiting after QD_CLIENT_TIMEOUT seconds (an
# salloc or srun whose job should have been denied, and pends instead) is
# stopped, so that one wrong decision fails its checks instead of hanging
# the suite.
as() {
	local user=$1
	shift
	passwd_of "$user" # here, not in the subshell: the answer is kept
	OUT=$(as_exec "$user" timeout -k 10 "${QD_CLIENT_TIMEOUT:-300}" "$@" 2>&1)
	RC=$?
}

# as_user USER CMD...: what tests/cluster/as-user.sh does, without its
# processes: in USER's directory of the cluster (job output lands there),
# as USER with the groups, HOME, SHELL, USER and LOGNAME that runuser -u
# gives, SLURM_CONF set. A test runs thousands of clients: each runuser
# started a shell, dirname and a PAM session logged to the journal, about
# 40 ms of CPU each on the development host and far more in the VM's
# emulated guest (docs/development.md, "What it costs").
declare -gA QD_PASSWD_HOME QD_PASSWD_SHELL
# passwd_of USER: USER's home and shell, looked up once per test.
passwd_of() {
	local pw
	[ -z "${QD_PASSWD_HOME[$1]+set}" ] || return 0
	pw=$(getent passwd "$1") || {
		echo "as_user: no user $1" >&2
		return 1
	}
	IFS=: read -r _ _ _ _ _ "QD_PASSWD_HOME[$1]" "QD_PASSWD_SHELL[$1]" <<<"$pw"
}
as_user() {
	passwd_of "$1" || return 1
	(as_exec "$@")
}
# as_exec USER CMD...: as_user's work in a shell that has nothing left to
# do (as's command substitution): the shell becomes CMD.
as_exec() {
	local user=$1
	shift
	passwd_of "$user" || return 1
	[ -d "$QD_CLUSTER_DIR/users/$user" ] && cd "$QD_CLUSTER_DIR/users/$user"
	HOME=${QD_PASSWD_HOME[$user]} SHELL=${QD_PASSWD_SHELL[$user]} \
		USER=$user LOGNAME=$user SLURM_CONF=$QD_CLUSTER_DIR/etc/slurm.conf \
		exec setpriv --reuid="$user" --regid="$user" --init-groups "$@"
}

# nap SECONDS: a sleep without a process.
source "$QD_ROOT/tests/cluster/nap.sh"

# wait_for DESCRIPTION SECONDS COMMAND...: polls the command until it
# succeeds or SECONDS of wall time have passed: every 0.1 s for the first
# second, every 0.2 s up to 5 s, then every 0.5 s. A poll of a Slurm
# client costs it, munged and slurmctld about 12 ms of CPU; ten a second
# for the whole of a long wait took a tenth of a core from the lanes and
# VMs beside it (make check, docs/development.md).
wait_for() {
	local what=$1 limit=$2 start=${EPOCHREALTIME/./} ms
	shift 2
	while :; do
		"$@" && return 0
		ms=$(((${EPOCHREALTIME/./} - start) / 1000))
		[ "$ms" -lt $((limit * 1000)) ] || break
		if [ "$ms" -lt 1000 ]; then
			nap 0.1
		elif [ "$ms" -lt 5000 ]; then
			nap 0.2
		else
			nap 0.5
		fi
	done
	echo "# timed out after ${limit}s waiting for $what" >&2
	return 1
}

# slurm_at_least MAJOR.MINOR: the cluster's Slurm is that release or later.
slurm_at_least() {
	local v a b
	v=$(scontrol --version) # "slurm 24.11.5"
	IFS=. read -r a b _ <<<"${v#* }"
	v=$((a * 100 + b))
	IFS=. read -r a b _ <<<"$1"
	[ "$v" -ge $((a * 100 + b)) ]
}

job_state() { squeue -h -j "$1" -o %T 2>/dev/null; }

# job_tres ID [req|alloc]: the job's TRES as scontrol shows them. 22.05 has
# one TRES= (requested while pending, allocated once running), 23.02 and
# later ReqTRES= and AllocTRES=. An answer lost on the way (seen with
# make check's four clusters on two cores: "slurm_load_jobs error: Broken
# pipe" from an ASan slurmctld) is asked for again, as an administrator
# would, rather than read as no TRES.
job_tres() {
	local pre=Req out i l
	[ "${2:-req}" == alloc ] && pre=Alloc
	for i in 1 2 3 4 5; do
		out=$(scontrol show job "$1") && break
		echo "# scontrol show job $1 failed (try $i), asking again" >&2
		sleep 1
	done
	# The first line that starts (past its indent) with ${pre}TRES= or TRES=.
	while IFS= read -r l; do
		l=${l#"${l%%[! ]*}"}
		[[ $l =~ ^($pre)?TRES=([^ ]*) ]] || continue
		printf '%s\n' "${BASH_REMATCH[2]}"
		return
	done <<<"$out"
}
job_running() { [ "$(job_state "$1")" == RUNNING ]; }

# submit_running USER ARGS...: sbatch a long job and wait until it runs;
# prints the job id.
submit_running() {
	local user=$1 id
	shift
	as "$user" sbatch --parsable "$@" --wrap 'sleep 600'
	id=${OUT%%;*}
	if [ "$RC" -ne 0 ] || ! wait_for "job $id to run" 30 job_running "$id"; then
		echo "# could not start job for $user: $OUT" >&2
		return 1
	fi
	echo "$id"
}

# The queue drains within a second or two; the bound is for a job whose
# completion Slurm delays (24.11 retries a step's completion message after
# 60 s where slurmctld was slow to answer the first), so that the next test
# does not find its node still busy.
cancel_all() {
	scancel -u alice -u bob -u charlie 2>/dev/null
	scancel -u alice 2>/dev/null
	scancel -u bob 2>/dev/null
	scancel -u charlie 2>/dev/null
	wait_for "queue to drain" 150 queue_empty
}
queue_empty() { [ -z "$(squeue -h -o %i)" ]; }

# write_policy TEXT: qosdeny.conf replaced whole; where slurmctld runs
# job_submit/qosdeny, returns once its watcher thread took the file in (a
# reload or an error line, docs/how-it-decides.md "Reload"), or after 10 s.
# A line saying the file is missing is not that: the watcher can log one
# for the moment before the file appeared (a test that removed it), and
# reads the new file only at its next look, 250 ms later.
# slurm_pid FILE: the pid a Slurm daemon's pidfile names, on its first line
# (tests/cluster/cluster.sh, pidfile_pid: from 24.05 a restarted daemon's
# shorter pid leaves the old one's tail on a second line).
slurm_pid() {
	local l=""
	{ IFS= read -r l <"$1"; } 2>/dev/null
	printf '%s' "${l//[!0-9]/}"
}

write_policy() {
	local dir n pid
	dir=${SLURM_CONF%/*}
	pid=$(slurm_pid "$QD_CLUSTER_DIR/run/slurmctld.pid")
	n=$(policy_lines)
	printf '%s\n' "$1" >"$dir/qosdeny.conf.new"
	mv "$dir/qosdeny.conf.new" "$dir/qosdeny.conf"
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
		grep -qi '^JobSubmitPlugins=.*qosdeny' "$SLURM_CONF"; then
		wait_for "slurmctld to take qosdeny.conf in" 10 \
			eval '[ "$(policy_lines)" -gt "$n" ]' 2>/dev/null
	fi
	return 0
}
# policy_lines: the watcher's log lines on a re-read of a qosdeny.conf that
# exists (the site factor's own refresh logs its errors too, on its own
# schedule: "qosdeny: site factor: ...").
policy_lines() {
	grep -E "qosdeny: policy reloaded from|qosdeny: .*; the previous policy stays in force" \
		"$QD_CLUSTER_DIR/log/slurmctld.log" 2>/dev/null |
		grep -vE "qosdeny: site factor: |: No such file or directory; the previous policy stays in force" -c
}

ctld_log() { cat "$QD_CLUSTER_DIR/log/slurmctld.log"; }
# log_lines, then log_since N: what slurmctld logged after those N lines.
log_lines() { ctld_log | wc -l; }
log_since() { ctld_log | tail -n +$(($1 + 1)); }
# kept_has TEXT: the policy copy slurmctld keeps ($KEPT, the test's
# StateSaveLocation/qosdeny.conf.last-good) holds TEXT.
kept_has() { grep -qF -- "$1" "$KEPT" 2>/dev/null; }

# The test file's tally, for tests/summary.sh.
finish() {
	echo "# $(basename "$0"): $QD_PASS passed, $QD_FAIL failed"
	mkdir -p "$QD_RESULTS"
	echo "${QD_SUITE:-integration} $(basename "$0" .sh) $QD_PASS $QD_FAIL" >>"$QD_RESULTS/counts"
	[ "$QD_FAIL" -eq 0 ]
}
