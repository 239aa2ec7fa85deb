'use strict'
// `npm run bench`: runs every suite in benchmark/suites/ in its own process
// (so one suite's heap and JIT state cannot colour another's) and prints
// their markdown tables. `npm run bench -- ledger` runs only matching suites.
const { readdirSync } = require('node:fs')
const { join } = require('node:path')
const { spawnSync } = require('node:child_process')
const os = require('node:os')

const filter = process.argv.slice(2)
const dir = join(__dirname, 'suites')
const suites = readdirSync(dir)
  .filter((f) => f.endsWith('.js'))
  .filter((f) => filter.length === 0 || filter.some((w) => f.includes(w)))
  .sort()

console.log(`# @symfonic/core benchmarks`)
console.log(`machine: ${os.cpus().length} x ${os.cpus()[0].model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}\n`)
let failed = 0
for (const f of suites) {
  const r = spawnSync(process.execPath, ['--expose-gc', join(dir, f)], { stdio: 'inherit' })
  if (r.status !== 0) failed++
}
process.exit(failed ? 1 : 0)
