'use strict'
// Cache marks, for a provider that caches at breakpoints (Anthropic's
// cache_control): where the next call's rewrite, if any, will start, so the
// prompt before it stays a cache entry. Reads the replay's state (replay.js)
// and returns message indices.

const { candidatesAt } = require('./offers.js')

/**
 * Mark the message before the first result the next call offers for the
 * first time, and, when earlier, the message before the first result still
 * undecided: at most two marks, each on a message that has text.
 */
function placeMarks(s, end) {
  const nextBoundary = s.o.compactAfter === 'turn' ? s.lastHuman : end
  let elig = s.elig
  while (elig < s.ranked.length && s.ranked[elig] < nextBoundary) elig++
  // The results this call reads are offered at the next: the fresh position, where a rewrite is cheapest.
  const next = candidatesAt(s, s.call + 1, elig)
  const fresh = next.find((r) => r.seen === s.call) || next[0]
  const undecided = new Set(s.open.map((r) => r.i))
  const before = (t) => {
    for (let j = t - 1; j >= 0; j--) if (s.messages[j].markable && !undecided.has(j)) return j
    return -1
  }
  const marks = new Set()
  for (const t of [fresh !== undefined ? fresh.i : end, s.open.length > 0 ? s.open[0].i : end]) {
    const j = before(t)
    if (j >= 0) marks.add(j)
  }
  return [...marks].sort((a, b) => a - b)
}

module.exports = { placeMarks }
