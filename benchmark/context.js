'use strict'
// `npm run bench:context`: the context-economics benchmark of issue 4.
//
// Replays scripted multi-turn conversations through a real `createAgent`
// with a scripted model, under four strategies (no compaction, LangChain's
// contextEditingMiddleware, the Python original's per-iteration compaction,
// and our toolMemoryMiddleware), records every request the model receives
// and prices it under two prompt-cache models. Then sweeps our options per
// cache model and reports which settings meet the target (cheapest or within
// 2% of the cheapest strategy on every conversation, 100% recoverable).
//
//   npm run bench:context              full run: table, chart, sweep
//   npm run bench:context -- --quick   table and chart only (no sweep)
//
// Offline and deterministic. Writes docs/context-prompt-size.svg and
// benchmark/out/context.{json,md}. See docs/context-economics.md.

const fs = require('node:fs')
const path = require('node:path')
const os = require('node:os')
const { conversations } = require('./context/conversations.js')
const { replay, isRecallError } = require('./context/harness.js')
const S = require('./context/strategies.js')
const { price, CHARS_PER_TOKEN, INPUT_USD_PER_MTOK } = require('./context/pricing.js')
const { lineChart } = require('./context/svg.js')

const CACHE_MODELS = ['breakpoint', 'prefix']
const TOLERANCE = 0.02
const QUICK = process.argv.includes('--quick')
const OUT = path.join(__dirname, 'out')
const SVG = path.join(__dirname, '..', 'docs', 'context-prompt-size.svg')

// The sweep grid. Every point is a full replay of every conversation.
const GRID = {
  keepLastN: [0, 1, 2, 4],
  settledOnly: [true, false, 'seen'], // 'seen': the proposal in strategies.js, not an option of the package
  sizeChars: [4000, 8000, 16000, 32000],
  evictChars: [40000, 80000, 160000, Infinity],
}
// Settings whose mean cost is within the target's own 2% of the best are
// treated as ties (synthetic scripts are not more precise than that), and
// the values the issue proposes (round, documented, the reference's) win.
const PREFERRED = { sizeChars: 8000, evictChars: 80000 }
const PREFERENCE_BAND = TOLERANCE

const usd = (x) => `$${x.toFixed(3)}`
const pct = (x) => `${(100 * x).toFixed(0)}%`
const optStr = (o) =>
  `keepLastN ${o.keepLastN}, settledOnly ${o.settledOnly === 'seen' ? "'seen' (proposal)" : o.settledOnly}, sizeChars ${o.sizeChars}, evictChars ${o.evictChars === Infinity ? 'Infinity' : o.evictChars}`

/** Replays one conversation under one strategy and prices it both ways. */
async function measure(conv, strategy) {
  const d = await replay(conv, strategy)
  const priced = Object.fromEntries(CACHE_MODELS.map((c) => [c, price(d.requests, c)]))
  const recallErrors = d.recallAnswers.filter((r) => isRecallError(r.text))
  return {
    strategy: strategy.name,
    calls: d.requests.length,
    stats: d.stats,
    recallErrors: recallErrors.map((r) => r.text.slice(0, 120)),
    recoverable: d.stats.needs ? (d.stats.needs - d.stats.lost) / d.stats.needs : 1,
    promptTokens: priced.breakpoint.calls.map((c) => c.tokens),
    priced: Object.fromEntries(
      CACHE_MODELS.map((c) => [c, { cost: priced[c].cost, hitRatio: priced[c].hitRatio, tokens: priced[c].tokens }]),
    ),
  }
}

