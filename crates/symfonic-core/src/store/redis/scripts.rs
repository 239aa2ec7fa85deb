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

// Insert-if-absent-or-identical, or replace a row as read. KEYS: the entry,
// the index. ARGV[1]: exp ('' = never); ARGV[2]: now (Unix ms); ARGV[3]: mem
// id; ARGV[4]: n, then n items: a row as read (name, value, ...) to replace
// if it is still exactly that, or none; n = -1 replaces a key that is not a
// hash. Then the entry's fields as name/value pairs.
// Returns {0} inserted; {1} the same fields were there (expiry refreshed);
// {2, name, value, ...}: another row is there, all its fields given, for
// the caller to judge (another result, the same one written otherwise, or
// a row that cannot be read); {3} the row as read was replaced; {4} it had
// changed meanwhile (nothing written); {5} the key holds no hash.
// Whatever it writes, the id's index member gets the entry's expiry.
const PUT: &str = r"
local n = tonumber(ARGV[4])
local kind = redis.call('TYPE', KEYS[1]).ok
if kind ~= 'hash' and kind ~= 'none' then
  if n ~= -1 then return {5} end
  redis.call('DEL', KEYS[1])
end
local replaced = n ~= 0
if n == -1 then n = 0 end
local cur = redis.call('HGETALL', KEYS[1])
if n > 0 then
  local seen = {}
  for i = 5, 4 + n, 2 do seen[ARGV[i]] = ARGV[i + 1] end
  if #cur ~= n then return {4} end
  for i = 1, #cur, 2 do
    if seen[cur[i]] ~= cur[i + 1] then return {4} end
  end
  redis.call('DEL', KEYS[1])
  cur = {}
end
local score = ARGV[1]
if score == '' then score = 'inf' end
if #cur > 0 then
  local want, m = {}, 0
  for i = 5 + n, #ARGV, 2 do want[ARGV[i]] = ARGV[i + 1]; m = m + 1 end
  local same = true
  for i = 1, #cur, 2 do
    if cur[i] ~= 'exp' then
      if want[cur[i]] ~= cur[i + 1] then same = false; break end
      m = m - 1
    end
  end
  if not same or m ~= 0 then
    local out = {2}
    for i = 1, #cur do out[i + 1] = cur[i] end
    return out
  end
  if ARGV[1] == '' then
    redis.call('HDEL', KEYS[1], 'exp')
    redis.call('PERSIST', KEYS[1])
  else
    redis.call('HSET', KEYS[1], 'exp', ARGV[1])
    redis.call('PEXPIREAT', KEYS[1], ARGV[1])
  end
  redis.call('ZADD', KEYS[2], score, ARGV[3])
  return {1}
end
local f = {}
for i = 5 + n, #ARGV do f[#f + 1] = ARGV[i] end
if ARGV[1] ~= '' then
  f[#f + 1] = 'exp'
  f[#f + 1] = ARGV[1]
end
redis.call('HSET', KEYS[1], unpack(f))
if ARGV[1] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[1]) end
redis.call('ZADD', KEYS[2], score, ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[2])
if replaced then return {3} end
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
