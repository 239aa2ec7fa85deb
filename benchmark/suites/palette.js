'use strict'
// Tool palettes: resolvePalette and applyPalette over 500 tools and a 50-entry
// allowlist with prefix patterns, next to a plain-JS Set filter of the same
// tools in the same run.
// Target: a warm resolve (the matching) costs at most 5x the Set filter.
// Run: npm run bench -- palette

const { performance } = require('node:perf_hooks')
const { StaticPaletteResolver, resolvePalette, applyPalette } = require('../..')
const { median, table } = require('../util.js')

// Batches start on a clean young generation (see timeAll); bench.js passes
// --expose-gc, and a direct `node benchmark/suites/palette.js` gets it here.
if (typeof global.gc !== 'function') {
  require('node:v8').setFlagsFromString('--expose-gc')
  global.gc = require('node:vm').runInNewContext('gc')
}

const N_TOOLS = 500
const FAMILIES = ['github', 'gitlab', 'jira', 'slack', 'notion', 'linear', 'drive', 'sheets', 'mail', 'calendar']

// 500 MCP-style tools, 50 per server, shaped like LangChain tools.
function makeTools() {
  const tools = []
  for (let i = 0; i < N_TOOLS; i++) {
    const family = FAMILIES[i % FAMILIES.length]
    tools.push({ name: `mcp__${family}__op_${i}`, description: `operation ${i} on ${family}`, schema: { type: 'object' } })
  }
  tools[N_TOOLS - 1] = { name: 'recall_tool_result', description: 'recall', schema: { type: 'object' } }
  return tools
}

// 50 entries: 5 whole servers by prefix, 45 single tools of other servers.
function makeAllowlist(tools) {
  const entries = FAMILIES.slice(0, 5).map((f) => `mcp__${f}__*`)
  const singles = tools.filter((t) => FAMILIES.slice(5).some((f) => t.name.startsWith(`mcp__${f}__`)))
  for (let i = 0; entries.length < 50; i += 5) entries.push(singles[i].name)
  return entries
}

// Median time per call (µs) of each case, over `batches` rounds of `per`
// calls. Rounds are interleaved across the cases, so a noisy neighbour on a
// shared machine slows every case alike instead of one.
async function timeAll(cases, per = 1000, batches = 31) {
  // One loop per case, compiled separately, so each call site stays
  // monomorphic (a shared loop would slow the cheapest cases most).
  const loops = cases.map(({ async }) =>
    async
      ? new Function('fn', 'per', 'return (async () => { for (let i = 0; i < per; i++) await fn(i) })()')
      : new Function('fn', 'per', 'for (let i = 0; i < per; i++) fn(i)'),
  )
  const samples = cases.map(() => [])
  for (let k = 0; k < cases.length; k++) await loops[k](cases[k].fn, per * 2) // warm up the JIT
  for (let b = 0; b < batches; b++) {
    for (let k = 0; k < cases.length; k++) {
      // Each batch starts on a clean heap, so no case pays for another's garbage
      // (bench.js runs suites with --expose-gc).
      if (global.gc) global.gc({ type: 'minor' })
      const t0 = performance.now()
      await loops[k](cases[k].fn, per)
      samples[k].push(((performance.now() - t0) * 1000) / per)
    }
  }
  return samples.map(median)
}

// Median time (µs) of `fn(i)` run once on each of `n` prepared inputs.
function timeOnce(n, fn) {
  const samples = []
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    fn(i)
    samples.push((performance.now() - t0) * 1000)
  }
  return median(samples)
}

const us = (x) => `${x.toFixed(2)} µs`
const ratio = (x, base) => `${(x / base).toFixed(2)}×`

