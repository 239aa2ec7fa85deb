'use strict'
// What the stub says about real payloads: one row per file of each directory
// given (default: fixtures/payloads), with the payload's kind, its size, the
// stub's size and the time `recordSync` took (index, id, outline and stub).
// With `--v1 DIR`, DIR is a checkout of a release that writes v1 stubs (built):
// its stub size is shown beside ours. `--stubs` prints every stub.
//   node scripts/stubs-report.js [--v1 ../v1-checkout] [--stubs] [DIR ...]

const fs = require('node:fs')
const path = require('node:path')
const { Ledger } = require('..')

const args = process.argv.slice(2)
const flag = (name) => {
  const i = args.indexOf(name)
  if (i < 0) return undefined
  const [, value] = args.splice(i, 2)
  return value
}
const v1Dir = flag('--v1')
const printStubs = args.includes('--stubs')
const dirs = args.filter((a) => a !== '--stubs')
if (dirs.length === 0) dirs.push(path.join(__dirname, '..', 'fixtures', 'payloads'))
const V1 = v1Dir ? require(path.resolve(v1Dir)).Ledger : null

const files = []
for (const dir of dirs) {
  for (const f of fs.readdirSync(dir).sort()) {
    const p = path.join(dir, f)
    if (!fs.statSync(p).isFile() || /\.(md|sh)$/.test(f) || f.startsWith('.')) continue
    if (!files.some((x) => path.basename(x) === f)) files.push(p)
  }
}

// The kind as the stub's summary names it (its shape, after the arguments).
const kindOf = (summary) => summary.slice(summary.indexOf('): ') + 3).replace(/, \d+ lines$/, '')
const chars = (s) => Array.from(s).length

const rows = []
for (const p of files) {
  const f = path.basename(p)
  const content = fs.readFileSync(p, 'utf8')
  const input = { toolCallId: `call_${f}`, toolName: 'read_file', toolArgs: { path: f }, content }
  const t0 = process.hrtime.bigint()
  const h = new Ledger({ maxBytes: 2 ** 32 }).recordSync(input)
  const ms = Number(process.hrtime.bigint() - t0) / 1e6
  const v1 = V1 ? new V1({ maxBytes: 2 ** 32 }).recordSync(input).stub : null
  rows.push({ f, kind: kindOf(h.summary), size: h.sizeChars, v1: v1 && chars(v1), v2: chars(h.stub), lines: h.stub.split('\n').length, ms })
  if (printStubs) console.log(`===== ${f}\n${h.stub}\n`)
}

const cols = ['payload', 'kind', 'payload chars', ...(V1 ? ['v1 stub'] : []), 'v2 stub', 'v2 lines', 'record ms']
console.log(`| ${cols.join(' | ')} |`)
console.log(`| ${cols.map((c, i) => (i < 2 ? '---' : '---:')).join(' | ')} |`)
for (const r of rows) {
  const cells = [r.f, r.kind, r.size.toLocaleString('en'), ...(V1 ? [r.v1] : []), r.v2, r.lines, r.ms.toFixed(1)]
  console.log(`| ${cells.join(' | ')} |`)
}

// Typical (median) and largest v2 stub per kind.
const byKind = new Map()
for (const r of rows) {
  const k = r.kind.split(' ')[0] === 'JSON' ? r.kind : r.kind.split(',')[0]
  if (!byKind.has(k)) byKind.set(k, [])
  byKind.get(k).push(r.v2)
}
console.log('\n| kind | payloads | median v2 stub | largest v2 stub |')
console.log('| --- | ---: | ---: | ---: |')
for (const [k, sizes] of [...byKind].sort()) {
  sizes.sort((a, b) => a - b)
  console.log(`| ${k} | ${sizes.length} | ${sizes[Math.floor((sizes.length - 1) / 2)]} | ${sizes[sizes.length - 1]} |`)
}
