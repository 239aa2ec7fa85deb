'use strict'
// Formatting and the figures the context-economics benchmark reports: the
// Markdown tables, the comparison of strategies on one conversation, and the
// issue's targets (docs/context-economics.md, "Targets").

const TOLERANCE = 0.02 // "cheapest": within 2 % of the cheapest strategy
// Ours at most this much dearer than no compaction on any recorded conversation (a prefix
// cache's 128-token blocks are coarse on a short conversation).
const NEVER_WORSE = { breakpoint: 1.02, prefix: 1.03 }
const LONG_CALLS = 40 // a long loop: at least this many recorded model calls
const ORACLE_SHARE = 0.6 // long loops: the share of the hindsight oracle's saving ours takes, at least
// Today's scripted mean ours / none, per cache model: no worse.
const SCRIPTED_WAS = { breakpoint: 0.486, prefix: 0.444 }
const BASELINES = ['none', 'contextEditing', 'python']

const usd = (x) => `$${x.toFixed(3)}`
const pct = (x) => (Number.isFinite(x) ? `${(100 * x).toFixed(0)}%` : '–')
const ratio = (x) => x.toFixed(3)
const num = (v) => (v === Infinity ? 'Infinity' : String(v))
const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN)

function mdTable(header, rows, left = ['option', 'conversation', 'cache', 'strategy', 'variant', 'value', 'source', 'kind', 'target', 'setting']) {
  const line = (cells) => `| ${cells.join(' | ')} |`
  return [line(header), line(header.map((h) => (left.includes(h) ? '---' : '---:'))), ...rows.map(line)].join('\n')
}

/**
 * One conversation under one cache model: each strategy's cost, ours against
 * none and against the cheapest of the others, its recalls and needs.
 * `runs`: { none, contextEditing, python, ours } measurements.
 */
function compare(conv, cache, runs) {
  const cost = (s) => runs[s].priced[cache].cost
  const none = cost('none')
  const others = Math.min(...BASELINES.map(cost))
  const ours = cost('ours')
  const h = runs.none.hindsight[cache]
  return {
    conv: conv.name,
    recorded: !!conv.recorded,
    calls: conv.recorded ? conv.calls : runs.none.calls,
    cache,
    cost: Object.fromEntries([...BASELINES, 'ours'].map((s) => [s, cost(s)])),
    vsNone: Object.fromEntries([...BASELINES, 'ours'].map((s) => [s, cost(s) / none])),
    oursVsNone: ours / none,
    floor: h.floor / none,
    oracle: h.oracle / none,
    // The share of the oracle's saving ours takes (can exceed 1: the oracle reads every result once in full).
    share: h.oracle < none ? (none - ours) / (none - h.oracle) : NaN,
    oursVsBest: ours / others,
    cheapest: ours <= others * (1 + TOLERANCE),
    recalls: runs.ours.stats.recallCalls,
    needs: runs.ours.stats.needs,
    lost: runs.ours.stats.lost,
    lostBy: Object.fromEntries([...BASELINES, 'ours'].map((s) => [s, runs[s].stats.lost])),
  }
}

/** The targets, per cache model, from `compare` rows. */
function targets(rows, cache) {
  const mine = rows.filter((r) => r.cache === cache)
  const real = mine.filter((r) => r.recorded)
  const long = real.filter((r) => r.calls >= LONG_CALLS)
  const scripted = mine.filter((r) => !r.recorded)
  const longMean = mean(long.map((r) => r.oursVsNone))
  const oracleMean = mean(long.map((r) => r.oracle))
  return {
    cache,
    longMean,
    oracleMean,
    floorMean: mean(long.map((r) => r.floor)),
    // The share of the oracle's saving, on the means of the long loops.
    longShare: (1 - longMean) / (1 - oracleMean),
    longCheapest: long.filter((r) => r.cheapest).length,
    long: long.length,
    realWorst: Math.max(...real.map((r) => r.oursVsNone)),
    realOver: real.filter((r) => r.oursVsNone > NEVER_WORSE[cache]).map((r) => r.conv),
    shortMean: mean(real.filter((r) => r.calls < LONG_CALLS).map((r) => r.oursVsNone)),
    real: real.length,
    realNeeds: real.reduce((a, r) => a + r.needs, 0),
    realLost: real.reduce((a, r) => a + r.lost, 0),
    scriptedMean: mean(scripted.map((r) => r.oursVsNone)),
    scriptedCheapest: scripted.filter((r) => r.cheapest).length,
    scripted: scripted.length,
    scriptedLost: scripted.reduce((a, r) => a + r.lost, 0),
  }
}

module.exports = { TOLERANCE, NEVER_WORSE, LONG_CALLS, ORACLE_SHARE, SCRIPTED_WAS, BASELINES, usd, pct, ratio, num, mean, mdTable, compare, targets }
