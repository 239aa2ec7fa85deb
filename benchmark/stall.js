'use strict'
// The event loop's longest stall while records are in flight, as the ledger
// suite measures it (issue 11): a server taking 20 requests, each recording a
// 5 MB non-ASCII catalog in its own macrotask. Also the machine's floor, the
// same histogram over the same time with nothing in flight.
//
// As a script, it runs one warm-up burst (its catalogs were just built) and
// then `n` bursts in this process, and prints the `n` results as JSON, so
// that a suite can measure them under other Node flags:
//   node --single-threaded-gc benchmark/stall.js 6

const { monitorEventLoopDelay, performance, PerformanceObserver, constants } = require('node:perf_hooks')
const { Ledger } = require('..')
const { catalog } = require('./catalogs.js')

/** Records 20 payloads into `ledger`, one per macrotask, alternating; resolves once all have. */
async function record20(ledger, payloads) {
  const done = []
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setImmediate(r))
    done.push(ledger.record({ toolCallId: `s${i}`, toolName: 'catalog', content: payloads[i % payloads.length] }))
  }
  await Promise.all(done)
}

/**
 * One burst: 20 records, one per macrotask, the payloads alternating; the
 * longest stall (`monitorEventLoopDelay`, 1 ms resolution) and the p99 until
 * all have resolved, and the burst's wall time. The ledger is cleared after
 * the window, so one burst's payloads are not freed during the next.
 */
async function burst(payloads) {
  const ledger = new Ledger({ maxBytes: 2 ** 32 })
  const h = monitorEventLoopDelay({ resolution: 1 })
  await new Promise((r) => setTimeout(r, 20))
  h.enable()
  const started = performance.now()
  await record20(ledger, payloads)
  // One more timer turn, so a stall at the very end is sampled too.
  await new Promise((r) => setTimeout(r, 5))
  h.disable()
  ledger.clear()
  return { maxMs: h.max / 1e6, p99Ms: h.percentile(99) / 1e6, wallMs: performance.now() - started }
}

/**
 * The collection the bursts no longer pay for: one burst whose ledger is
 * kept, then the longest stall over the quiet spell after it and 100 ms
 * more, when V8 hears of the growth (lib/external.js) and collects, and the
 * full collections seen in that window.
 */
async function afterSpell(payloads) {
  const { QUIET_MS } = require('../lib/external.js')
  const ledger = new Ledger({ maxBytes: 2 ** 32 })
  await record20(ledger, payloads)
  let full = 0
  const gcs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++
  })
  gcs.observe({ entryTypes: ['gc'] })
  const h = monitorEventLoopDelay({ resolution: 1 })
  h.enable()
  await new Promise((r) => setTimeout(r, QUIET_MS + 100))
  h.disable()
  gcs.disconnect()
  ledger.clear()
  return { maxMs: h.max / 1e6, full }
}

/** `n` bursts in a row. */
async function bursts(payloads, n) {
  const out = []
  for (let i = 0; i < n; i++) out.push(await burst(payloads))
  return out
}

/** The longest stall over a window of `ms` with nothing in flight, for each of `n` windows. */
async function idle(ms, n) {
  const out = []
  for (let i = 0; i < n; i++) {
    const h = monitorEventLoopDelay({ resolution: 1 })
    h.enable()
    await new Promise((r) => setTimeout(r, ms))
    h.disable()
    out.push(h.max / 1e6)
  }
  return out
}

/** The two non-ASCII catalogs the bursts record. */
const payloads = () => [catalog('latin1'), catalog('cjk')]

module.exports = { bursts, idle, afterSpell }

if (require.main === module) {
  const n = Number(process.argv[2]) || 6
  bursts(payloads(), n + 1).then((out) => process.stdout.write(JSON.stringify(out.slice(1))))
}
