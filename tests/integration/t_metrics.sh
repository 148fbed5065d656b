#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurmctld's metrics file (docs/metrics.md): with metrics_dir= in
# qosdeny.conf, job_submit/qosdeny writes qosdeny_ctld.prom there, and its
# counts are those of the jobs this test submits: accepted, denied by each
# flag, would-be denied under Enforce=no, a reload refused; the group and
# per-user caps' limits and use. With site_factor/qosdeny loaded too, its
# refreshes, failures while Redis is stopped and the jobs whose factor it
# set are in the same file, which it writes itself where job_submit/qosdeny
# is not loaded. Each slurmd writes its own: usage records sent and
# spooled, the spool, a failed binding. Debian's node_exporter serves the file, Prometheus's
# promtool finds nothing to say of it, and `qosdeny metrics` prints it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
source "$(dirname "$0")/usage-lib.sh"
EXTRA=$QD_CLUSTER_DIR/metrics-site-factor.conf
plugstack_was=$(cat "$PLUGSTACK" 2>/dev/null)
DIR=$QD_CLUSTER_DIR/metrics
FILE=$DIR/qosdeny_ctld.prom
ne_pid=
# Back to the suite's slurm.conf and plugstack.conf, whatever happened.
restore() {
	[ -n "$ne_pid" ] && kill "$ne_pid"
	cancel_all >/dev/null
	bash "$CLUSTER" redis-start >/dev/null
	if [ -s "$EXTRA" ]; then
		: >"$EXTRA"
		bash "$CLUSTER" write-conf >/dev/null
		bash "$CLUSTER" restart-ctld >/dev/null
	fi
	printf '%s' "$plugstack_was" >"$PLUGSTACK"
	[ -n "$node_part" ] && bash "$CLUSTER" restart-slurmd >/dev/null
	return 0
}
node_part=
trap restore EXIT
rm -rf "$DIR"
mkdir -p "$DIR"
chmod 755 "$DIR"

# value SAMPLE [TEXT]: the value of the sample (its name and labels as
# written) in TEXT, by default the file; 0 when it is not there.
value() {
	awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' \
		<<<"${2-$(cat "$FILE" 2>/dev/null)}"
}
C_I='qosdeny_submissions_checked_total{qos="interactive"}'
A_I='qosdeny_submissions_accepted_total{qos="interactive"}'
C_R='qosdeny_submissions_checked_total{qos="research"}'
D_USER='qosdeny_submissions_denied_total{flag="DenyOnMaxPerUser",qos="interactive",tres="gres/gpu"}'
D_GRP='qosdeny_submissions_denied_total{flag="DenyOnGrp",qos="interactive",tres="gres/gpu"}'
D_JOB='qosdeny_submissions_denied_total{flag="DenyOnMaxPerJob",qos="research",tres="gres/gpu"}'
W_GRP='qosdeny_submissions_would_deny_total{flag="DenyOnGrp",qos="interactive",tres="gres/gpu"}'
G_LIM='qosdeny_qos_grp_limit{qos="interactive",tres="gres/gpu"}'
G_USE='qosdeny_qos_grp_in_use{qos="interactive",tres="gres/gpu"}'
U_LIM='qosdeny_qos_user_limit{qos="interactive",tres="gres/gpu"}'
U_ALICE='qosdeny_qos_user_in_use{qos="interactive",tres="gres/gpu",user="alice"}'
ERRS=qosdeny_policy_reload_errors_total
# has SAMPLE [TEXT]: the sample is there, whatever its value.
has() { grep -qF -- "$1 " <<<"${2-$(cat "$FILE" 2>/dev/null)}"; }
# reaches SAMPLE N: the file shows SAMPLE at N (rewritten every second).
reaches() { [ "$(value "$1")" = "$2" ]; }
sbatch_test() { as "$1" sbatch --test-only "${@:2}" --wrap true; }

METRICS="metrics_dir=$DIR
metrics_interval=1"
since=$(date +%s)
write_policy "$EXAMPLE_POLICY
$METRICS"
check "slurmctld writes $FILE" wait_for "the metrics file" 10 test -s "$FILE"
assert_eq "readable by node_exporter's user: mode 644" 644 "$(stat -c %a "$FILE")"
assert_eq "the policy's 3 records" 3 "$(value qosdeny_policy_records)"
loaded=$(value qosdeny_policy_loaded_timestamp_seconds)
check "loaded at the write ($loaded, written at $since)" \
	test "$loaded" -ge "$since" -a "$loaded" -le "$(date +%s)"

