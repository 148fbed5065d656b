/* SPDX-License-Identifier: GPL-2.0-or-later
 * The server-side half of qd_redis_publish_running: the whole running set
 * is rewritten in one script, so a reader never sees half of one
 * publication, and the "ended" test cannot interleave with a record being
 * applied (running_usage.h has the rules).
 *
 * KEYS[1]  qosdeny:{C}:running    KEYS[2]  qosdeny:{C}:ended
 * ARGV[1]  QD_RUNNING_KEEP_S
 * ARGV[2..] quadruples: job id, the run's start (Unix time), its nodes,
 *          "ACCOUNT USER GPU_SECONDS"
 *
 * Both keys are qosdeny's bookkeeping, rebuilt by the publications: one of
 * another type (written by hand, or by a job where Redis has no password)
 * is replaced, not a reason to stop publishing for every job.
 *
 * Returns {the number of jobs published afresh, then one line for each key
 * replaced}.
 */
#include "running_usage.h"

const char qd_running_script[] =
    "local keep = tonumber(ARGV[1])\n"
    "if not keep or #ARGV % 4 ~= 1 then\n"
    "  return redis.error_reply('qosdeny: invalid arguments')\n"
    "end\n"
    "local replaced = {}\n"
    "for i, k in ipairs(KEYS) do\n"
    "  local ty = redis.call('TYPE', k).ok\n"
    "  local expect = i == 1 and 'hash' or 'zset'\n"
    "  if ty ~= 'none' and ty ~= expect then\n"
    "    redis.call('DEL', k)\n"
    "    replaced[#replaced + 1] = k .. ' held a ' .. ty .. ', not a ' ..\n"
    "      expect .. ': replaced'\n"
    "  end\n"
    "end\n"
    "local now = tonumber(redis.call('TIME')[1])\n"
    "local old, out = {}, {}\n"
    "local all = redis.call('HGETALL', KEYS[1])\n"
    "for i = 1, #all, 2 do old[all[i]] = all[i + 1] end\n"
    "local n = 0\n"
    "for i = 2, #ARGV, 4 do\n"
    "  local job, start = ARGV[i], tonumber(ARGV[i + 1])\n"
    "  local ended = tonumber(redis.call('ZSCORE', KEYS[2], job))\n"
    /* Its records have begun to arrive: the entry only shrinks now. */
    "  if ended and ended >= start then\n"
    "    out[job] = old[job]\n"
    "  else\n"
    "    out[job] = ARGV[i + 3] .. ' ' .. ARGV[i + 1] .. ' ' ..\n"
    "               ARGV[i + 2] .. ' ' .. now\n"
    "    n = n + 1\n"
    "  end\n"
    "  old[job] = nil\n"
    "end\n"
    /* Jobs slurmctld no longer runs: kept until their records arrive. */
    "for job, v in pairs(old) do\n"
    "  local seen = tonumber(string.match(v,\n"
    "    '^%S+ %S+ %d+ %d+ %d+ (%d+)$'))\n"
    "  if seen and now - seen < keep then out[job] = v end\n"
    "end\n"
    "redis.call('DEL', KEYS[1])\n"
    "for job, v in pairs(out) do redis.call('HSET', KEYS[1], job, v) end\n"
    "redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. (now - keep))\n"
    "return {n, unpack(replaced)}\n";
