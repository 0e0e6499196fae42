// Internal: the Lua scripts of the Redis task store. Each runs atomically in Redis, so a status
// change is a compare-and-set across every process sharing the Redis, and its notice is published
// in the same step.
//
// A task is the hash <prefix>task:<id>: o owner, s status, m status message, c created (ms since
// the epoch), u last updated (ms), t ttl (ms, "" for none), p poll interval (ms, ""), x method,
// d payload (JSON), i input request and response (JSON, as the SQLite store keeps them), q
// sequence number, e expiry (ms, ""), r rerun (JSON). It expires (PEXPIREAT) at e; every read also
// compares e with the caller's clock, so a task is gone at its ttl whichever clock is late.
// Indexes: <prefix>tasks:owner:<owner> (sorted set, score q), <prefix>tasks:unfinished (score q),
// <prefix>tasks:expiry (score e, member "<#id>:<id><owner>", so an index entry names its owner
// and cannot be confused with another owner's task of the same id), <prefix>tasks:seq (counter).
#pragma once

#include <mcp/redis.hpp>

#include <string>
#include <string_view>

namespace mcp::redis_detail {

/// What every task script starts with.
inline constexpr std::string_view task_lua_common = R"lua(
local FIELDS = {'o', 's', 'm', 'c', 'u', 't', 'p', 'x', 'd', 'i', 'q', 'e'}
local function terminal(s) return s == 'completed' or s == 'failed' or s == 'cancelled' end
local function allowed(from, to)
  if terminal(from) then return false end
  if terminal(to) then return true end
  return from ~= to or to == 'input_required'
end
local function expiry_member(id, owner) return #id .. ':' .. id .. owner end
local function expired(v, now) return v[12] ~= '' and tonumber(v[12]) <= tonumber(now) end
-- Removes the index entries of task `id` of `owner` (its hash is gone or being deleted).
local function forget(prefix, id, owner)
  redis.call('ZREM', prefix .. 'tasks:owner:' .. owner, id)
  redis.call('ZREM', prefix .. 'tasks:unfinished', id)
  redis.call('ZREM', prefix .. 'tasks:expiry', expiry_member(id, owner))
end
-- The fields of the live task `id` of `owner`, or nil; an expired task is deleted on the way.
local function live(prefix, id, owner, now)
  local key = prefix .. 'task:' .. id
  local v = redis.call('HMGET', key, unpack(FIELDS))
  if not v[1] then
    forget(prefix, id, owner)
    return nil
  end
  if v[1] ~= owner then
    redis.call('ZREM', prefix .. 'tasks:owner:' .. owner, id)  -- a stale entry, if any
    return nil
  end
  if expired(v, now) then
    redis.call('DEL', key)
    forget(prefix, id, owner)
    return nil
  end
  return v
end
)lua";

/// A task script: the common part, then `body`.
inline std::string task_lua(std::string_view body) {
  std::string s(task_lua_common);
  s += body;
  return s;
}

