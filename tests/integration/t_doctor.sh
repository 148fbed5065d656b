#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# qosdeny doctor (qosdeny(1)): on a good set-up every check is ok and the
# exit status 0; then each fault in turn, set up and undone, gives its line
# (warn or FAIL, with a fix) and the exit status (1 on any FAIL). The test
# cluster runs two slurmd on one host, so the node is named with --node.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
source "$(dirname "$0")/usage-lib.sh"
EXTRA=$QD_CLUSTER_DIR/doctor.conf
# The good set-up's Redis asks for a password (the doctor warns where it
# answers without one), kept in a root-owned file.
PASS_FILE=$QD_SLURM_ETC/doctor-redis.pass
printf 'doctor-secret\n' >"$PASS_FILE"
chmod 600 "$PASS_FILE"
GOOD_LINE="required spank_qosdeny.so redis=$QD_REDIS_ADDR redis_password_file=$PASS_FILE"
rcli() {
	redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" -a doctor-secret \
		--no-auth-warning "$@"
}
redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" config set requirepass doctor-secret >/dev/null

# Jobs run uncharged are a spool warning (t_usage_noacct.sh checks it).
rm -f "$QD_SPOOL_DIR"/n[12]/qosdeny/.unrecorded

# doctor ARGS...: qosdeny doctor -P as root; sets DOUT and DRC.
doctor() {
	DOUT=$("$QD" doctor -P "$@" 2>&1)
	DRC=$?
}

# line CHECK: the -P line of that check in DOUT.
line() { printf '%s\n' "$DOUT" | grep "^[^|]*|$1|" | head -n 1; }

# expect WHAT ARGS CHECK STATUS RC [TEXT]: doctor ARGS gives CHECK that
# status (with a fix unless ok), the exit status RC, and TEXT in its line.
expect() {
	local what=$1 args=$2 check=$3 status=$4 rc=$5 text=${6:-} l
	# shellcheck disable=SC2086
	doctor $args
	l=$(line "$check")
	assert_eq "$what: $check is $status" "$status" "${l%%|*}"
	assert_eq "$what: exit status" "$rc" "$DRC"
	[ -z "$text" ] || assert_contains "$what: detail" "$text" "$l"
	if [ "$status" != ok ]; then
		check "$what: a fix is given" test -n "${l##*|}"
	fi
}

# conf [LINES]: slurm.conf rewritten with these extra lines (and the
# caller's QD_JOBSUBMIT), slurmctld restarted.
conf() {
	printf '%s\n' "PrologFlags=Alloc" "${1:-}" >"$EXTRA"
	QD_SLURM_CONF_EXTRA=$EXTRA bash "$CLUSTER" write-conf >/dev/null &&
		bash "$CLUSTER" restart-ctld >/dev/null
}

plugstack() { printf '%s\n' "$1" >"$PLUGSTACK"; }

# --- the good set-up (the example QoS's limits as docs/worked-example.md has them,
# whatever a test before this one changed)
example_qos
check "good: slurmctld restarted with PrologFlags=Alloc" conf
plugstack "$GOOD_LINE"
doctor --node=n1 --controller
assert_eq "good: exit status 0" 0 "$DRC"
assert_eq "good: header" "Status|Check|Detail|Fix" "$(printf '%s\n' "$DOUT" | head -n 1)"
assert_eq "good: no line but ok" "" \
	"$(printf '%s\n' "$DOUT" | tail -n +2 | grep -v '^ok|')"
for c in job-submit policy-load accounting-enforce accounting-tres \
	qosdeny.conf qos-exist qos-limits typed-tres site-factor node plugstack gpus \
	cgroup cgroup-binding redis spool prolog-flags slurm-version; do
	assert_eq "good: $c ok" ok "$(line "$c" | cut -d'|' -f1)"
done
assert_contains "good: slurmd -G agrees on n1's GPUs" "as slurmd -G" "$(line gpus)"
assert_contains "good: the plugin found in PluginDir" \
	"${QD_PLUGINDIR:-$QD_BUILD}/spank_qosdeny.so redis=" "$(line plugstack)"
