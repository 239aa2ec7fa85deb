'use strict'
// Every benchmark figure the docs quote comes from benchmark/figures.json
// (written by `npm run bench -- --write-figures` and, for the demo's prompt
// sizes, `node scripts/figures.js --from-demo`), through marked spans that
// scripts/figures.js fills and checks, so two pages cannot quote one
// measurement two ways.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { fill, fromDemo, fromCode, SPAN } = require('../scripts/figures.js')
const { proseLines } = require('../scripts/links.js')

const root = path.join(__dirname, '..')
const figures = JSON.parse(fs.readFileSync(path.join(root, 'benchmark', 'figures.json'), 'utf8'))
const userPages = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]
// The tables `npm run bench:context -- --write` fills between its markers are generated, like a span.
const BENCH_BLOCK = /<!-- bench:([a-z-]+) -->\n[\s\S]*?<!-- \/bench:\1 -->/g
/** A page's prose lines (code blocks and inline code blanked), with spans and generated tables out. */
const proseOf = (file) => proseLines(fs.readFileSync(path.join(root, file), 'utf8').replace(SPAN, 'FIGURE').replace(BENCH_BLOCK, (block) => block.replace(/[^\n]/g, '')))
const TIME = /\d[\d.,]*\s?(ms|µs|ns|MB\/s)\b/

test('every span in the docs matches benchmark/figures.json (scripts/figures.js --check)', () => {
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'figures.js'), '--check'], { encoding: 'utf8' })
  expect(r.stderr).toBe('')
  expect(r.status).toBe(0)
  expect(r.stdout).toMatch(/^figures: \d+ quoted figures match benchmark\/figures\.json/)
})

test('the one measurement once quoted three ways is now one figure everywhere', () => {
  const quoted = (file, key) => [...fs.readFileSync(path.join(root, file), 'utf8').matchAll(SPAN)].filter((m) => m[1] === key).map((m) => m[2])
  expect(quoted('README.md', 'ledger.record_5mb_ascii')).toEqual([figures['ledger.record_5mb_ascii'].value])
  expect(quoted('README.md', 'ledger.parse_5mb_ascii')).toEqual([figures['ledger.parse_5mb_ascii'].value])
  // benchmark/README.md's Ledger table is the same run's table, as a whole.
  const table = quoted('benchmark/README.md', 'ledger.speed_table')[0]
  expect(table).toContain(`| record 5 MB ASCII catalog (async, crossing incl.) | ${figures['ledger.record_5mb_ascii'].value} | JSON.parse | ${figures['ledger.parse_5mb_ascii'].value} |`)
  // docs/stores.md quotes the store suite's own figures only.
  const stores = fs.readFileSync(path.join(root, 'docs', 'stores.md'), 'utf8')
  expect(stores).not.toMatch(/JSON\.parse of the payload|record, memory only/)
  expect(quoted('docs/stores.md', 'store.sqlite_record')).toEqual([figures['store.sqlite_record'].value])
})

test('no user page quotes a time or a throughput outside a span', () => {
  const stray = []
  for (const file of userPages) {
    proseOf(file).forEach((line, i) => {
      // Design constants, not measurements.
      const l = line.replace('200 ms without a record in flight', '')
      if (TIME.test(l)) stray.push(`${file}:${i + 1}: ${line.trim()}`)
    })
  }
  expect(stray).toEqual([])
})

test('no user page quotes a cost ratio, a dollar amount or a count of needs outside the generated tables', () => {
  const stray = []
  for (const file of userPages) {
    proseOf(file).forEach((line, i) => {
      if (/\b[01]\.\d{3}\b|\$\d+\.\d|\b\d[\d,]* needs\b/.test(line)) stray.push(`${file}:${i + 1}: ${line.trim()}`)
    })
  }
  expect(stray).toEqual([])
})

test('a prose ratio is caught; the same figure inside a bench:context table is not', () => {
  const page = 'x\n<!-- bench:targets -->\n| prefix | worst 1.046 |\n<!-- /bench:targets -->\nat 1.054 × none\n'
  const lines = proseLines(page.replace(BENCH_BLOCK, (block) => block.replace(/[^\n]/g, '')))
  expect(lines.filter((l) => /\b[01]\.\d{3}\b/.test(l))).toEqual(['at 1.054 × none'])
})

test('the CHANGELOG quotes no benchmark figure (it points to benchmark/README.md instead)', () => {
  const stray = []
  proseOf('CHANGELOG.md').forEach((line, i) => {
    if (TIME.test(line) || /\d[\d.]*\s?MB\b.*\b(to|→)\s*[\d.]+\s?MB\b|\d\.\d+×/.test(line)) stray.push(`CHANGELOG.md:${i + 1}: ${line.trim()}`)
  })
  expect(stray).toEqual([])
})

test('sizes the code fixes are what the docs quote (the recall tool\'s definition)', () => {
  for (const [key, fig] of Object.entries(fromCode())) expect([key, figures[key] && figures[key].value]).toEqual([key, fig.value])
})

test('the demo prints the figures the docs quote (they are counts of characters, the same on every run)', () => {
  const now = fromDemo()
  for (const [key, fig] of Object.entries(now)) expect([key, figures[key] && figures[key].value]).toEqual([key, fig.value])
})

test('a stale span is reported and refilled; an unknown key is reported', () => {
  const figs = { 'a.b': { value: '1.00 ms' } }
  const problems = []
  const out = fill('x <!-- fig:a.b -->2.00 ms<!-- /fig --> y <!-- fig:c.d -->3<!-- /fig -->', figs, 'page.md', problems)
  expect(out).toBe('x <!-- fig:a.b -->1.00 ms<!-- /fig --> y <!-- fig:c.d -->3<!-- /fig -->')
  expect(problems).toEqual(['page.md: a.b says "2.00 ms", benchmark/figures.json "1.00 ms"', 'page.md: no figure c.d in benchmark/figures.json'])
})

test('a suite\'s figure() goes to the file bench.js names, with the suite', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-figures-'))
  try {
    const out = path.join(dir, 'figures.jsonl')
    const suite = path.join(dir, 'ledger.js')
    fs.writeFileSync(suite, `require(${JSON.stringify(path.join(root, 'benchmark', 'util.js'))}).figure('ledger.x', '1.23 ms')`)
    spawnSync(process.execPath, [suite], { env: { ...process.env, SYMFONIC_FIGURES: out } })
    expect(fs.readFileSync(out, 'utf8')).toBe('{"key":"ledger.x","value":"1.23 ms","suite":"ledger"}\n')
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
