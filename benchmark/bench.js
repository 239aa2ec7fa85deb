'use strict'
// `npm run bench`: runs every suite in benchmark/suites/ in its own process
// (so one suite's heap and JIT state cannot colour another's) and prints
// their markdown tables. `npm run bench -- <word> ...` runs, per word, the
// suite of that exact name (`load` is load.js alone, not offload.js), or
// else every suite whose name contains the word. `--write-figures` also
// records the figures the docs quote (benchmark/figures.json).
const { readdirSync, readFileSync, writeFileSync, existsSync, rmSync } = require('node:fs')
const { join } = require('node:path')
const { spawnSync } = require('node:child_process')
const os = require('node:os')

const writeFigures = process.argv.includes('--write-figures')
const filter = process.argv.slice(2).filter((a) => a !== '--write-figures')
const dir = join(__dirname, 'suites')
const all = readdirSync(dir)
  .filter((f) => f.endsWith('.js'))
  .map((f) => f.slice(0, -3))
  .sort()
const picked = (w) => (all.includes(w) ? [w] : all.filter((name) => name.includes(w)))
const suites = filter.length === 0 ? all : all.filter((name) => filter.some((w) => picked(w).includes(name)))
if (suites.length === 0) {
  console.error(`no suite matches ${filter.join(', ')}; the suites: ${all.join(', ')}`)
  process.exit(1)
}

console.log(`# @symfonic/core benchmarks`)
console.log(`machine: ${os.cpus().length} x ${os.cpus()[0].model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}\n`)
// --write-figures: the figures the docs quote (util.figure) go to
// benchmark/figures.json, with this run's machine and date, and the docs'
// spans are filled from it (scripts/figures.js).
const figuresOut = writeFigures ? join(os.tmpdir(), `symfonic-figures-${process.pid}.jsonl`) : null
let failed = 0
for (const f of suites) {
  const env = figuresOut ? { ...process.env, SYMFONIC_FIGURES: figuresOut } : process.env
  const r = spawnSync(process.execPath, ['--expose-gc', join(dir, `${f}.js`)], { stdio: 'inherit', env })
  if (r.status !== 0) failed++
}
if (figuresOut && failed === 0 && existsSync(figuresOut)) {
  const file = join(__dirname, 'figures.json')
  const figures = JSON.parse(readFileSync(file, 'utf8'))
  const run = `${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} x ${os.cpus()[0].model}, Node ${process.version}`
  for (const line of readFileSync(figuresOut, 'utf8').split('\n').filter(Boolean)) {
    const { key, value, suite } = JSON.parse(line)
    // A table stands on its own lines between the span's markers.
    figures[key] = { value: value.includes('\n') ? `\n${value}\n` : value, command: `npm run bench -- ${suite}`, run }
  }
  writeFileSync(file, JSON.stringify(Object.fromEntries(Object.keys(figures).sort().map((k) => [k, figures[k]])), null, 2) + '\n')
  rmSync(figuresOut)
  spawnSync(process.execPath, [join(__dirname, '..', 'scripts', 'figures.js')], { stdio: 'inherit' })
}
process.exit(failed ? 1 : 0)
