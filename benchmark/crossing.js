'use strict'
// Issue 11, part 1: what one async `record` of a 5 MB catalog costs the JS
// thread (from the call until it returns its Promise), the whole async record
// (crossing included) and `JSON.parse` of the same string, for each catalog
// of benchmark/catalogs.js; plus the memory held per payload byte and the
// process RSS after the records (a transient UTF-16 copy left behind would
// show there). A measurement, not a test: `node --expose-gc benchmark/crossing.js [runs]`.
const { performance } = require('node:perf_hooks')
const { Ledger } = require('..')
const { catalog, KINDS } = require('./catalogs')
const { median, fmtMs, table } = require('./util')

const fastest = (xs) => Math.min(...xs)

const RUNS = Number(process.argv[2]) || 21
const gc = global.gc || (() => {})

async function measure(kind) {
  const content = catalog(kind)
  const bytes = Buffer.byteLength(content)
  const ledger = new Ledger({ maxBytes: 1 << 30 })
  const jsThread = []
  const total = []
  const parse = []
  let ratio = 0
  for (let i = 0; i < RUNS; i++) {
    ledger.clear()
    gc()
    const input = { toolCallId: `c${i}`, toolName: 't', content }
    const t0 = performance.now()
    const p = ledger.record(input)
    const t1 = performance.now()
    await p
    const t2 = performance.now()
    jsThread.push(t1 - t0)
    total.push(t2 - t0)
    ratio = ledger.stats().bytes / bytes
    const t3 = performance.now()
    JSON.parse(content)
    parse.push(performance.now() - t3)
  }
  ledger.clear()
  gc()
  const rss = process.memoryUsage().rss / 2 ** 20
  const both = (xs) => `${fmtMs(median(xs))} (${fmtMs(fastest(xs))})`
  return [kind, (bytes / 2 ** 20).toFixed(2) + ' MB', both(jsThread), both(total), both(parse), ratio.toFixed(3), rss.toFixed(0) + ' MB']
}

async function main() {
  const rows = []
  for (const kind of KINDS) rows.push(await measure(kind))
  console.log(`record of one 5 MB catalog: median (fastest) of ${RUNS} runs`)
  console.log(table(['catalog', 'UTF-8', 'JS thread', 'async record', 'JSON.parse', 'stats.bytes / payload', 'RSS after'], rows))
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