assert_contains "good: the round trip is given" "round trip" "$(line redis)"
# This host is hybrid (v1 devices mounted): cgroup=auto binds in a v1 child
# devices cgroup, as the plugin does for a task (qd_cg_decide_layout).
assert_contains "good: the binding's layout named" "binding: v1 child cgroup (cgroup=auto)" "$(line cgroup)"
l=$(line cgroup-binding)
assert_contains "good: a v1 child devices cgroup made" \
	"v1 child cgroup denying 4 devices: made in /sys/fs/cgroup/devices/" "$l"
dir=${l#*made in }
dir=${dir%% and removed*}
check "good: and removed ($dir)" test ! -e "$dir"
assert_contains "good: the policy load logged" "policy loaded from" "$(line policy-load)"
SLURMD_NODENAME=n2 doctor --node
assert_contains "SLURMD_NODENAME=n2 --node: n2" "|node|n2: slurmd pid" "$DOUT"
doctor
assert_eq "no --node with two slurmd here: usage error" 2 "$DRC"
assert_contains "the usage error names them" "several slurmd run here (n1, n2)" "$DOUT"
doctor --bogus
assert_eq "unknown option: usage error" 2 "$DRC"
assert_contains "unknown option named" "doctor: unknown option '--bogus'" "$DOUT"
"$QD" doctor --node=n1 >"$QD_CLUSTER_DIR/doctor.out" 2>&1
assert_eq "without -P: aligned, ok first" "ok    node" "$(head -c 10 "$QD_CLUSTER_DIR/doctor.out")"

# --- node faults
plugstack "$GOOD_LINE timeout=5"
expect "plugstack typo" --node=n1 plugstack FAIL 1 "unknown option 'timeout=5'"
assert_eq "plugstack typo: Redis checked at the line's redis=" ok \
	"$(line redis | cut -d'|' -f1)"
plugstack "optional spank_qosdeny.so redis=$QD_REDIS_ADDR"
expect "an optional line" --node=n1 plugstack FAIL 1 "'optional'"
plugstack "required $QD_CLUSTER_DIR/nowhere/spank_qosdeny.so redis=$QD_REDIS_ADDR"
expect "the plugin file missing" --node=n1 plugstack FAIL 1 \
	"$QD_CLUSTER_DIR/nowhere/spank_qosdeny.so not found"
# cgroup=v2 beside task/none and proctrack/linuxproc: no cgroup2 cgroup of
# Slurm's holds a task, so a child cgroup qosdeny owns, on the cgroup2 mount.
plugstack "$GOOD_LINE cgroup=v2"
expect "cgroup=v2 without Slurm's cgroup/v2" --node=n1 cgroup ok 0 \
	"binding: v2 child cgroup (cgroup=v2)"
l=$(line cgroup-binding)
assert_contains "a v2 child cgroup made on the cgroup2 mount" \
	"v2 child cgroup denying 4 devices: made in /sys/fs/cgroup/unified/" "$l"
dir=${l#*made in }
dir=${dir%% and removed*}
check "and removed ($dir)" test ! -e "$dir"
# A bad value of an option the tool reads itself, refused in the plugin's
# words: the plugstack line FAILs, the other checks run with the line's
# other options.
plugstack "$GOOD_LINE timeout_ms=abc"
expect "timeout_ms=abc" --node=n1 plugstack FAIL 1 \
	"timeout_ms=abc: expected milliseconds, 1 to 600000"
for c in gpus cgroup cgroup-binding redis spool; do
	assert_eq "timeout_ms=abc: $c still checked" ok "$(line "$c" | cut -d'|' -f1)"
done
plugstack "$GOOD_LINE gpu_devices=$QD_DEV_DIR/nvidia[4-7]"
expect "gpu_devices= not gres.conf's" --node=n1 gpus FAIL 1 "slurmd -G has"
plugstack "$GOOD_LINE gpu_devices=$QD_DEV_DIR/nvidia[0-3]"
expect "gpu_devices= as gres.conf" --node=n1 gpus ok 0
plugstack "$GOOD_LINE"

# AutoDetect (gres.conf without File= for n1): qosdeny falls back to
# /dev/nvidia[0-9]* in minor order, wrong wherever the driver's minors are
# not in PCI bus order, Slurm's; the doctor reads the driver's view in
# /proc/driver/nvidia/gpus. Both are laid out in a mount namespace of the
# doctor's own (as test_spank_plugin.c's autodetect_node does), with
# gres.conf swapped there, so the cluster and this host see none of it.
AD_GRES=$QD_SLURM_ETC/gres.conf
AD_COPY=$QD_CLUSTER_DIR/autodetect-gres.conf
sed '/^NodeName=n1 /s/File=[^ ]*/Count=2/' "$AD_GRES" >"$AD_COPY"
# The namespace's side: FIRST (the minor of the GPU on the first bus),
# then the command. Its own /dev holds what the doctor and slurmd -G open.
# shellcheck disable=SC2016
AD_NS='set -e
first=$1
shift
mount --make-rprivate /
mount -t tmpfs -o mode=755 qd-doctor /proc/driver
mount -t tmpfs -o mode=755 qd-doctor /dev
mknod -m 666 /dev/null c 1 3
mknod -m 666 /dev/zero c 1 5
mknod -m 666 /dev/full c 1 7
mknod -m 666 /dev/random c 1 8
mknod -m 666 /dev/urandom c 1 9
mkdir -m 755 /dev/pts
mkdir -m 1777 /dev/shm
ln -s /proc/self/fd /dev/fd
ln -s fd/0 /dev/stdin
ln -s fd/1 /dev/stdout
ln -s fd/2 /dev/stderr
bus=(0000:3b:00.0 0000:5e:00.0)
for i in 0 1; do
	mknod -m 666 /dev/nvidia$i c 195 $i
	d=/proc/driver/nvidia/gpus/${bus[i]}
	mkdir -p "$d"
	printf "Model: \t\t A100\nDevice Minor: \t %d\n" \
		$((i ? 1 - first : first)) >"$d/information"
done
mount --bind "$AD_COPY" "$AD_GRES"
exec "$@"'
# autodetect_doctor FIRST: doctor --node=n1 in such a namespace.
autodetect_doctor() {
	DOUT=$(AD_COPY=$AD_COPY AD_GRES=$AD_GRES unshare -m bash -c \
		"$AD_NS" autodetect "$1" "$QD" doctor -P --node=n1 2>&1)
	DRC=$?
	assert_eq "AutoDetect, minor $1 first: the doctor ran" \
		"Status|Check|Detail|Fix" "${DOUT%%$'\n'*}"
}
# host_view: what the namespace must leave as it was here.
host_view() {
	ls -A /proc/driver
	ls -d /dev/nvidia* 2>/dev/null
	awk -v g="$AD_GRES" '$5 == "/dev" || $5 == "/proc/driver" ||
		$5 == g { print $1, $5 }' /proc/self/mountinfo
}
AD_ORDER="AutoDetect: GPU 0000:3b:00.0 is /dev/nvidia1 but GPU 0000:5e:00.0,"
AD_ORDER+=" after it in PCI bus order, is /dev/nvidia0"
AD_FIX="|list the GPUs with File= in gres.conf, in PCI bus order, or set"
AD_FIX+=" gpu_devices="
if [ -d /proc/driver ]; then
	view=$(host_view)
	gres=$(cat "$AD_GRES")
	autodetect_doctor 1
	l=$(line gpus)
	assert_eq "AutoDetect, minors out of bus order: gpus is FAIL" \
		FAIL "${l%%|*}"
	assert_eq "AutoDetect, minors out of bus order: exit status" 1 "$DRC"
	assert_contains "AutoDetect, minors out of bus order: the GPUs named" \
		"$AD_ORDER" "$l"
	assert_contains "AutoDetect, minors out of bus order: the fix" \
		"$AD_FIX" "$l"
	# In bus order the fallback is Slurm's order: whatever slurmd -G
	# makes of the File=-less line, no word of minor order.
	autodetect_doctor 0
	l=$(line gpus)
	assert_contains "AutoDetect, minors in bus order: fallback GPUs" \
		"from /dev/nvidia[0-9]*" "$l"
	assert_not_contains "AutoDetect, minors in bus order: no order FAIL" \
		"PCI bus order" "$l"
	assert_eq "AutoDetect: this host's /dev and /proc/driver untouched" \
		"$view" "$(host_view)"
	assert_eq "AutoDetect: this host's gres.conf untouched" \
		"$gres" "$(cat "$AD_GRES")"
else
	echo "# t_doctor.sh: AutoDetect checks SKIPPED: no /proc/driver" \
		"to lay the driver's view over"
fi
rm -f "$AD_COPY"

bash "$CLUSTER" redis-stop >/dev/null
expect "Redis stopped" --node=n1 redis FAIL 1 "connect"
# While it is stopped, a job of alice's takes its port to be sent the
# password: doctor names her and sends nothing.
squat() { redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" info stats |
	sed -n 's/^total_connections_received:\([0-9]*\).*/\1/p'; }
squat_up() { [ -n "$(squat)" ]; }
# (setpriv execs redis-server: $! is the listener itself.)
setpriv --reuid=alice --regid=alice --init-groups redis-server \
	--port "$QD_REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
	--dir /tmp >/dev/null 2>&1 &
squatter=$!
check "alice's redis-server listens on Redis's port" \
	wait_for "alice's listener" 20 squat_up
before=$(squat)
expect "a job posing as Redis" --node=n1 redis FAIL 1 \
	"listened on by alice (uid $(id -u alice)), a login user"
assert_eq "doctor did not connect to it" $((before + 1)) "$(squat)"
kill "$squatter"
wait "$squatter" 2>/dev/null || true
check "alice's listener gone" bash -c '! kill -0 '"$squatter"' 2>/dev/null'
bash "$CLUSTER" redis-start >/dev/null
redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" config set requirepass doctor-secret >/dev/null

# Redis that answers anyone: every job on a node could write the usage.
rcli config set requirepass '' >/dev/null
plugstack "required spank_qosdeny.so redis=$QD_REDIS_ADDR"
expect "Redis without AUTH" --node=n1 redis warn 0 "answers without AUTH"
redis-cli -h 127.0.0.1 -p "$QD_REDIS_PORT" config set requirepass doctor-secret >/dev/null
plugstack "$GOOD_LINE"

printf 'wrong\n' >"$PASS_FILE"
expect "wrong Redis password" --node=n1 redis FAIL 1 "AUTH"
printf 'doctor-secret\n' >"$PASS_FILE"
expect "right Redis password" --node=n1 redis ok 0 "AUTH accepted"
# An ACL user (user and password in the file): without +evalsha, without
# +eval, then with the rights docs/gpu-and-usage.md gives.
rcli acl setuser doctor on '>doctor-pw' '~qosdeny:*' resetchannels -@all \
	+time '+script|load' >/dev/null
printf 'doctor\ndoctor-pw\n' >"$PASS_FILE"
expect "ACL user without +evalsha" --node=n1 redis FAIL 1 "EVALSHA: NOPERM"
# The first run of the script on a server is an EVAL (NOSCRIPT).
rcli acl setuser doctor +evalsha >/dev/null
expect "ACL user without +eval" --node=n1 redis FAIL 1 "EVAL: NOPERM"
rcli acl setuser doctor +evalsha +eval +scan +hmget +hget +hgetall +set +hset \
	+hdel +del +type +zscore +zadd +zremrangebyscore >/dev/null
expect "ACL user as documented" --node=n1 redis ok 0 "EVALSHA allowed"
rcli acl deluser doctor >/dev/null
printf 'doctor-secret\n' >"$PASS_FILE"
plugstack "$GOOD_LINE"

: >"$QD_CLUSTER_DIR/not-a-dir"
plugstack "$GOOD_LINE spool=$QD_CLUSTER_DIR/not-a-dir/spool"
expect "spool not creatable" --node=n1 spool FAIL 1 "Not a directory"
mkdir -p "$QD_CLUSTER_DIR/open-spool"
chmod 777 "$QD_CLUSTER_DIR/open-spool"
plugstack "$GOOD_LINE spool=$QD_CLUSTER_DIR/open-spool"
expect "spool writable by others" --node=n1 spool FAIL 1 "open-spool"
# A spool on tmpfs: a reboot empties it (warn, its fix another spool=),
# whether the spool is there already or not yet made.
TMPFS_SPOOL=$QD_CLUSTER_DIR/tmpfs-spool
mkdir -p "$TMPFS_SPOOL"
if mount -t tmpfs -o mode=0700 qd-doctor-test "$TMPFS_SPOOL"; then
	plugstack "$GOOD_LINE spool=$TMPFS_SPOOL"
	expect "spool on tmpfs" --node=n1 spool warn 0 "on tmpfs, which a reboot empties"
	assert_contains "spool on tmpfs: the fix names a disk" \
		"set spool= to a directory on a disk" "$(line spool)"
	plugstack "$GOOD_LINE spool=$TMPFS_SPOOL/not-yet"
	expect "spool not yet made, on tmpfs" --node=n1 spool warn 0 "on tmpfs"
	umount "$TMPFS_SPOOL"
else
	check "tmpfs mounted for the spool test" false
fi
rmdir "$TMPFS_SPOOL"
plugstack "$GOOD_LINE"

# A record two days old still waiting: warn, with the count and age.
N1_SPOOL=$QD_SPOOL_DIR/n1/qosdeny
OLD_REC=$N1_SPOOL/$QD_CLUSTER_NAME:1:n1:$(($(date +%s) - 2 * 86400 - 60)).rec
mkdir -p -m 700 "$N1_SPOOL"
: >"$OLD_REC"
expect "a record two days old waiting" --node=n1 spool warn 0 \
	"waiting, the oldest of a job started 2d00h ago"
rm -f "$OLD_REC"

check "slurmctld restarted without PrologFlags" \
	bash -c "bash '$CLUSTER' write-conf >/dev/null && bash '$CLUSTER' restart-ctld >/dev/null"
expect "PrologFlags without Alloc" --node=n1 prolog-flags warn 0 "no Alloc"

# --- controller faults
QD_JOBSUBMIT='' check "slurmctld restarted without JobSubmitPlugins" conf
expect "no job_submit/qosdeny" --controller job-submit FAIL 1 "no qosdeny"

check "slurmctld restarted with AccountingStorageEnforce=associations,qos" \
	conf "AccountingStorageEnforce=associations,qos"
expect "AccountingStorageEnforce without limits" --controller \
	accounting-enforce FAIL 1 "no limits"
assert_not_contains "with associations: no word of -A" "any account" \
	"$(line accounting-enforce)"
check "slurmctld restarted with AccountingStorageEnforce=nosteps" \
	conf "AccountingStorageEnforce=nosteps"
expect "AccountingStorageEnforce without associations" --controller \
	accounting-enforce FAIL 1 \
	"nor associations: a user can name any account (-A), and the job's GPU time is charged to it"

check "slurmctld restarted as it was" conf
write_policy "$EXAMPLE_POLICY
QOS=nosuch Flags=DenyOnGrp"
expect "a record for a QoS slurmdbd lacks" --controller qos-exist FAIL 1 "nosuch (line 7)"
write_policy "QOS=research Flags=DenyOnMaxPerJob,DenyOnMaxPerUser"
expect "DenyOnMaxPerUser without a per-user limit" --controller qos-limits warn 0 \
	"QOS research: DenyOnMaxPerUser without MaxTRESPerUser"
write_policy "QOS=research Flags=DenyOnMaxPerJob,DenyOnMaxPerUser MaxTRESPerUser=gres/gpu=2"
expect "the per-user limit on the record" --controller qos-limits ok 0
write_policy "QOS=research Flags=DenyOnMaxPerUser MaxTRESPerUser=gres/gpu:h100=1"
expect "a typed limit Slurm does not count" --controller typed-tres FAIL 1 \
	"gres/gpu:h100 (QOS research)"
write_policy "QOS=research Flags=DenyOnMaxPerUser MaxTRESPerUser=gres/gpu:a100=1"
expect "a typed limit Slurm counts" --controller typed-tres ok 0
write_policy "QOS=research Flags=DenyOnNothing"
expect "qosdeny.conf invalid" --controller qosdeny.conf FAIL 1 "unknown flag"
write_policy "$EXAMPLE_POLICY"

# qosdeny.conf broken at slurmctld's start: it runs on the copy it kept
# (job_submit_qosdeny.c's init()), and the latest such line decides.
CONF=$QD_SLURM_ETC/qosdeny.conf
write_policy "$EXAMPLE_POLICY
QOS=gpu-debug Flags=DenyOnNothing"
check "slurmctld restarted with qosdeny.conf broken" bash "$CLUSTER" restart-ctld
expect "slurmctld on the kept policy" --controller policy-load FAIL 1 \
	"slurmctld runs on the policy kept from "
l=$(line policy-load)
assert_contains "the file's error with its line" \
	"$CONF:7: unknown flag 'DenyOnNothing'" "$l"
assert_contains "the fix" \
	"fix $CONF (qosdeny check $CONF); slurmctld reads it again within a second" "$l"
write_policy "$EXAMPLE_POLICY"
check "scontrol reconfigure with the file fixed" bash "$CLUSTER" reconfigure
# From 23.11 a reconfigure starts a new slurmctld, which loads the file;
# before, the running one has reloaded it (write_policy waited for that).
if ! slurm_at_least 23.11; then
	as alice sbatch --parsable --hold -q research --gres=gpu:1 --wrap true
	assert_eq "a submission with the file fixed" 0 "$RC"
	cancel_all
fi
if slurm_at_least 23.11; then
	expect "the fixed file loaded by the new slurmctld" --controller \
		policy-load ok 0 "qosdeny: policy loaded from $CONF"
else
	expect "the fixed file reloaded by the running slurmctld" --controller \
		policy-load ok 0 "qosdeny: policy reloaded from $CONF"
fi

SITE="PriorityType=priority/multifactor
PrioritySiteFactorPlugin=site_factor/qosdeny
PrioritySiteFactorParameters=weight=10000"
check "slurmctld restarted with the site factor, PriorityWeightAge=10" \
	conf "$SITE
PriorityWeightAge=10"
expect "the site factor's weight drowns the others" --controller site-factor \
	warn 0 "weight=10000 drowns the other weights (Age=10"
check "slurmctld restarted with the site factor, PriorityWeightAge=10000" \
	conf "$SITE
PriorityWeightAge=10000"
expect "the site factor beside the others" --controller site-factor ok 0 \
	"weight=10000 interval=60 beside Age=10000"
assert_eq "the site factor's Redis checked" ok "$(line redis | cut -d'|' -f1)"
plugstack "$GOOD_LINE timeout_ms=0"
expect "the site factor stops on plugstack.conf's timeout_ms=0" --controller \
	site-factor FAIL 1 "timeout_ms=0: expected milliseconds, 1 to 600000"

# --- undone: the cluster as the other tests expect it
plugstack ""
rcli config set requirepass '' >/dev/null
rm -f "$PASS_FILE"
bash "$CLUSTER" write-conf >/dev/null && bash "$CLUSTER" restart-ctld >/dev/null
finish