function mdTable(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`
  const left = new Set(['option', 'conversation', 'cache', 'strategy', 'settledOnly'])
  return [line(header), line(header.map((h) => (left.has(h) ? '---' : '---:'))), ...rows.map(line)].join('\n')
}

async function main() {
  const t0 = Date.now()
  const convs = conversations()
  const targetConvs = convs.filter((c) => !c.stress)
  const baselines = [S.none, S.contextEditing, S.python]
  const lines = []
  const log = (...a) => {
    lines.push(a.join(' '))
    console.log(...a)
  }

  log('# Context economics: what a conversation costs with the prompt cache\n')
  log(`machine: ${os.cpus().length} x ${os.cpus()[0].model}, Node ${process.version}`)
  log(`pricing: $${INPUT_USD_PER_MTOK}/MTok input; tokens ~ chars/${CHARS_PER_TOKEN}; tool definitions first, then system prompt, then messages`)
  log('breakpoint: entries end where each earlier request ended and after the tools; write 1.25x, read 0.1x')
  log('prefix: longest prefix shared with any earlier request, whole 128-token blocks; write 1x, read 0.1x')
  log(`ours, defaults: breakpoint {${optStr(S.memory.DEFAULTS.breakpoint)}}; prefix {${optStr(S.memory.DEFAULTS.prefix)}}\n`)

  // 1. The four strategies, ours with its defaults per cache model.
  const results = []
  for (const conv of convs) {
    const r = { conv: conv.name, title: conv.title, turns: conv.turns.length, runs: {} }
    for (const s of [...baselines, S.ours('breakpoint'), S.ours('prefix')]) r.runs[s.name] = await measure(conv, s)
    results.push(r)
  }

  const rows = []
  for (const r of results) {
    for (const c of CACHE_MODELS) {
      const none = r.runs.none.priced[c].cost
      for (const name of ['none', 'contextEditing', 'python', `ours:${c}`]) {
        const m = r.runs[name]
        rows.push({
          conv: r.conv,
          cache: c,
          strategy: name.startsWith('ours') ? 'ours' : name,
          cost: m.priced[c].cost,
          vsNone: m.priced[c].cost / none,
          hit: m.priced[c].hitRatio,
          calls: m.calls,
          recalls: m.stats.recallCalls,
          needs: m.stats.needs,
          lost: m.stats.lost,
          recoverable: m.recoverable,
        })
      }
    }
  }
  const cheapest = (conv, c) => Math.min(...rows.filter((x) => x.conv === conv && x.cache === c).map((x) => x.cost))
  const table = mdTable(
    ['conversation', 'cache', 'strategy', 'cost', 'vs none', 'cache hits', 'model calls', 'recalls', 'recoverable'],
    rows.map((x) => [
      convs.find((c) => c.name === x.conv).stress ? `${x.conv} (stress)` : x.conv,
      x.cache,
      x.cost === cheapest(x.conv, x.cache) ? `**${x.strategy}**` : x.strategy,
      usd(x.cost),
      pct(x.vsNone),
      pct(x.hit),
      x.calls,
      x.recalls,
      `${pct(x.recoverable)} (${x.needs - x.lost}/${x.needs})`,
    ]),
  )
  log('## Results (ours with defaults; the cheapest per conversation and cache model in bold)\n')
  for (const r of results) log(`- **${r.conv}**: ${r.title}, ${r.turns} user turns${convs.find((c) => c.name === r.conv).stress ? ' (stress case: reported, not used to choose defaults)' : ''}`)
  log('')
  log(table)
  const errs = results.flatMap((r) => Object.values(r.runs).flatMap((m) => m.recallErrors.map((e) => `${r.conv}/${m.strategy}: ${e}`)))
  if (errs.length) log(`\nrecall answers that were errors:\n${errs.map((e) => '  ' + e).join('\n')}`)

  // 2. The chart: prompt size per model call.
  const STYLE = {
    none: { label: 'no compaction', color: '#b0b0b0', width: 5 },
    contextEditing: { label: 'contextEditing (LangChain)', color: '#e8891b' },
    python: { label: 'per-iteration (Python 9.12)', color: '#d62728', dash: '5 3' },
    'ours:breakpoint': { label: 'ours, breakpoint defaults', color: '#1f5fbf' },
    'ours:prefix': { label: 'ours, prefix defaults', color: '#2ca02c', dash: '2 3' },
  }
  // With the same defaults for both cache models the two runs are identical: draw one line.
  const sameDefaults = JSON.stringify(S.memory.DEFAULTS.breakpoint) === JSON.stringify(S.memory.DEFAULTS.prefix)
  const svg = lineChart({
    title: 'Prompt size per model call',
    subtitle: `thousands of tokens (chars/${CHARS_PER_TOKEN}), tool definitions included; npm run bench:context`,
    yLabel: 'k tokens',
    panels: results.map((r) => ({
      title: `${r.conv}: ${r.title}`,
      series: Object.entries(STYLE)
        .filter(([k]) => k !== 'ours:prefix' || !sameDefaults)
        .map(([k, st]) => ({ ...st, ...(k === 'ours:breakpoint' && sameDefaults ? { label: 'ours, defaults' } : {}), values: r.runs[k].promptTokens.map((t) => t / 1000) })),
    })),
  })
  fs.writeFileSync(SVG, svg)
  log(`\nchart: ${path.relative(process.cwd(), SVG)}`)

  // 3. The sweep of our options, per cache model.
  let sweep = null
  if (!QUICK) {
    const configs = []
    for (const keepLastN of GRID.keepLastN)
      for (const settledOnly of GRID.settledOnly)
        for (const sizeChars of GRID.sizeChars)
          for (const evictChars of GRID.evictChars) configs.push({ keepLastN, settledOnly, sizeChars, evictChars })
    // Explicit options make cacheModel irrelevant to behaviour, so one replay
    // per setting is priced under both cache models.
    const points = []
    for (const o of configs) {
      const per = {}
      const strategy = o.settledOnly === 'seen' ? S.oursSeen({ ...o, settledOnly: undefined }, 'sweep') : S.ours('prefix', o, 'sweep')
      for (const conv of convs) per[conv.name] = await measure(conv, strategy)
      points.push({ options: o, per })
    }
    const bestBaseline = (conv, c) => Math.min(...['none', 'contextEditing', 'python'].map((n) => results.find((r) => r.conv === conv).runs[n].priced[c].cost))
    sweep = {}
    for (const c of CACHE_MODELS) {
      // Scored on the issue's conversations; stress cases are reported only.
      const scored = points.map((p) => {
        const relAll = convs.map((v) => p.per[v.name].priced[c].cost / bestBaseline(v.name, c))
        const rel = relAll.filter((_, i) => !convs[i].stress)
        const recoverable = targetConvs.every((v) => p.per[v.name].stats.lost === 0 && p.per[v.name].recallErrors.length === 0)
        const within = rel.filter((x) => x <= 1 + TOLERANCE).length
        return {
          options: p.options,
          rel,
          relAll,
          worst: Math.max(...rel),
          mean: rel.reduce((a, b) => a + b, 0) / rel.length,
          recoverable,
          within,
          ok: recoverable && within === rel.length,
        }
      })
      // Defaults must be expressible with the package's options (settledOnly
      // is a boolean). Recoverable first; then the worst conversation (every
      // setting that meets the target ties here); then the lowest mean cost
      // relative to the best baseline, with a 2% band in which the issue's
      // proposed values win.
      const pick = (pool) => {
        pool = pool.filter((s) => s.recoverable)
        const key = (s) => Math.max(s.worst, 1 + TOLERANCE)
        const bestKey = Math.min(...pool.map(key))
        pool = pool.filter((s) => key(s) <= bestKey * (1 + PREFERENCE_BAND))
        const best = Math.min(...pool.map((s) => s.mean))
        const prefDist = (o) => (o.sizeChars === PREFERRED.sizeChars ? 0 : 1) + (o.evictChars === PREFERRED.evictChars ? 0 : 1)
        return pool.filter((s) => s.mean <= best * (1 + PREFERENCE_BAND)).sort((a, b) => prefDist(a.options) - prefDist(b.options) || a.mean - b.mean)[0]
      }
      const chosen = pick(scored.filter((s) => s.options.settledOnly !== 'seen'))
      const proposal = pick(scored.filter((s) => s.options.settledOnly === 'seen'))
      // One-at-a-time sensitivity around the chosen point.
      const around = {}
      for (const k of Object.keys(GRID)) {
        around[k] = GRID[k].map((v) => {
          const s = scored.find((x) => Object.keys(GRID).every((kk) => x.options[kk] === (kk === k ? v : chosen.options[kk])))
          return { value: v, rel: s.relAll, mean: s.mean, worst: s.worst, ok: s.ok, recoverable: s.recoverable }
        })
      }
      // The best setting of each turn-boundary mode, the other options free.
      const modes = GRID.settledOnly.map((m) => pick(scored.filter((s) => s.options.settledOnly === m)))
      sweep[c] = { chosen, proposal, modes, met: scored.filter((s) => s.ok && s.options.settledOnly !== 'seen').length, total: scored.filter((s) => s.options.settledOnly !== 'seen').length, around, points: scored }
    }

    log(`\n## Sweep of our options (${configs.length} settings x ${convs.length} conversations)\n`)
    log('cost relative to the cheapest baseline strategy on each conversation (1.00 = as cheap as the best of none / contextEditing / python);')
    log(`scored on ${targetConvs.map((c) => c.name).join(', ')}; target: every one <= ${1 + TOLERANCE} and 100% recoverable\n`)
    for (const c of CACHE_MODELS) {
      const { chosen, met, total, around } = sweep[c]
      log(`### ${c}: ${met} of ${total} settings meet the target; chosen {${optStr(chosen.options)}}`)
      const relStr = (x) => convs.map((v, i) => `${v.name}${v.stress ? ' (stress, not scored)' : ''} ${x.relAll[i].toFixed(3)}`).join(', ')
      log(`per conversation: ${relStr(chosen)}${chosen.ok ? '' : `  ** target NOT met on ${chosen.rel.length - chosen.within} conversation(s) **`}`)
      const p = sweep[c].proposal
      log(`proposal (boundary = last AIMessage), best {${optStr({ ...p.options, settledOnly: 'seen' })}}: ${relStr(p)}${p.ok ? ' (meets the target)' : ''}\n`)
      const sens = []
      for (const [k, vals] of Object.entries(around)) {
        for (const v of vals) {
          sens.push([k, v.value === Infinity ? 'Infinity' : String(v.value), ...v.rel.map((x) => x.toFixed(3)), v.mean.toFixed(3), v.worst.toFixed(3), v.recoverable ? 'yes' : 'no', v.ok ? 'yes' : 'no'])
        }
      }
      log(mdTable(['option', 'value', ...convs.map((v) => (v.stress ? `${v.name} (stress)` : v.name)), 'mean', 'worst', 'recoverable', 'meets target'], sens))
      log('')
      const modes = sweep[c].modes.map((b) => [String(b.options.settledOnly), `${b.options.keepLastN} / ${b.options.sizeChars} / ${b.options.evictChars}`, ...b.relAll.map((x) => x.toFixed(3)), b.worst.toFixed(3), b.ok ? 'yes' : 'no'])
      log(`best setting per settledOnly mode (${c}):\n`)
      log(mdTable(['settledOnly', 'keepLastN / sizeChars / evictChars', ...convs.map((v) => (v.stress ? `${v.name} (stress)` : v.name)), 'worst', 'meets target'], modes))
      log('')
    }
    // Recall answers are exempt from compaction by default, so a large
    // recall (format "full") stays in every later prompt. What compacting
    // them too would change, at the chosen settings:
    log('### Variant: recall answers compactable too (exemptTools: [])\n')
    const vrows = []
    for (const c of CACHE_MODELS) {
      const o = sweep[c].chosen.options
      for (const conv of convs) {
        const base = points.find((p) => p.options === o).per[conv.name]
        const v = await measure(conv, S.ours(c, { ...o, exemptTools: [] }, 'variant'))
        vrows.push([c, conv.name, usd(base.priced[c].cost), usd(v.priced[c].cost), pct(v.priced[c].cost / base.priced[c].cost - 1), pct(v.recoverable)])
      }
    }
    log(mdTable(['cache', 'conversation', 'chosen settings', 'exemptTools: []', 'change', 'recoverable'], vrows))
    log('')
    const cur = S.memory.DEFAULTS
    for (const c of CACHE_MODELS) {
      const ch = sweep[c].chosen.options
      const same = Object.keys(GRID).every((k) => cur[c][k] === ch[k])
      log(`DEFAULTS.${c} ${same ? 'matches the sweep' : `differs from the sweep: set {${optStr(ch)}}`}`)
    }
  }

  fs.mkdirSync(OUT, { recursive: true })
  fs.writeFileSync(path.join(OUT, 'context.json'), JSON.stringify({ rows, results, sweep }, (k, v) => (v === Infinity ? 'Infinity' : v), 1))
  fs.writeFileSync(path.join(OUT, 'context.md'), lines.join('\n') + '\n')
  console.log(`\ndone in ${((Date.now() - t0) / 1000).toFixed(1)} s; details in ${path.relative(process.cwd(), OUT)}/context.{md,json}`)
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
