/* SPDX-License-Identifier: GPL-2.0-or-later
 * The server-side half of qd_redis_apply. Redis runs a script atomically, so
 * the "seen before?" test and the additions cannot interleave with another
 * node's; and since a script that fails half-way is not rolled back, every
 * check that can fail runs before the first write.
 *
 * KEYS[1]     the record's id key (qosdeny:{C}:rec:JOB:NODE:START)
 * KEYS[2]     the cluster's running jobs   KEYS[3]  its ended jobs
 *             (running_usage.h: the record replaces the job's running entry)
 * KEYS[4..n]  usage hashes (user, account, assoc, and qos when known)
 * ARGV[1]     GPU-seconds     ARGV[2]  the record's end, Unix time
 * ARGV[3]     half-life, s    ARGV[4]  id key expiry, s
 * ARGV[5]     the record's text, kept as the id key's value
 * ARGV[6]     the job id      ARGV[7]  "1": WAIT follows (redis_replicas=)
 *
 * A usage hash of another type, or with values that are no numbers as the
 * readers take them (stored(), qd_usage_number_parse), refuses this record
 * alone (QD_REDIS_DAMAGED: kept in its spool, reported, and the other
 * records go on): its value cannot be told, so neither restarting it from 0
 * nor leaving this record out of it would be right. The bookkeeping
 * keys (running, ended) of another type are left alone, not updated: the
 * site factor's next publication replaces them (running_script.c), and
 * deleting them here would need a right (DEL) a node's ACL does not give.
 *
 * Returns {1 when counted now, 0 when the id was known; then one line for
 * each bookkeeping key left alone}.
 */
#include "redis_usage.h"
#include "running_usage.h"

#define STR_(x)	   #x
#define STR(x)	   STR_(x)
#define ENDED_KEEP STR(QD_ENDED_KEEP_S)

const char qd_usage_script[] =
    /* A usage hash's value as qd_usage_number_parse reads it, or nil. */
    "local function stored(x)\n"
    "  if not (x and (string.find(x, '^%d+%.?%d*$') or\n"
    "                 string.find(x, '^%d+%.?%d*[eE][+-]?%d+$'))) then\n"
    "    return nil\n"
    "  end\n"
    "  local n = tonumber(x)\n"
    "  if n and n < math.huge then return n end\n"
    "end\n"
    "local gs = tonumber(ARGV[1])\n"
    "local rend = tonumber(ARGV[2])\n"
    "local hl = tonumber(ARGV[3])\n"
    "local ttl = tonumber(ARGV[4])\n"
    "if not (gs and gs >= 0 and rend and hl and hl > 0 and ttl and\n"
    "        ttl > 0 and #KEYS >= 4 and ARGV[6]) then\n"
    "  return redis.error_reply('qosdeny: invalid arguments')\n"
    "end\n"
    "local skip, said = {}, {}\n"
    "for i = 2, #KEYS do\n"
    "  local ty = redis.call('TYPE', KEYS[i]).ok\n"
    "  local expect = i == 3 and 'zset' or 'hash'\n"
    "  if ty ~= 'none' and ty ~= expect then\n"
    "    if i >= 4 then\n"
    "      return redis.error_reply('" QD_REDIS_DAMAGED_TEXT " ' ..\n"
    "        KEYS[i] .. ' holds a ' .. ty .. ', not a ' .. expect)\n"
    "    end\n"
    "    skip[i] = true\n"
    "    said[#said + 1] = KEYS[i] .. ' holds a ' .. ty .. ', not a ' ..\n"
    "      expect .. ': not updated (the site factor replaces it)'\n"
    "  end\n"
    "  if ty == 'hash' and i >= 4 then\n"
    "    local old = redis.call('HMGET', KEYS[i], 'v', 't')\n"
    "    if not (stored(old[1]) and stored(old[2])) then\n"
    "      return redis.error_reply('" QD_REDIS_DAMAGED_TEXT " ' ..\n"
    "        KEYS[i] .. ' is not a usage hash (v, t)')\n"
    "    end\n"
    "  end\n"
    "end\n"
    "if not redis.call('SET', KEYS[1], ARGV[5], 'NX', 'EX', ttl) then\n"
    /* With WAIT to follow (redis_replicas=), a write even so: WAIT counts
     * the replicas that hold this connection's last write, and a resent
     * record must wait for them to hold its first application. Only
     * then, so that the ACL of a site without replicas needs no EXPIRE. */
    "  if ARGV[7] == '1' then redis.call('EXPIRE', KEYS[1], ttl) end\n"
    "  return {0}\n"
    "end\n"
    /* The server's clock, not the nodes': one clock for every update. */
    "local time = redis.call('TIME')\n"
    "local now = tonumber(time[1]) + tonumber(time[2]) / 1000000\n"
    /* Usage accrued up to the record's end: decayed from then, as if it
     * had been added on time. */
    "local add = gs\n"
    "if rend < now then add = gs * 2 ^ (-(now - rend) / hl) end\n"
    "for i = 4, #KEYS do\n"
    "  local old = redis.call('HMGET', KEYS[i], 'v', 't')\n"
    "  local v = stored(old[1]) or 0\n"
    "  local t = stored(old[2]) or now\n"
    "  if t < now then v = v * 2 ^ (-(now - t) / hl) end\n"
    "  redis.call('HSET', KEYS[i], 'v', string.format('%.17g', v + add),\n"
    "             't', string.format('%.6f', now))\n"
    "end\n"
    /* The job's running entry (site factor, running_usage.h) gives way
     * to its records: this node's part off it, gone with the last node's.
     * A requeued job's new run, started after this record's end, is left
     * alone. */
    "local run = not skip[2] and redis.call('HGET', KEYS[2], ARGV[6])\n"
    "if run then\n"
    "  local who, rgs, rstart, nodes, seen = string.match(run,\n"
    "    '^(%S+ %S+) (%d+) (%d+) (%d+) (%d+)$')\n"
    "  if who and tonumber(rstart) <= rend then\n"
    "    local left = tonumber(rgs) - gs\n"
    "    nodes = tonumber(nodes) - 1\n"
    "    if left <= 0 or nodes <= 0 then\n"
    "      redis.call('HDEL', KEYS[2], ARGV[6])\n"
    "    else\n"
    "      redis.call('HSET', KEYS[2], ARGV[6], string.format(\n"
    "        '%s %.0f %s %d %s', who, left, rstart, nodes, seen))\n"
    "    end\n"
    "  end\n"
    "end\n"
    "if not skip[3] then\n"
    "  local ended = tonumber(redis.call('ZSCORE', KEYS[3], ARGV[6]))\n"
    "  if not ended or ended < rend then\n"
    "    redis.call('ZADD', KEYS[3], rend, ARGV[6])\n"
    "  end\n"
    /* Forgotten after QD_ENDED_KEEP_S here too, not only by a publication:
     * without the site factor nothing else would ever trim the set. */
    "  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf',\n"
    "             '(' .. (tonumber(time[1]) - " ENDED_KEEP "))\n"
    "end\n"
    "return {1, unpack(said)}\n";
