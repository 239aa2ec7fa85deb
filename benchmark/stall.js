'use strict'
// The event loop's longest stall while records are in flight, as the ledger
// suite measures it (issue 11): a server taking 20 requests, each recording a
// 5 MB non-ASCII catalog in its own macrotask. Also the machine's floor, the
// same histogram over the same time with nothing in flight.
//
// A stall is how late the loop came to a turn it was due. Each sample of
// `monitorEventLoopDelay` is the time between two turns of its timer, the
// timer's own interval (`resolution`) included (Node's src/histogram.cc,
// `RecordDelta`: an idle loop at 1 ms reads a mean of about 1.1 ms), so the
// stall of a sample is the sample less the resolution, as monitoring agents
// read it. The raw maximum is kept beside it. A second reading needs no
// histogram: another process sends a timestamp every millisecond over a
// pipe, and the longest a ping waited, from its send to its handler (the
// same CLOCK_MONOTONIC on both sides), is the longest a request to this
// server would have waited for the JS thread.
//
// As a script, it runs one warm-up burst (its catalogs were just built) and
// then `n` bursts in this process, and prints the `n` results as JSON, so
// that a suite can measure them under other Node flags:
//   node --single-threaded-gc benchmark/stall.js 6

const { spawn } = require('node:child_process')
const { monitorEventLoopDelay, performance, PerformanceObserver, constants } = require('node:perf_hooks')
const { Ledger } = require('..')
const { catalog } = require('./catalogs.js')

/** The histogram's timer interval, in ms. */
const RESOLUTION_MS = 1

/** A histogram of the event loop's turns, 1 ms apart. */
const turns = () => monitorEventLoopDelay({ resolution: RESOLUTION_MS })

/** The stall of a histogram sample (ns): the sample less the timer's interval, in ms. */
const stallMs = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS)

// The other process: a timestamp (uv_hrtime, CLOCK_MONOTONIC) every millisecond.
const PINGER = `const b = Buffer.alloc(8)
setInterval(() => { b.writeBigUInt64LE(process.hrtime.bigint()); process.stdout.write(Buffer.from(b)) }, 1)`

/**
 * Starts the pinging process; resolves, once its first ping has arrived, to
 * a probe whose `window(fn)` resolves to the longest wait (ms) of a ping
 * sent while `fn()` was pending, and the pings counted; `stop()` ends it.
 */
async function pinger() {
  const child = spawn(process.execPath, ['-e', PINGER], { stdio: ['ignore', 'pipe', 'inherit'] })
  let rest = Buffer.alloc(0)
  let open = null
  let first
  const arrived = new Promise((r) => (first = r))
  child.stdout.on('data', (chunk) => {
    const now = process.hrtime.bigint()
    const b = rest.length ? Buffer.concat([rest, chunk]) : chunk
    let i = 0
    for (; i + 8 <= b.length; i += 8) {
      const sent = b.readBigUInt64LE(i)
      if (open && sent >= open.from) {
        const waited = now - sent
        if (waited > open.longest) open.longest = waited
        open.count++
      }
    }
    rest = b.subarray(i)
    first()
  })
  const exited = new Promise((r) => child.once('exit', r))
  await arrived
  return {
    async window(fn) {
      open = { from: process.hrtime.bigint(), longest: 0n, count: 0 }
      const w = open
      await fn()
      // One more ping, so a wait at the very end is counted too.
      await new Promise((r) => setTimeout(r, 5))
      open = null
      return { maxMs: Number(w.longest) / 1e6, count: w.count }
    },
    async stop() {
      child.kill()
      await exited
    },
  }
}

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
 * longest stall (`monitorEventLoopDelay`, 1 ms resolution, less the
 * resolution; `rawMaxMs` without) and the p99 until all have resolved, and
 * the burst's wall time. The ledger is cleared after the window, so one
 * burst's payloads are not freed during the next.
 */
async function burst(payloads) {
  const ledger = new Ledger({ maxBytes: 2 ** 32 })
  const h = turns()
  await new Promise((r) => setTimeout(r, 20))
  h.enable()
  const started = performance.now()
  await record20(ledger, payloads)
  // One more timer turn, so a stall at the very end is sampled too.
  await new Promise((r) => setTimeout(r, 5))
  h.disable()
  ledger.clear()
  return { maxMs: stallMs(h.max), rawMaxMs: h.max / 1e6, p99Ms: stallMs(h.percentile(99)), wallMs: performance.now() - started }
}

/**
 * `n` bursts as `burst` runs them, each timed by the pings of another
 * process instead of the histogram: the longest wait of a ping per burst.
 */
async function pingedBursts(payloads, n) {
  const probe = await pinger()
  const out = []
  try {
    for (let i = 0; i < n; i++) {
      const ledger = new Ledger({ maxBytes: 2 ** 32 })
      await new Promise((r) => setTimeout(r, 20))
      out.push(await probe.window(() => record20(ledger, payloads)))
      ledger.clear()
    }
  } finally {
    await probe.stop()
  }
  return out
}

/** The longest wait of a ping over a window of `ms` with nothing in flight, for each of `n` windows. */
async function pingedIdle(ms, n) {
  const probe = await pinger()
  const out = []
  try {
    for (let i = 0; i < n; i++) out.push((await probe.window(() => new Promise((r) => setTimeout(r, ms)))).maxMs)
  } finally {
    await probe.stop()
  }
  return out
}

// How long after a burst its collections are watched for.
const AFTER_MS = 300

/**
 * One burst whose ledger is kept, then the longest stall over the AFTER_MS
 * after it, while V8 collects what it heard of (each record reports its
 * memory when it settles), and the full collections seen in that window.
 */
async function afterSpell(payloads) {
  const ledger = new Ledger({ maxBytes: 2 ** 32 })
  await record20(ledger, payloads)
  let full = 0
  const gcs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++
  })
  gcs.observe({ entryTypes: ['gc'] })
  const h = turns()
  h.enable()
  await new Promise((r) => setTimeout(r, AFTER_MS))
  h.disable()
  gcs.disconnect()
  ledger.clear()
  return { maxMs: stallMs(h.max), full }
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
    const h = turns()
    h.enable()
    await new Promise((r) => setTimeout(r, ms))
    h.disable()
    out.push(stallMs(h.max))
  }
  return out
}

/** The two non-ASCII catalogs the bursts record. */
const payloads = () => [catalog('latin1'), catalog('cjk')]

module.exports = { bursts, idle, afterSpell, pingedBursts, pingedIdle, RESOLUTION_MS }

if (require.main === module) {
  const n = Number(process.argv[2]) || 6
  bursts(payloads(), n + 1).then((out) => process.stdout.write(JSON.stringify(out.slice(1))))
}
