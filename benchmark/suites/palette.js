'use strict'
// Tool palettes: resolvePalette and applyPalette over 500 tools and a 50-entry
// allowlist with prefix patterns, next to a plain-JS Set filter of the same
// tools in the same run, plus where the native path spends its time.
// Target: the native path costs at most 5x the JS filter.
// Run: npm run bench -- palette   (the release build: npm run build)

const { performance } = require('node:perf_hooks')
const { StaticPaletteResolver, resolvePalette, applyPalette } = require('../..')
const { PaletteMatcher, ToolNameList } = require('../../binding.js')
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
  // middleware that rebuilds the list each call makes), and lists whose names
  // are new too (one name changed per list), which must cross and be matched.
  const COLD = 2000
  const renamed = Array.from({ length: COLD }, (_, i) => {
    const list = tools.slice()
    list[(i * 7) % (N_TOOLS - 1)] = { name: `renamed_${i}`, description: 'x', schema: {} }
    return list
  })
  const renamedJs = renamed.map((l) => l.slice())

  const coldJs = timeOnce(COLD, (i) => jsSetFilter(renamedJs[i]))
  const coldResolve = timeOnce(COLD, (i) => resolver.resolve(null, 'action', renamed[i]))

  // Where the time goes, piece by piece, with the binding used directly.
  const matcher = new PaletteMatcher([entries])
  const joined = tools.map((t) => '+' + t.name).join('\0') // the wire: one string, UTF-16 units (see lib/tool-list.js)
  const warmList = new ToolNameList(joined)
  const out = new Uint32Array(N_TOOLS)
  matcher.selectInto(0, warmList, out)
  const [crossing] = await timeAll([{ fn: () => matcher.selectInto(0, warmList, out) }])
  const namesCross = timeOnce(COLD, () => new ToolNameList(joined))
  const lists = Array.from({ length: COLD }, () => new ToolNameList(joined))
  const firstMatch = timeOnce(COLD, (i) => matcher.selectInto(0, lists[i], out))
  const compile = timeOnce(200, () => new PaletteMatcher([entries]))

  const rows = [
    ['plain-JS `Set` filter (baseline)', us(js), '1.00×'],
    ['plain-JS filter written with the `*` patterns', us(jsPatterns), ratio(jsPatterns, js)],
    ['`StaticPaletteResolver.resolve` (sync)', us(resolveSync), ratio(resolveSync, js)],
    ['`resolvePalette` (async; vs the filter awaited)', us(resolveFn), ratio(resolveFn, jsAsync)],
    ['`applyPalette`, forced tool + `alwaysInclude` (async; vs the filter awaited)', us(apply), ratio(apply, jsAsync)],
    ['`resolve` on a new array of the same tools (vs filter of a copy)', us(copyResolve), ratio(copyResolve, jsCopy)],
    ['`resolve` on a list with a new name: names cross, then matched (vs filter of an unseen list)', us(coldResolve), ratio(coldResolve, coldJs)],
  ]
  console.log(`## Tool palettes (${N_TOOLS} tools, ${entries.length} allowlist entries of which 5 are prefixes, ${expected.length} tools selected)\n`)
  console.log(table(['operation', 'median per call', 'vs plain-JS Set filter'], rows))
  console.log()
  const jsSide = resolveSync - crossing
  console.log(
    `Where the time goes: a warm \`resolve\` (${us(resolveSync)}) spends ${us(crossing)} in the native call (crossing the ` +
      `boundary and copying ${expected.length} remembered indices out; no matching) and ${us(jsSide)} in JS, checking that the ` +
      `list is unchanged (500 identity and name compares) and gathering the selected objects. Matching runs once per tool list ` +
      `and palette: ${us(firstMatch)} for 500 names against the compiled allowlist, after the names cross once, as one UTF-8 buffer ` +
      `(${us(namesCross)}); compiling the 50 entries takes ${us(compile)}, once per resolver.`,
  )
  const worst = Math.max(resolveSync / js, resolveFn / jsAsync, apply / jsAsync)
  console.log(`Target (warm native path at most 5× the JS filter): ${worst <= 5 ? 'met' : 'NOT met'} (worst ${worst.toFixed(2)}×).\n`)
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
