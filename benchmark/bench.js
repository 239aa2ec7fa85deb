'use strict'
// `npm run bench`: runs every suite in benchmark/suites/ in its own process
// (so one suite's heap and JIT state cannot colour another's) and prints
// their markdown tables. `npm run bench -- <word> ...` runs, per word, the
// suite of that exact name (`load` is load.js alone, not offload.js), or
// else every suite whose name contains the word.
const { readdirSync } = require('node:fs')
const { join } = require('node:path')
const { spawnSync } = require('node:child_process')
const os = require('node:os')

const filter = process.argv.slice(2)
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
let failed = 0
for (const f of suites) {
  const r = spawnSync(process.execPath, ['--expose-gc', join(dir, `${f}.js`)], { stdio: 'inherit' })
  if (r.status !== 0) failed++
}
process.exit(failed ? 1 : 0)
