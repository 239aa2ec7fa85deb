'use strict'
// The price of a request, in input-price units per character, under the
// cache model: what the request as compacted (ours) and the request without
// compaction (none) cost for the call being made. Reads the replay's state
// (replay.js) and returns numbers; the replay adds them up.

const { prefixChars } = require('./conversation.js')

// A prefix cache counts whole blocks of 128 tokens (about 512 characters).
const BLOCK_CHARS = { breakpoint: 0, prefix: 512 }

/** Characters of the messages before index j, as decided so far (the fed list ends at `end`). */
function charsBefore(s, j, end) {
  let c = s.chars
  for (let x = j; x < end; x++) c -= s.size[x]
  return c
}

/**
 * What ours's request for this call costs when its messages change from
 * index `first` on and `less` characters shorter, the list ending at `end`.
 * `before`: the characters before `first` (when the caller has them).
 * `block`: the prefix cache's block size to count in (default the cache model's).
 */
function oursCost(s, first, less, end, before, block = s.block) {
  const { cacheWrite: w, cacheRead: rd } = s.o.pricing
  const pre = prefixChars(s.env)
  const total = pre + s.chars - less
  if (s.prevLen < 0) return w * total
  const lcp = Math.min(first, s.prevLen)
  let cached
  if (block === 0) {
    // An entry ends where an earlier request ended, at a mark, or after the tool definitions.
    cached = s.env.toolChars + s.env.recallToolChars
    for (let t = s.entries.length - 1; t >= 0; t--) {
      const e = s.entries[t]
      if (e.len <= lcp) {
        cached = Math.max(cached, pre + e.chars)
        break
      }
    }
  } else {
    const head = lcp >= s.prevLen ? s.entries[s.entries.length - 1].chars : before !== undefined && first <= s.prevLen ? before : charsBefore(s, lcp, end)
    cached = Math.floor((pre + head) / block) * block
  }
  return rd * cached + w * (total - cached)
}

/** What the recall tool's definition adds to this call: written once, then read from the cache. */
function fixedCost(s) {
  const { cacheWrite: w, cacheRead: rd } = s.o.pricing
  return (s.prevLen < 0 ? w : rd) * s.env.recallToolChars
}

/** What the request without compaction costs for this call. */
function noneCost(s) {
  const { cacheWrite: w, cacheRead: rd } = s.o.pricing
  const pre = s.env.toolChars + s.env.systemChars
  const total = pre + s.noneChars
  if (s.prevNone < 0) return w * total
  let cached = pre + s.prevNone
  if (s.block > 0) cached = Math.floor(cached / s.block) * s.block
  return rd * cached + w * (total - cached)
}

module.exports = { BLOCK_CHARS, charsBefore, oursCost, fixedCost, noneCost }
