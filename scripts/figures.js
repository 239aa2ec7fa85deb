#!/usr/bin/env node
'use strict'
// One source for every benchmark figure the docs quote: benchmark/figures.json,
// written by `npm run bench -- --write-figures` (each suite's `figure(key,
// value)`, benchmark/util.js), by `node scripts/figures.js --from-demo` (the
// demo's prompt sizes) and by `node scripts/figures.js --from-code` (sizes the
// package's code fixes, such as the recall tool's definition). In README.md, CONTRIBUTING.md, docs/*.md and
// benchmark/README.md a quoted figure is a marked span,
//
//   <!-- fig:ledger.record_5mb_ascii -->9.24 ms<!-- /fig -->
//
// which `node scripts/figures.js` fills from the file, so two pages cannot
// quote one measurement two ways. `--check` (CI) fails on a span whose text
// differs from the file or whose key the file lacks.

const fs = require('node:fs')
const path = require('node:path')
const { execFileSync } = require('node:child_process')

const root = path.resolve(__dirname, '..')
const FILE = path.join(root, 'benchmark', 'figures.json')
const SPAN = /<!-- fig:([\w.-]+) -->([\s\S]*?)<!-- \/fig -->/g

function load() {
  return JSON.parse(fs.readFileSync(FILE, 'utf8'))
}

function save(figures) {
  const sorted = Object.fromEntries(Object.keys(figures).sort().map((k) => [k, figures[k]]))
  fs.writeFileSync(FILE, JSON.stringify(sorted, null, 2) + '\n')
}

function pages() {
  const files = ['README.md', 'CONTRIBUTING.md', 'benchmark/README.md']
  for (const f of fs.readdirSync(path.join(root, 'docs')).sort()) if (f.endsWith('.md')) files.push(`docs/${f}`)
  return files.filter((f) => fs.existsSync(path.join(root, f)))
}

/** `text` with every span filled from `figures`; `problems` lists unknown keys and, with `check`, stale spans. */
function fill(text, figures, file, problems) {
  return text.replace(SPAN, (span, key, old) => {
    const fig = figures[key]
    if (fig === undefined) {
      problems.push(`${file}: no figure ${key} in benchmark/figures.json`)
      return span
    }
    if (old !== fig.value) problems.push(`${file}: ${key} says ${JSON.stringify(old)}, benchmark/figures.json ${JSON.stringify(fig.value)}`)
    return `<!-- fig:${key} -->${fig.value}<!-- /fig -->`
  })
}

/** The demo's prompt sizes, as it prints them (deterministic: characters, not time). */
function fromDemo() {
  const out = execFileSync(process.execPath, [path.join(root, 'examples', 'demo.js')], { encoding: 'utf8' })
  const m = /over (\d+) calls the model was sent ([\d.]+ k) characters instead of ([\d.]+ k) \((\d+)x less\)/.exec(out)
  if (!m) throw new Error('scripts/figures.js: the demo no longer prints its prompt sizes line')
  const mb = /a ([\d.]+ MB) tool result/.exec(out)
  const command = 'npm run demo'
  return {
    'demo.calls': { value: m[1], command },
    'demo.prompt_with': { value: `${m[2]} characters`, command },
    'demo.prompt_without': { value: `${m[3]} characters`, command },
    'demo.ratio': { value: `${m[4]}×`, command },
    'demo.result_size': { value: mb[1], command },
  }
}

/** Sizes the package's own code fixes (deterministic, no benchmark run). */
function fromCode() {
  const { Ledger } = require(root)
  const { createRecallToolResultTool } = require(path.join(root, 'langchain'))
  const { toolChars } = require(path.join(root, 'langchain', 'request-size.js'))
  const command = 'node scripts/figures.js --from-code'
  return {
    'recall.definition_chars': { value: `${toolChars(createRecallToolResultTool(new Ledger()))} characters`, command },
  }
}

function main(argv) {
  let figures = load()
  if (argv.includes('--from-demo')) {
    figures = { ...figures, ...fromDemo() }
    save(figures)
  }
  if (argv.includes('--from-code')) {
    figures = { ...figures, ...fromCode() }
    save(figures)
  }
  const check = argv.includes('--check')
  const problems = []
  let spans = 0
  for (const file of pages()) {
    const abs = path.join(root, file)
    const text = fs.readFileSync(abs, 'utf8')
    spans += [...text.matchAll(SPAN)].length
    const own = []
    const next = fill(text, figures, file, own)
    problems.push(...(check ? own : own.filter((p) => p.includes('no figure'))))
    if (!check && next !== text) {
      fs.writeFileSync(abs, next)
      console.log(`figures: filled ${file}`)
    }
  }
  if (problems.length > 0) {
    console.error(problems.join('\n'))
    console.error(check ? 'figures: run `node scripts/figures.js` to fill the spans from benchmark/figures.json' : '')
    process.exit(1)
  }
  console.log(`figures: ${spans} quoted figures ${check ? 'match' : 'filled from'} benchmark/figures.json`)
}

if (require.main === module) main(process.argv.slice(2))

module.exports = { fill, fromDemo, fromCode, SPAN }
