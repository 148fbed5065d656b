#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A reply really lost: the epilog's apply goes through a proxy that passes
# it to Redis, which runs it, and then drops the connection instead of the
# reply. The node cannot know it was counted, so the record stays in the
# spool; sent again, Redis finds it counted: usage grew once.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/example-policy.sh"
source "$(dirname "$0")/usage-lib.sh"
tmp=$(mktemp -d)
proxy_pid=
trap '[ -n "$proxy_pid" ] && kill "$proxy_pid"; rm -rf "$tmp"' EXIT

redis_clear
"$QD_BUILD/tests/redis_drop_proxy" "$tmp/port" 127.0.0.1 \
	"$QD_REDIS_PORT" 2>"$tmp/proxy.log" &
proxy_pid=$!
check "the proxy listens" wait_for "the proxy's port" 10 test -s "$tmp/port"
proxy=127.0.0.1:$(cat "$tmp/port")
check "Redis answers through it" \
	test "$(redis-cli -h 127.0.0.1 -p "$(cat "$tmp/port")" ping)" == PONG

write_policy "$EXAMPLE_POLICY
UsageHalfLife=$HALF_LIFE"
echo "required spank_qosdeny.so redis=$proxy" >"$PLUGSTACK"
check "slurmd restarted with redis=$proxy" \
	bash "$CLUSTER" restart-slurmd >/dev/null

as alice sbatch --parsable -N1 -w n1 --gres=gpu:2 --wrap 'sleep 2'
a=${OUT%%;*}
check "alice's job ended, epilog included" wait_for "jobs to end" 60 queue_empty

# EVALSHA, or EVAL where this Redis had not run the script yet (NOSCRIPT);
# the script's reply is {1}, counted now (usage_script.c).
drops=$(grep -cE "dropped the reply to EVAL(SHA)?: \*1 :1$" "$tmp/proxy.log")
assert_eq "Redis applied the record once, the proxy lost its reply" 1 "$drops"
rec=$(redis_record "$a" n1)
check "Redis has alice's record" test -n "$rec"
gs=$(field "$rec" gpu_seconds)
check "of 2 GPUs x about 2 s: $gs GPU-seconds" test "$gs" -ge 2 -a "$gs" -le 8
check "alice's usage is that record's, once" near "$(stored_usage alice)" "$gs" 0.01
assert_contains "the node saw no reply: the record stays in its spool" \
	" job=$a node=n1 " "$(spool_records | grep " end=[1-9]")"
assert_contains "slurmd logged it as not sent" \
	"qosdeny: job $a: usage on n1 ($gs GPU-seconds) not sent to $proxy" \
	"$(cat "$QD_LOG_DIR"/slurmd-n1.log)"

# flush reads redis= from plugstack.conf: the real Redis now.
echo "required spank_qosdeny.so redis=$QD_REDIS_ADDR" >"$PLUGSTACK"
OUT=$("$QD" flush 2>&1)
assert_eq "flush finds it counted" \
	"qosdeny: flush: 0 sent, 1 already counted, 0 left" "$OUT"
check "alice's usage did not grow" near "$(stored_usage alice)" "$gs" 0.01
assert_eq "the spools are empty" "" "$(spool_records)"
assert_eq "the proxy lost no other reply" 1 \
	"$(grep -c "dropped" "$tmp/proxy.log")"

reporting_off
redis_clear
finish