# The known mix, counted from what the file says now.
c_i=$(value "$C_I") a_i=$(value "$A_I") c_r=$(value "$C_R")
d_user=$(value "$D_USER") d_grp=$(value "$D_GRP") d_job=$(value "$D_JOB")
A1=$(submit_running alice -q interactive --gres=gpu:2)
check "alice's 2 interactive GPUs run" [ -n "$A1" ]
sbatch_test alice -q interactive --gpus=1
assert_contains "alice's third GPU: DenyOnMaxPerUser" "DenyOnMaxPerUser" "$OUT"
sbatch_test bob -q interactive --gpus=3
assert_contains "bob's 3 GPUs: DenyOnMaxPerUser" "DenyOnMaxPerUser" "$OUT"
B1=$(submit_running bob -q interactive --gres=gpu:2)
check "bob's 2 interactive GPUs run" [ -n "$B1" ]
sbatch_test charlie -q interactive --gpus=1
assert_contains "charlie's GPU past the group's 4: DenyOnGrp" "DenyOnGrp" "$OUT"
sbatch_test alice -q research --gres=gpu:9
assert_contains "9 research GPUs: DenyOnMaxPerJob" "DenyOnMaxPerJob" "$OUT"

# The file is written every second: one that shows the last submission
# shows every one before it.
check "1 research submission checked" \
	wait_for "the counts" 10 reaches "$C_R" $((c_r + 1))
assert_eq "and denied by DenyOnMaxPerJob" $((d_job + 1)) "$(value "$D_JOB")"
assert_eq "5 interactive submissions checked" $((c_i + 5)) "$(value "$C_I")"
assert_eq "2 accepted" $((a_i + 2)) "$(value "$A_I")"
assert_eq "2 denied by DenyOnMaxPerUser on gres/gpu" $((d_user + 2)) "$(value "$D_USER")"
assert_eq "1 by DenyOnGrp" $((d_grp + 1)) "$(value "$D_GRP")"
assert_eq "interactive's group limit: 4 GPUs" 4 "$(value "$G_LIM")"
assert_eq "in use: alice's 2 and bob's 2" 4 "$(value "$G_USE")"
assert_eq "interactive's per-user limit: 2 GPUs" 2 "$(value "$U_LIM")"
assert_eq "batch-lowprio's: 32 CPUs" 32 \
	"$(value 'qosdeny_qos_user_limit{qos="batch-lowprio",tres="cpu"}')"
assert_not_contains "no user's series without metrics_per_user=yes" \
	"qosdeny_qos_user_in_use{" "$(cat "$FILE")"
write_policy "$EXAMPLE_POLICY
$METRICS
metrics_per_user=yes"
check "with it, alice's 2 GPUs" wait_for "alice's series" 10 reaches "$U_ALICE" 2
assert_eq "and bob's 2" 2 "$(value "${U_ALICE/alice/bob}")"

# Enforce=no: accepted, and counted as a would-be denial.
w_grp=$(value "$W_GRP") a_i=$(value "$A_I") d_grp=$(value "$D_GRP")
write_policy "${EXAMPLE_POLICY/Enforce=yes/Enforce=no}
$METRICS"
sbatch_test charlie -q interactive --gpus=1
assert_eq "Enforce=no accepts charlie's GPU" 0 "$RC"
check "a would-be denial by DenyOnGrp" \
	wait_for "the would-be denial" 10 reaches "$W_GRP" $((w_grp + 1))
assert_eq "counted as accepted" $((a_i + 1)) "$(value "$A_I")"
assert_eq "and not as denied" "$d_grp" "$(value "$D_GRP")"

# A broken edit: refused, counted; the policy in force keeps writing.
errs=$(value $ERRS)
write_policy "$EXAMPLE_POLICY
$METRICS
QOS=x Flags=DenyOnNothing"
check "the refused reload is counted" \
	wait_for "the reload error" 10 reaches $ERRS $((errs + 1))
write_policy "$EXAMPLE_POLICY
$METRICS"

