'use strict'
// The budget and the rewrite: which batch of the results a call wants to
// compact it compacts. Compacting rewrites the prompt from the first result
// compacted on, so wanted results go together: the suffix (by position)
// whose saving most exceeds this call's extra cost, while the
// conversation so far, this call included, and the recalls its compacted
// results may still cause stay within (1 + `maxExtraCost`) × its cost
// without compaction (or that cost plus the recall tool's definition, when
// larger), or when the next call repays it. Reads the replay's state
// (replay.js) and returns the batch.

const { oursCost, noneCost, fixedCost } = require('./cost.js')
const { riskOf } = require('./recalls.js')

/**
 * The suffix of `wants` whose rewrite fits the budget and whose value most exceeds this call's extra
 * cost (without a horizon, the largest that fits), or null.
 */
function choose(s, wants, H, end, k, scale, trip) {
  if (wants.length === 0) return null
  const eps = s.o.maxExtraCost
  const base = oursCost(s, Infinity, 0, end)
  // (1 + ε) × none, or none plus the recall tool's definition where that is more (a short conversation).
  const noneNow = s.none + noneCost(s)
  const limit = Math.max((1 + eps) * noneNow, noneNow + s.fixed + fixedCost(s))
  const pricing = s.o.pricing
  const rd = pricing.cacheRead
  let reserve = 0
  // The budget keeps room for the recalls the results compacted so far may still cause.
  for (const m of s.masks) reserve += riskOf(m, k, scale, trip, pricing)
  let value = 0
  let less = 0
  let fresh = true
  let best = -1
  let bestNet = -Infinity
  // The next call's repayment is priced with cached characters one by one: a prefix cache's block
  // boundary a few characters away must not decide it.
  const fine = s.block === 0 ? 0 : 1
  const baseFine = fine === s.block ? base : oursCost(s, Infinity, 0, end, undefined, fine)
  // Characters before wants[t].i, walking down from the end of the list.
  let before = s.chars
  let x = end
  for (let t = wants.length - 1; t >= 0; t--) {
    const r = wants[t]
    value += H === Infinity ? 0 : r.value
    less += s.size[r.i] - r.est
    while (x > r.i) before -= s.size[--x]
    const cost = oursCost(s, r.i, less, end, before)
    const pays = H === Infinity || value >= cost - base
    reserve += riskOf(r, k, scale, trip, pricing)
    fresh = fresh && r.seen === k - 1
    if (!pays) continue
    // Within the budget, the recalls it may still cause included; or, at the freshest position (what
    // the previous call read), repaid by the next call (what it takes out of that call's cached read).
    const fits = eps === Infinity || s.ours + cost + reserve <= limit || (fresh && oursCost(s, r.i, less, end, before, fine) - baseFine <= rd * less)
    const net = value - (cost - base)
    if (fits && (H === Infinity || net > bestNet)) {
      best = t
      bestNet = net
    }
  }
  return best < 0 ? null : wants.slice(best)
}

module.exports = { choose }
