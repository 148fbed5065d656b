/*
 * The server-side half of qd_redis_publish_running: the whole running set
 * is replaced in one script, so a reader never sees half of one
 * publication, and the "ended" test cannot interleave with a record being
 * applied.
 *
 * KEYS[1]  qosdeny:{C}:running    KEYS[2]  qosdeny:{C}:ended
 * ARGV[1]  how long "ended" keeps a job, s
 * ARGV[2..] triples: job id, the run's start (Unix time), the entry
 *
 * Returns the number of jobs published.
 */
#include "running_usage.h"

const char qd_running_script[] =
    "local keep = tonumber(ARGV[1])\n"
    "if not keep or #ARGV % 3 ~= 1 then\n"
    "  return redis.error_reply('qosdeny: invalid arguments')\n"
    "end\n"
    "for i, k in ipairs(KEYS) do\n"
    "  local ty = redis.call('TYPE', k).ok\n"
    "  local expect = i == 1 and 'hash' or 'zset'\n"
    "  if ty ~= 'none' and ty ~= expect then\n"
    "    return redis.error_reply('qosdeny: ' .. k .. ' holds a ' .. ty ..\n"
    "                             ', not a ' .. expect)\n"
    "  end\n"
    "end\n"
    "redis.call('DEL', KEYS[1])\n"
    "local n = 0\n"
    "for i = 2, #ARGV, 3 do\n"
    "  local ended = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[i]))\n"
    "  if not ended or ended < tonumber(ARGV[i + 1]) then\n"
    "    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])\n"
    "    n = n + 1\n"
    "  end\n"
    "end\n"
    "local time = redis.call('TIME')\n"
    "redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf',\n"
    "           '(' .. (tonumber(time[1]) - keep))\n"
    "return n\n";
