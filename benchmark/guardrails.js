'use strict'
// The guardrails of a change to how calls cross and run (issue 34), measured
// for two builds in one run, their measurements interleaved so that both see
// the same minutes of a shared machine:
//   - event-loop delay p99 under the load bench (benchmark/suites/load.js),
//     against its no-op harness, for memory, SQLite and Redis;
//   - the JS thread's time in `record` of a 5 MB payload (the call until it
//     returns its Promise; median of 21), strings and a Buffer;
//   - async record time of each real payload of fixtures/payloads (median);
//   - peak RSS under concurrency as a multiple of maxBytes (benchmark/suites/rss.js).
// Run: node benchmark/guardrails.js <before-dir> [after-dir]
// Each directory is a checkout of the package with its release addon built
// (after-dir defaults to this one). Prints a markdown table.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { median, table } = require('./util.js')

const here = path.join(__dirname, '..')
const [before, after = here] = process.argv.slice(2).map((d) => path.resolve(d))
if (!before) {
  console.error('usage: node benchmark/guardrails.js <before-dir> [after-dir]')
  process.exit(2)
}
const ROUNDS = Number(process.env.GUARD_ROUNDS || 3)
// GUARD_QUICK=1: the probes only (no load or RSS suite), for a quick look.
const QUICK = process.env.GUARD_QUICK === '1'

function run(root, args, env = {}) {
  const r = spawnSync(process.execPath, ['--expose-gc', ...args], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  if (r.status !== 0) throw new Error(`${args.join(' ')} in ${root} failed (${r.status} ${r.signal})`)
  return r.stdout
}

const lastJson = (out) => JSON.parse(out.trim().split('\n').pop())

// A child: the JS thread's share of records of 5 MB payloads, and the
// record time of each real payload, for the package at `root`.
const PROBE = `
const { performance } = require('node:perf_hooks')
const fs = require('node:fs'), path = require('node:path')
const root = process.argv[1]
const { Ledger } = require(root)
const { catalog } = require(${JSON.stringify(path.join(__dirname, 'catalogs.js'))})
const { log } = require(${JSON.stringify(path.join(__dirname, 'logs.js'))})
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1] }
;(async () => {
  const l = new Ledger({ maxBytes: 2 ** 32 })
  const big = { ascii: catalog('ascii'), latin1: catalog('latin1'), cjk: catalog('cjk'), log: log() }
  big.buffer = Buffer.from(big.cjk)
  const js = {}
  for (const [k, content] of Object.entries(big)) {
    const xs = []
    for (let i = 0; i < 24; i++) {
      const t = performance.now()
      const p = l.record({ toolCallId: k + i, toolName: 't', content })
      xs.push(performance.now() - t)
      await p
      await l.clear()
    }
    js[k] = median(xs.slice(3))
  }
  const dir = ${JSON.stringify(path.join(__dirname, '..', 'fixtures', 'payloads'))}
  const real = {}
  for (const f of fs.readdirSync(dir).filter((f) => /\\.(json|log|csv|html)$/.test(f)).sort()) {
    const content = fs.readFileSync(path.join(dir, f), 'utf8')
    const xs = []
    for (let i = 0; i < 44; i++) {
      const t = performance.now()
      await l.record({ toolCallId: f + i, toolName: 't', content })
      xs.push(performance.now() - t)
      if (i % 8 === 7) await l.clear()
    }
    real[f] = median(xs.slice(4))
  }
  await l.close()
  process.stdout.write(JSON.stringify({ js, real }) + '\\n')
})()`

const fmt = (ms) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`)
const roots = { before, after }
const probes = { before: [], after: [] }
const loads = { before: {}, after: {} }
const HARNESSES = ['no-op', 'memory', 'sqlite', 'redis']

for (let round = 0; round < ROUNDS; round++) {
  for (const side of round % 2 ? ['after', 'before'] : ['before', 'after']) {
    probes[side].push(lastJson(run(roots[side], ['-e', PROBE, roots[side]])))
  }
}
for (const h of QUICK ? [] : HARNESSES) {
  for (const side of ['before', 'after']) {
    const load = path.join(roots[side], 'benchmark', 'suites', 'load.js')
    loads[side][h] = lastJson(run(roots[side], [load, '--harness', h]))
  }
}
const rss = {}
for (const side of QUICK ? [] : ['before', 'after']) {
  const out = run(roots[side], [path.join(roots[side], 'benchmark', 'suites', 'rss.js')])
  rss[side] = [...out.matchAll(/\|\s*([\d.]+) ×\s*\|/g)].map((m) => Number(m[1]))
}

const pick = (side, f) => median(probes[side].map(f))
const rows = []
for (const h of QUICK ? [] : HARNESSES.slice(1)) {
  const cell = (side) => {
    const r = loads[side][h]
    const base = loads[side]['no-op']
    return `${r.p99.toFixed(2)} ms (no-op ${base.p99.toFixed(2)}; ${(r.p99 - base.p99 >= 0 ? '+' : '') + (r.p99 - base.p99).toFixed(2)})`
  }
  const ok = loads.after[h].p99 - loads.after['no-op'].p99 <= 5
  rows.push([`event-loop p99 under load, ${h} (${loads.after[h].records} records)`, cell('before'), cell('after'), '≤ no-op + 5 ms', ok ? 'met' : 'MISSED'])
}
for (const k of ['ascii', 'latin1', 'cjk', 'log', 'buffer']) {
  const b = pick('before', (p) => p.js[k])
  const a = pick('after', (p) => p.js[k])
  const label = { ascii: '5 MB ASCII catalog', latin1: '5 MB Latin-1 catalog', cjk: '5 MB CJK+emoji catalog', log: '5 MB text log', buffer: '5 MB Buffer (CJK+emoji)' }[k]
  rows.push([`JS thread per record, ${label}`, fmt(b), fmt(a), '≤ 2 ms', a <= 2 ? 'met' : 'MISSED'])
}
const names = Object.keys(probes.after[0].real)
const ratios = []
for (const f of names) {
  const b = pick('before', (p) => p.real[f])
  const a = pick('after', (p) => p.real[f])
  ratios.push(a / b)
  const kb = (fs.statSync(path.join(__dirname, '..', 'fixtures', 'payloads', f)).size / 1024).toFixed(0)
  rows.push([`record ${f} (${kb} KB)`, fmt(b), fmt(a), '', `${(a / b).toFixed(2)} ×`])
}
const m = median(ratios)
rows.push(['record time on the real payloads, median of after / before', '', '', '≤ 1.00 ×', `${m.toFixed(2)} × ${m <= 1 ? 'met' : 'MISSED'}`])
const cases = ['200 × 8 × ~1 MB, 256 MiB, memory', 'same, SQLite', '1000 × 4 × 0.24–0.56 MB, 64 MiB, memory', 'same, SQLite']
if (!QUICK) cases.forEach((c, i) => {
  const a = rss.after[i]
  rows.push([`peak RSS above the no-op harness, ${c}`, `${rss.before[i]} ×`, `${a} ×`, '≤ 3 × maxBytes', a <= 3 ? 'met' : 'MISSED'])
})

console.log(`## Guardrails: ${path.basename(before)} (before) against ${path.basename(after)} (after)\n`)
console.log(table(['guardrail', 'before', 'after', 'target', 'after meets it'], rows))
console.log(`\n${ROUNDS} interleaved rounds of the JS-thread and real-payload probes; the load and RSS suites once per build. machine: ${os.cpus().length} x ${os.cpus()[0].model}, Node ${process.version}, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`)