# The real tools: promtool's lint, node_exporter's textfile collector.
if command -v promtool >/dev/null; then
	lint=$(promtool check metrics <"$FILE" 2>&1)
	assert_eq "promtool check metrics: nothing to say" "" "$lint"
	# The queries docs/metrics.md and the example dashboard give are
	# PromQL that Prometheus takes: as recording rules, promtool parses
	# each.
	rules=$QD_CLUSTER_DIR/metrics-queries.yml
	{
		echo "groups:"
		echo "- name: qosdeny"
		echo "  rules:"
		i=0
		while IFS= read -r q; do
			i=$((i + 1))
			printf '  - record: q%d\n    expr: |\n      %s\n' "$i" "$q"
		done < <(
			sed -n '/^```promql$/,/^```$/{/^```/d;p}' "$QD_ROOT/docs/metrics.md"
			sed -n 's/^ *"expr": "\(.*\)",\{0,1\}$/\1/p' \
				"$QD_ROOT/conf.example/grafana-qosdeny.json" |
				sed 's/\\"/"/g; s/\$__rate_interval/5m/g'
		)
	} >"$rules"
	check "promtool takes every query of docs/metrics.md and the dashboard ($i)" \
		promtool check rules "$rules"
else
	fail "promtool is not installed (Debian's prometheus)"
