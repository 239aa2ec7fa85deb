'use strict'
// What hindsight could save on a conversation, from the requests of its
// replay without compaction (strategy none), priced with pricing.js:
//
//   floor   - each tool result vanishes right after the first call that
//             reads it, for free: no note takes its place, no cached token is
//             written again (a prefix cache still counts whole blocks), no
//             recall is ever needed.
//   oracle  - the hindsight oracle over rewrite schedules without recalls:
//             each result is replaced by its one-line note at the call after
//             the one that read it (the fresh position, where a rewrite is
//             cheapest: the results there end the cached prefix), or never,
//             whichever costs less knowing how many calls follow; the results
//             of one call are chosen together (compacting one rewrites the
//             kept ones after it). Cache marks sit where a breakpoint cache
//             needs them. No recall tool, and every need is met for free.
//
// Compacting a result later than its fresh position never costs less in this
// model: the same saving on fewer calls, and more written again. So the
// oracle only chooses, per call, which of the results read by the previous
// call to compact; it does so exactly in the additive cost model (cached
// reads and writes per character), and the schedule is then priced with
// pricing.js (whose prefix cache also rounds to 128-token blocks).

const { price, CACHE_MODELS, CHARS_PER_TOKEN, INPUT_USD_PER_MTOK } = require('./pricing.js')
const { resultNote } = require('../../core/notes.js')

const TOOL = /^<tool name=([^ >]*) id=([^>]*)>/
// Exhaustive choice over groups of at most this many results; larger groups (rare) take a suffix.
const MAX_EXACT = 12

// The tool results of a replay without compaction: for each, its message index,
// the call that first sees it, its header and text, grouped by that call.
function resultsOf(requests) {
  const out = []
  let seen = 0
  requests.forEach((r, t) => {
    for (let i = seen; i < r.messages.length; i++) {
      const m = TOOL.exec(r.messages[i])
      if (m) out.push({ i, arrives: t, name: m[1], header: m[0], chars: r.messages[i].length - m[0].length })
    }
    seen = r.messages.length
  })
  return out
}

// The serialised note a result is replaced by (the same text ours writes, with an id of the same length).
const noteOf = (r) => r.header + resultNote(r.name || 'unknown_tool', r.chars, 'trm_000000000000')

/**
 * The floor: each result vanishes after its first reading call, free.
 * Returns its cost under `cacheModel` (USD, as pricing.js).
 */
function floorCost(requests, cacheModel) {
  const cm = CACHE_MODELS[cacheModel]
  const results = resultsOf(requests)
  let cost = 0
  let prev = 0 // chars of the previous floor request, what the cache holds of this one
  requests.forEach((r, t) => {
    let gone = 0
    for (const x of results) if (x.arrives < t) gone += x.chars + x.header.length
    const total = r.tools.length + r.messages.reduce((a, m) => a + m.length, 0) - gone
    let vanished = 0
    for (const x of results) if (x.arrives === t - 1) vanished += x.chars + x.header.length
    const tokens = total / CHARS_PER_TOKEN
    let cached = t === 0 ? 0 : (prev - vanished) / CHARS_PER_TOKEN
    if (cm.block) cached = Math.floor(cached / cm.block) * cm.block
    cost += (cached * cm.read + (tokens - cached) * cm.write) * (INPUT_USD_PER_MTOK / 1e6)
    prev = total
  })
  return cost
}

/**
 * The oracle's schedule: Map<result message index, call at which it is
 * compacted>, chosen per group in the additive cost model of `cacheModel`.
 */
function oracleSchedule(requests, cacheModel) {
  const { read: rd, write: w } = CACHE_MODELS[cacheModel]
  const calls = requests.length
  const groups = new Map()
  for (const r of resultsOf(requests)) {
    const at = r.arrives + 1 // the fresh position: the call after the one that read it
    if (at >= calls) continue
    if (!groups.has(at)) groups.set(at, [])
    groups.get(at).push(r)
  }
  const schedule = new Map()
  for (const [at, group] of groups) {
    const later = calls - 1 - at // calls after the rewrite, each reading the note instead of the result
    const size = (r) => r.header.length + r.chars
    const best = { delta: 0, set: [] }
    const consider = (set) => {
      if (set.length === 0) return
      const inSet = new Set(set)
      const first = group.indexOf(set[0])
      let delta = 0
      for (let j = first; j < group.length; j++) {
        const r = group[j]
        const now = inSet.has(r) ? noteOf(r).length : size(r)
        delta += w * now - rd * size(r) // written again instead of read from the cache
        if (inSet.has(r)) delta -= rd * (size(r) - noteOf(r).length) * later
      }
      if (delta < best.delta) Object.assign(best, { delta, set })
    }
    if (group.length <= MAX_EXACT) {
      for (let mask = 1; mask < 1 << group.length; mask++) consider(group.filter((_, j) => mask & (1 << j)))
    } else {
      for (let s = 0; s < group.length; s++) consider(group.slice(s))
    }
    for (const r of best.set) schedule.set(r.i, at)
  }
  return schedule
}

/** The requests of the oracle's schedule: notes in place, marks before each rewrite. */
function oracleRequests(requests, cacheModel) {
  const schedule = oracleSchedule(requests, cacheModel)
  const byIndex = new Map(resultsOf(requests).map((r) => [r.i, r]))
  const firstAt = new Map() // call -> first message index it rewrites
  for (const [i, at] of schedule) firstAt.set(at, Math.min(firstAt.get(at) ?? Infinity, i))
  return requests.map((r, t) => {
    const messages = r.messages.map((m, i) => (schedule.has(i) && schedule.get(i) <= t ? noteOf(byIndex.get(i)) : m))
    const marked = messages.map(() => false)
    // Breakpoint caching: the entry the next call's rewrite starts from.
    const next = firstAt.get(t + 1)
    if (cacheModel === 'breakpoint' && next !== undefined && next > 0) marked[next - 1] = true
    return { tools: r.tools, messages, marked }
  })
}

/** The oracle's cost under `cacheModel` (USD, as pricing.js). */
const oracleCost = (requests, cacheModel) => price(oracleRequests(requests, cacheModel), cacheModel).cost

module.exports = { floorCost, oracleCost, oracleSchedule, oracleRequests, resultsOf }