async function main() {
  const tools = makeTools()
  const entries = makeAllowlist(tools)
  const roleTools = { action: entries }
  const resolver = new StaticPaletteResolver({ roleTools })
  const quiet = { warn() {} }

  // The plain-JS way: a Set of the names the allowlist selects, filtered over
  // the same tools (the patterns expanded beforehand, as a Set cannot match
  // prefixes), and the same rule written with the patterns.
  const expected = resolver.resolve(null, 'action', tools)
  const selected = new Set(expected.map((t) => t.name))
  const jsSetFilter = (list) => list.filter((t) => selected.has(t.name))
  const exact = new Set(entries.filter((e) => !e.endsWith('*')))
  const prefixes = entries.filter((e) => e.endsWith('*')).map((e) => e.slice(0, -1))
  const jsPatternFilter = (list) => list.filter((t) => exact.has(t.name) || prefixes.some((p) => t.name.startsWith(p)))
  if (jsSetFilter(tools).length !== expected.length || jsPatternFilter(tools).length !== expected.length) {
    throw new Error('benchmark setup: the filters disagree')
  }

  const applyInput = {
    state: {},
    role: 'action',
    allTools: tools,
    resolver,
    forcedToolChoice: 'mcp__calendar__op_9',
    logger: quiet,
  }
  const applied = await applyPalette(applyInput)
  if (applied.tools.length !== expected.length + 2 || applied.toolChoice !== 'mcp__calendar__op_9') {
    throw new Error('benchmark setup: applyPalette did not force the tool back in')
  }

  const [js, jsPatterns, resolveSync, jsAsync, resolveFn, apply, jsCopy, copyResolve] = await timeAll([
    { fn: () => jsSetFilter(tools) },
    { fn: () => jsPatternFilter(tools) },
    { fn: () => resolver.resolve(null, 'action', tools) },
    { fn: async () => jsSetFilter(tools), async: true },
    { fn: () => resolvePalette(null, 'action', tools, { roleTools }), async: true },
    { fn: () => applyPalette(applyInput), async: true },
    { fn: () => jsSetFilter(tools.slice()) },
    { fn: () => resolver.resolve(null, 'action', tools.slice()) },
  ])
  // Tool lists the resolver has not seen: new arrays of the same tools (as a
  // middleware that rebuilds the list each call makes), and lists with a new
  // name (one name changed per list), whose verdict is not remembered yet.
  const COLD = 2000
  const renamed = Array.from({ length: COLD }, (_, i) => {
    const list = tools.slice()
    list[(i * 7) % (N_TOOLS - 1)] = { name: `renamed_${i}`, description: 'x', schema: {} }
    return list
  })
  const renamedJs = renamed.map((l) => l.slice())

  const coldJs = timeOnce(COLD, (i) => jsSetFilter(renamedJs[i]))
  const coldResolve = timeOnce(COLD, (i) => resolver.resolve(null, 'action', renamed[i]))

  // A resolver's first call: the allowlist compiled, no verdict remembered.
  const fresh = timeOnce(200, () => new StaticPaletteResolver({ roleTools }).resolve(null, 'action', tools))
  const freshJs = timeOnce(200, () => {
    const set = new Set(entries.filter((e) => !e.endsWith('*')))
    const heads = entries.filter((e) => e.endsWith('*')).map((e) => e.slice(0, -1))
    return tools.filter((t) => set.has(t.name) || heads.some((p) => t.name.startsWith(p)))
  })

  const rows = [
    ['plain-JS `Set` filter (baseline)', us(js), '1.00×'],
    ['plain-JS filter written with the `*` patterns', us(jsPatterns), ratio(jsPatterns, js)],
    ['`StaticPaletteResolver.resolve` (sync)', us(resolveSync), ratio(resolveSync, js)],
    ['`resolvePalette` (async; vs the filter awaited)', us(resolveFn), ratio(resolveFn, jsAsync)],
    ['`applyPalette`, forced tool + `alwaysInclude` (async; vs the filter awaited)', us(apply), ratio(apply, jsAsync)],
    ['`resolve` on a new array of the same tools (vs filter of a copy)', us(copyResolve), ratio(copyResolve, jsCopy)],
    ['`resolve` on a list with a new name (vs filter of an unseen list)', us(coldResolve), ratio(coldResolve, coldJs)],
    ['a new resolver\'s first `resolve`: compile, match 500 names (vs the filter written with the patterns, its `Set` built)', us(fresh), ratio(fresh, freshJs)],
  ]
  console.log(`## Tool palettes (${N_TOOLS} tools, ${entries.length} allowlist entries of which 5 are prefixes, ${expected.length} tools selected)\n`)
  console.log(table(['operation', 'median per call', 'vs plain-JS Set filter'], rows))
  console.log()
  const worst = Math.max(resolveSync / js, resolveFn / jsAsync)
  console.log(`Target (a warm resolve at most 5× the Set filter): ${worst <= 5 ? 'met' : 'NOT met'} (worst ${worst.toFixed(2)}×).`)
  console.log(
    `\`applyPalette\`'s loop rules (no name twice, the forced tool, the always-on tools) add ${us(apply - resolveFn)} to \`resolvePalette\` per model call.\n`,
  )
  await scaling()
}

// Regression rows: applyPalette must stay linear in the tool list and in
// `alwaysInclude` (it was quadratic: 178 ms for 10^4 names, 980 ms for 3x10^4).
async function scaling() {
  const rows = []
  const times = {}
  for (const n of [10000, 30000]) {
    const tools = Array.from({ length: n }, (_, i) => ({ name: `t${i}` }))
    const alwaysInclude = tools.map((t) => t.name)
    const resolver = { resolve: (_s, _r, all) => all.slice(0, 10) }
    const once = () => applyPalette({ state: {}, role: 'action', allTools: tools, alwaysInclude, resolver })
    await once()
    const samples = []
    for (let k = 0; k < 7; k++) {
      const t0 = performance.now()
      await once()
      samples.push(performance.now() - t0)
    }
    times[n] = median(samples)
    rows.push([`\`applyPalette\`, ${n.toLocaleString('en-US')} tools, all in \`alwaysInclude\``, `${times[n].toFixed(1)} ms`])
  }
  const growth = times[30000] / times[10000]
  console.log(table(['operation', 'median'], rows))
  console.log(`\n3x the names costs ${growth.toFixed(1)}x the time (linear: about 3x; quadratic: about 9x): ${growth < 5 ? 'linear' : 'NOT linear'}.\n`)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
