//! The Lua scripts of the Redis store. Each names every key it touches in
//! `KEYS`: the entry's hash and its namespace's index, which share the
//! namespace's hash tag, so on a cluster both live on one slot.
//!
//! The index (`<prefix>{<namespace>}:index`) is a sorted set of the ids
//! written, each scored by its entry's expiry (`inf`: never). An entry that
//! is gone while its index member says it should be alive was evicted by the
//! server, which is what lets a recall say so instead of "not found". It
//! costs one `ZADD` (and a range delete of expired members, usually empty)
//! inside `put`'s script, and about 60 bytes per live entry.

use std::sync::LazyLock;

use redis::Script;

// Insert-if-absent-or-same. KEYS: the entry, the index. ARGV: call, len,
// payload, exp ('' = never), now, mem id, then the other fields as
// name/value pairs. Returns {0} inserted, {1} existing (expiry refreshed),
// {2} collision, {3, codec, payload}: same call id and length but other
// stored bytes (another codec version); the caller decodes and compares.
const PUT: &str = r"
local cur = redis.call('HMGET', KEYS[1], 'call', 'len', 'p', 'codec')
local score = ARGV[4]
if score == '' then score = 'inf' end
if cur[1] then
  if cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then return {2} end
  if cur[3] ~= ARGV[3] then return {3, cur[4], cur[3]} end
  if ARGV[4] == '' then
    redis.call('HDEL', KEYS[1], 'exp')
    redis.call('PERSIST', KEYS[1])
  else
    redis.call('HSET', KEYS[1], 'exp', ARGV[4])
    redis.call('PEXPIREAT', KEYS[1], ARGV[4])
  end
  redis.call('ZADD', KEYS[2], score, ARGV[6])
  return {1}
end
local f = {'call', ARGV[1], 'len', ARGV[2], 'p', ARGV[3]}
for i = 7, #ARGV do f[#f + 1] = ARGV[i] end
if ARGV[4] ~= '' then
  f[#f + 1] = 'exp'
  f[#f + 1] = ARGV[4]
end
redis.call('HSET', KEYS[1], unpack(f))
if ARGV[4] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[4]) end
redis.call('ZADD', KEYS[2], score, ARGV[6])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[5])
return {0}
";

// Refreshes the expiry of an entry if it still holds these payload bytes.
// KEYS: the entry, the index. ARGV: stored payload, exp ('' = never), mem id.
// Returns 1 if done.
const TOUCH: &str = r"
if redis.call('HGET', KEYS[1], 'p') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], 'exp')
  redis.call('PERSIST', KEYS[1])
  redis.call('ZADD', KEYS[2], 'inf', ARGV[3])
else
  redis.call('HSET', KEYS[1], 'exp', ARGV[2])
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
end
return 1
";

// The entry's fields (a flat name/value array); if it is gone, its index
// score (a string: its expiry, or 'inf'), or nil if it was never indexed.
// KEYS: the entry, the index. ARGV: mem id.
const GET: &str = r"
local h = redis.call('HGETALL', KEYS[1])
if #h > 0 then return h end
return redis.call('ZSCORE', KEYS[2], ARGV[1])
";

// Deletes an entry. KEYS: the entry, the index. ARGV: now (Unix ms), mem id.
// Returns 1 if a live entry was deleted.
pub(super) const DELETE: &str = r"
redis.call('ZREM', KEYS[2], ARGV[2])
local exp = redis.call('HGET', KEYS[1], 'exp')
local n = redis.call('DEL', KEYS[1])
if n == 0 then return 0 end
if exp and tonumber(exp) <= tonumber(ARGV[1]) then return 0 end
return 1
";

pub(super) static PUT_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(PUT));
pub(super) static TOUCH_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(TOUCH));
pub(super) static GET_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(GET));
pub(super) static DELETE_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(DELETE));
