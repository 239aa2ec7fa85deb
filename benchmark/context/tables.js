'use strict'
// Formatting and the figures the context-economics benchmark reports: the
// Markdown tables, the comparison of strategies on one conversation, and the
// issue's targets (docs/context-economics.md, "Targets").

const TOLERANCE = 0.02 // "cheapest": within 2 % of the cheapest strategy
const NEVER_WORSE = 1.01 // ours at most 1 % dearer than no compaction
const LONG_CALLS = 40 // a long loop: at least this many recorded model calls
const BASELINES = ['none', 'contextEditing', 'python']

const usd = (x) => `$${x.toFixed(3)}`
const pct = (x) => `${(100 * x).toFixed(0)}%`
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
  return {
    conv: conv.name,
    recorded: !!conv.recorded,
    calls: conv.recorded ? conv.calls : runs.none.calls,
    cache,
    cost: Object.fromEntries([...BASELINES, 'ours'].map((s) => [s, cost(s)])),
    vsNone: Object.fromEntries([...BASELINES, 'ours'].map((s) => [s, cost(s) / none])),
    oursVsNone: ours / none,
    oursVsBest: ours / others,
    cheapest: ours <= others * (1 + TOLERANCE),
    recalls: runs.ours.stats.recallCalls,
    needs: runs.ours.stats.needs,
    lost: runs.ours.stats.lost,
    lostBy: Object.fromEntries([...BASELINES, 'ours'].map((s) => [s, runs[s].stats.lost])),
  }
}

/** The targets of issue 27, per cache model, from `compare` rows. */
function targets(rows, cache) {
  const mine = rows.filter((r) => r.cache === cache)
  const real = mine.filter((r) => r.recorded)
  const long = real.filter((r) => r.calls >= LONG_CALLS)
  const scripted = mine.filter((r) => !r.recorded)
  return {
    cache,
    longMean: mean(long.map((r) => r.oursVsNone)),
    longCheapest: long.filter((r) => r.cheapest).length,
    long: long.length,
    realWorst: Math.max(...real.map((r) => r.oursVsNone)),
    realOver: real.filter((r) => r.oursVsNone > NEVER_WORSE).map((r) => r.conv),
    shortOver: real.filter((r) => r.calls < LONG_CALLS && r.oursVsNone > NEVER_WORSE).map((r) => r.conv),
    real: real.length,
    realNeeds: real.reduce((a, r) => a + r.needs, 0),
    realLost: real.reduce((a, r) => a + r.lost, 0),
    scriptedMean: mean(scripted.map((r) => r.oursVsNone)),
    scriptedCheapest: scripted.filter((r) => r.cheapest).length,
    scripted: scripted.length,
    scriptedLost: scripted.reduce((a, r) => a + r.lost, 0),
  }
}

module.exports = { TOLERANCE, NEVER_WORSE, LONG_CALLS, BASELINES, usd, pct, ratio, num, mean, mdTable, compare, targets }