fi
port=$(bash "$QD_ROOT/tests/cluster/cluster.sh" free-ports 1)
prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$DIR" >"$QD_CLUSTER_DIR/log/node-exporter.log" 2>&1 &
ne_pid=$!
scrape() {
	local r
	exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
	printf 'GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
	r=$(cat <&3)
	exec 3<&-
	SCRAPE=${r//$'\r'/}
	[[ $SCRAPE == *"node_textfile_scrape_error"* ]]
}
check "node_exporter serves $DIR" wait_for "node_exporter" 20 scrape 2>/dev/null
assert_eq "it read the directory without an error" 0 \
	"$(value node_textfile_scrape_error "$SCRAPE")"
snap=$(cat "$FILE")
for s in "$C_I" "$D_USER" "$D_GRP" "$D_JOB" "$W_GRP" "$G_USE"; do
	assert_eq "node_exporter's $s" "$(value "$s" "$snap")" "$(value "$s" "$SCRAPE")"
done

# qosdeny metrics: the file, as the daemons wrote it.
OUT=$("$QD" metrics 2>&1)
RC=$?
assert_eq "qosdeny metrics exits 0" 0 "$RC"
assert_contains "and prints slurmctld's families" \
	"# TYPE qosdeny_submissions_denied_total counter" "$OUT"
assert_contains "with their counts" "$D_GRP " "$OUT"

# --- The site factor: its families in the same file ----------------------
SF_RUNS=qosdeny_site_factor_refreshes_total
SF_ERRS=qosdeny_site_factor_refresh_errors_total
SF_OK=qosdeny_site_factor_last_success_timestamp_seconds
SF_SET=qosdeny_site_factor_jobs_set_total
cat >"$EXTRA" <<EOT
PriorityType=priority/multifactor
PrioritySiteFactorPlugin=site_factor/qosdeny
PrioritySiteFactorParameters=weight=1000,interval=5
PriorityCalcPeriod=1
EOT
echo "required spank_qosdeny.so redis=$QD_REDIS_ADDR timeout_ms=1000" >"$PLUGSTACK"
check "slurmctld restarted with the site factor" bash -c \
	"QD_SLURM_CONF_EXTRA='$EXTRA' bash '$CLUSTER' write-conf >/dev/null && bash '$CLUSTER' restart-ctld >/dev/null"
above() { [ "$(value "$1")" -gt "$2" ]; } # SAMPLE N
check "its refreshes are counted in $FILE" wait_for "refreshes" 20 above $SF_RUNS 1
ok1=$(value $SF_OK)
check "the last one succeeded ($ok1)" test "$ok1" -gt 0
check "none failed" eval 'has $SF_ERRS && [ "$(value $SF_ERRS)" = 0 ]'
set0=$(value $SF_SET)
as alice sbatch --parsable --begin=now+3600 -q interactive --wrap true
check "a pending job's factor is set at its submission" \
	wait_for "the jobs set" 20 above $SF_SET "$set0"
assert_eq "the ctld's own families are still there" 1 \
	"$(grep -c '^# TYPE qosdeny_submissions_checked_total counter$' "$FILE")"
bash "$CLUSTER" redis-stop >/dev/null
check "with Redis stopped, its refreshes fail and are counted" \
	wait_for "refresh errors" 20 above $SF_ERRS 0
bash "$CLUSTER" redis-start >/dev/null
check "with Redis back, one succeeds again" \
	wait_for "a success" 20 above $SF_OK "$(value $SF_OK)"

lint=$(promtool check metrics <"$FILE" 2>&1)
assert_eq "promtool has nothing to say of the whole file" "" "$lint"
check "node_exporter serves the site factor's families too" \
	eval 'scrape && [ "$(value $SF_RUNS "$SCRAPE")" -gt 0 ]'

# A directory that is not there: said once in slurmctld's log, the policy
# still in force, written again once it exists.
n=$(log_lines)
write_policy "$EXAMPLE_POLICY
metrics_dir=$DIR/gone
metrics_interval=1"
check "slurmctld says it cannot write there" wait_for "the error" 10 \
	eval 'log_since "$n" | grep -qF "qosdeny: metrics: cannot write $DIR/gone/qosdeny_ctld.prom: No such file or directory"'
sbatch_test alice -q interactive --gpus=1
assert_contains "the policy is still in force" "DenyOnMaxPerUser" "$OUT"
mkdir "$DIR/gone"
check "written once the directory is there" wait_for "the file" 10 \
	test -s "$DIR/gone/qosdeny_ctld.prom"
assert_eq "the error was logged once" 1 \
	"$(log_since "$n" | grep -cF "cannot write $DIR/gone/")"

# A file that cannot be put in place (a directory holds its name, so each
# rename fails, for root too): said with the step and the cause, not the
# temporary file's name, which differs at every write (the unit tests hold
# a failure to one line), then written again once it can be.
mkdir -p "$DIR/ro/qosdeny_ctld.prom/x"
n=$(log_lines)
write_policy "$EXAMPLE_POLICY
metrics_dir=$DIR/ro
metrics_interval=1"
ro_said() { log_since "$n" | grep -qF "qosdeny: metrics: cannot write $DIR/ro/qosdeny_ctld.prom: rename qosdeny_ctld.prom: Is a directory"; }
check "slurmctld says it cannot write there, and why" wait_for "the error" 10 ro_said
rm -r "$DIR/ro/qosdeny_ctld.prom"
again() { log_since "$n" | grep -qF "qosdeny: metrics: $DIR/ro/qosdeny_ctld.prom written again"; }
check "and that it writes there again" wait_for "the recovery" 10 again
assert_eq "the failure said once" 1 \
	"$(log_since "$n" | grep -cF "cannot write $DIR/ro/")"
assert_eq "no temporary file left behind" "qosdeny_ctld.prom" \
	"$(ls -A "$DIR/ro")"

# --- Each slurmd's file: usage records sent, spooled, the spool --------
NODE1=$DIR/qosdeny_node_n1.prom
N_SENT='qosdeny_node_usage_records_sent_total{node="n1"}'
N_SPOOLED='qosdeny_node_usage_records_spooled_total{node="n1"}'
N_CLOSED='qosdeny_node_spool_records{node="n1",state="closed"}'
N_AGE='qosdeny_node_spool_oldest_age_seconds{node="n1"}'
N_AT='qosdeny_node_redis_exchange_timestamp_seconds{node="n1"}'
nvalue() { value "$1" "$(cat "$NODE1" 2>/dev/null)"; }
nreaches() { [ "$(nvalue "$1")" = "$2" ]; }
nabove() { [ "$(nvalue "$1")" -gt "$2" ]; }
cancel_all >/dev/null
node_part=yes
# adopt_dir= of this cluster's own: the binding's counts are there.
NODE_LINE="required spank_qosdeny.so redis=$QD_REDIS_ADDR metrics_dir=$DIR metrics_interval=1 adopt_dir=$QD_CLUSTER_DIR/adopt"
echo "$NODE_LINE" >"$PLUGSTACK"
# With -D, as Debian's systemd unit runs it: 22.05's slurmd otherwise
# forks after loading its plugins and leaves the thread behind (it says
# so: "no heartbeat ... and no metrics file is written").
check "slurmd restarted with metrics_dir=" \
	env QD_SLURMD_FOREGROUND=yes bash "$CLUSTER" restart-slurmd
check "slurmd writes $NODE1" wait_for "n1's file" 20 test -s "$NODE1"
check "and n2's, each slurmd its own" wait_for "n2's file" 20 \
	test -s "$DIR/qosdeny_node_n2.prom"
check "its series are labelled with the node" \
	eval 'grep -q "^qosdeny_node_" "$NODE1" && ! grep "^qosdeny_node_" "$NODE1" | grep -vq "{node=\"n1\""'
sent=$(nvalue "$N_SENT") spooled=$(nvalue "$N_SPOOLED")
as bob sbatch --parsable -w n1 --gres=gpu:1 --wrap true
check "bob's job on n1 ended" wait_for "the job" 60 queue_empty
check "its record, sent by the epilog, is counted" \
	wait_for "the sent count" 10 nreaches "$N_SENT" $((sent + 1))
check "with the exchange's time" test "$(nvalue "$N_AT")" -ge "$since"
check "nothing waits in the spool" \
	eval 'has "$N_CLOSED" "$(cat "$NODE1")" && [ "$(nvalue "$N_CLOSED")" = 0 ]'
rtt=$(awk '$1 == "qosdeny_node_redis_round_trip_seconds{node=\"n1\"}" { print $2 }' "$NODE1")
check "the exchange's round trip, $rtt s, is a round trip's" \
	awk -v r="${rtt:-0}" 'BEGIN { exit !(r > 0 && r < 10) }'

bash "$CLUSTER" redis-stop >/dev/null
as bob sbatch --parsable -w n1 --gres=gpu:1 --wrap true
check "bob's second job ended, Redis stopped" wait_for "the job" 60 queue_empty
check "its record stayed in the spool: counted as spooled" \
	wait_for "the spooled count" 10 nreaches "$N_SPOOLED" $((spooled + 1))
check "and waits there" wait_for "the closed record" 10 nreaches "$N_CLOSED" 1
check "for longer and longer" wait_for "its age" 10 nabove "$N_AGE" 0
bash "$CLUSTER" redis-start >/dev/null
OUT=$("$QD" flush 2>&1)
assert_contains "qosdeny flush sends it" "1 sent" "$OUT"
check "counted as sent, by the tool" \
	wait_for "the sent count" 10 nreaches "$N_SENT" $((sent + 2))
check "and the spool holds no closed record" \
	wait_for "the spool" 10 nreaches "$N_CLOSED" 0
OUT=$("$QD" metrics 2>&1)
assert_eq "qosdeny metrics: each family's TYPE once, the nodes' merged" 1 \
	"$(grep -c '^# TYPE qosdeny_node_usage_records_sent_total counter$' <<<"$OUT")"
assert_contains "with n1's series" "$N_SENT " "$OUT"
assert_contains "and n2's" 'qosdeny_node_usage_records_sent_total{node="n2"} ' "$OUT"
lint=$(promtool check metrics <"$NODE1" 2>&1)
assert_eq "promtool has nothing to say of n1's file" "" "$lint"
check "node_exporter serves n1's file" \
	eval 'scrape && [ "$(value "$N_SENT" "$SCRAPE")" = "$(nvalue "$N_SENT")" ]'

# A task whose GPU binding fails is not started (t_gpu_binding.sh): counted.
N_BIND='qosdeny_node_binding_failures_total{node="n1",step="task"}'
check "n1's file has the binding's failures" has "$N_BIND" "$(cat "$NODE1")"
bind=$(nvalue "$N_BIND")
echo "$NODE_LINE gpu_devices=$QD_DEV_DIR/none[0-3]" >"$PLUGSTACK"
as alice srun -N1 -w n1 --gres=gpu:1 true
assert_contains "a task whose binding fails is not started" \
	"GPU binding failed, task not started" "$OUT"
check "and is counted as a binding failure" \
	wait_for "the binding failure" 10 nreaches "$N_BIND" $((bind + 1))
echo "$NODE_LINE" >"$PLUGSTACK"

# Without job_submit/qosdeny, the site factor writes the file itself.
rm -f "$FILE"
check "slurmctld restarted without JobSubmitPlugins" bash -c \
	"QD_JOBSUBMIT='' QD_SLURM_CONF_EXTRA='$EXTRA' bash '$CLUSTER' write-conf >/dev/null && bash '$CLUSTER' restart-ctld >/dev/null"
write_policy "$EXAMPLE_POLICY
$METRICS"
check "the site factor writes $FILE" wait_for "its file" 20 above $SF_RUNS 0
assert_eq "with its families alone" 0 \
	"$(grep -c '^# TYPE qosdeny_submissions_checked_total' "$FILE")"
lint=$(promtool check metrics <"$FILE" 2>&1)
assert_eq "promtool has nothing to say of it" "" "$lint"

write_policy "$EXAMPLE_POLICY"
printf '%s' "$plugstack_was" >"$PLUGSTACK"
OUT=$("$QD" metrics 2>&1)
RC=$?
assert_eq "without metrics_dir, qosdeny metrics exits 1" 1 "$RC"
assert_contains "and says why" "no metrics_dir is set" "$OUT"
finish