/// KEYS: task, owner index, unfinished, expiry, seq. ARGV: id, owner, status, message, created,
/// updated, ttl, poll, method, payload, input, rerun, expiry ("" or ms), pexpireat ms.
/// Returns the new sequence number, or 0 when the id exists.
inline const redis_script create_script(task_lua(R"lua(
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local seq = redis.call('INCR', KEYS[5])
redis.call('HSET', KEYS[1], 'o', ARGV[2], 's', ARGV[3], 'm', ARGV[4], 'c', ARGV[5], 'u', ARGV[6],
           't', ARGV[7], 'p', ARGV[8], 'x', ARGV[9], 'd', ARGV[10], 'i', ARGV[11], 'r', ARGV[12],
           'q', seq, 'e', ARGV[13])
redis.call('ZADD', KEYS[2], seq, ARGV[1])
if not terminal(ARGV[3]) then redis.call('ZADD', KEYS[3], seq, ARGV[1]) end
if ARGV[13] ~= '' then
  redis.call('ZADD', KEYS[4], ARGV[13], expiry_member(ARGV[1], ARGV[2]))
  redis.call('PEXPIREAT', KEYS[1], ARGV[14])
end
return seq
)lua"));

/// ARGV: prefix, id, owner, now. Returns the fields (FIELDS order) or nil.
inline const redis_script get_script(task_lua(R"lua(
return live(ARGV[1], ARGV[2], ARGV[3], ARGV[4]) or false
)lua"));

/// KEYS: task. ARGV: prefix, id, owner, now, status, message, payload, input, channel.
/// Returns the fields as they are afterwards, or nil.
inline const redis_script update_script(task_lua(R"lua(
local v = live(ARGV[1], ARGV[2], ARGV[3], ARGV[4])
if not v then return false end
if allowed(v[2], ARGV[5]) then
  redis.call('HSET', KEYS[1], 's', ARGV[5], 'm', ARGV[6], 'u', ARGV[4], 'd', ARGV[7], 'i', ARGV[8])
  if terminal(ARGV[5]) then redis.call('ZREM', ARGV[1] .. 'tasks:unfinished', ARGV[2]) end
  v[2] = ARGV[5]; v[3] = ARGV[6]; v[5] = ARGV[4]; v[9] = ARGV[7]; v[10] = ARGV[8]
  redis.call('PUBLISH', ARGV[9], ARGV[2])
end
return v
)lua"));

/// KEYS: owner index, seq. ARGV: prefix, owner, after (a sequence number), limit, now.
/// Returns -1 for a cursor beyond every issued number, else {more (0/1), {{fields}...}, {ids}}.
inline const redis_script list_script(task_lua(R"lua(
local after, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
if after > 0 and after > tonumber(redis.call('GET', KEYS[2]) or '0') then return -1 end
local out, ids_out, more, from = {}, {}, 0, '(' .. ARGV[3]
while more == 0 do
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], from, '+inf', 'WITHSCORES', 'LIMIT', 0,
                        limit + 1)
  for i = 1, #ids, 2 do
    from = '(' .. ids[i + 1]
    local v = live(ARGV[1], ids[i], ARGV[2], ARGV[5])
    if v then
      if #out == limit then more = 1; break end
      out[#out + 1] = v
      ids_out[#ids_out + 1] = ids[i]
    end
  end
  if #ids < 2 * (limit + 1) then break end
end
return {more, out, ids_out}
)lua"));

/// KEYS: expiry. ARGV: prefix, now, batch. Deletes up to `batch` tasks expired at `now`; returns
/// {index entries looked at, tasks deleted}.
inline const redis_script purge_script(task_lua(R"lua(
local members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'WITHSCORES', 'LIMIT', 0,
                           tonumber(ARGV[3]))
local n = 0
for i = 1, #members, 2 do
  local m = members[i]
  local len, rest = string.match(m, '^(%d+):(.*)$')
  if len then
    local id = string.sub(rest, 1, tonumber(len))
    local owner = string.sub(rest, tonumber(len) + 1)
    local key = ARGV[1] .. 'task:' .. id
    local v = redis.call('HMGET', key, 'o', 'e')
    if not v[1] then
      forget(ARGV[1], id, owner)  -- Redis expired it already
      n = n + 1
    elseif v[1] == owner and v[2] ~= '' and tonumber(v[2]) == tonumber(members[i + 1]) then
      redis.call('DEL', key)
      forget(ARGV[1], id, owner)
      n = n + 1
    end
  end
  redis.call('ZREM', KEYS[1], m)
end
return {#members / 2, n}
)lua"));

/// KEYS: unfinished. ARGV: prefix, message, now, payload, channel, batch. Fails up to `batch`
/// unfinished tasks; returns {index entries looked at, tasks failed}.
inline const redis_script fail_unfinished_script(task_lua(R"lua(
local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[6]) - 1)
local n = 0
for _, id in ipairs(ids) do
  local key = ARGV[1] .. 'task:' .. id
  local s = redis.call('HGET', key, 's')
  if s and not terminal(s) then
    redis.call('HSET', key, 's', 'failed', 'm', ARGV[2], 'u', ARGV[3], 'd', ARGV[4], 'i', '{}')
    redis.call('PUBLISH', ARGV[5], id)
    n = n + 1
  end
  redis.call('ZREM', KEYS[1], id)
end
return {#ids, n}
)lua"));

/// KEYS: unfinished. ARGV: prefix, now, after (a sequence number), batch. Returns {the last
/// sequence number looked at (0: none), {{fields..., rerun}...}, {ids}} of the unexpired
/// unfinished tasks among them.
inline const redis_script unfinished_script(task_lua(R"lua(
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[3], '+inf', 'WITHSCORES', 'LIMIT', 0,
                       tonumber(ARGV[4]))
local out, ids_out, last = {}, {}, '0'
for i = 1, #ids, 2 do
  last = ids[i + 1]
  local key = ARGV[1] .. 'task:' .. ids[i]
  local v = redis.call('HMGET', key, unpack(FIELDS))
  if not v[1] then
    redis.call('ZREM', KEYS[1], ids[i])
  elseif not terminal(v[2]) and not expired(v, ARGV[2]) then
    v[13] = redis.call('HGET', key, 'r') or '{}'
    out[#out + 1] = v
    ids_out[#ids_out + 1] = ids[i]
  end
end
return {last, out, ids_out}
)lua"));

}  // namespace mcp::redis_detail
