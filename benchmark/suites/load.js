'use strict'
// Load: one process, 200 concurrent conversation threads, each recording
// tool results of 20 KB to 5 MB (JSON and text, log-uniform sizes) and
// recalling slices of them (a json path, a range), against a ledger in
// memory, over SQLite, and over Redis (a local redis-server this suite starts
// and stops) — beside the same harness with a no-op ledger, each harness in
// a process of its own. Reported: records/s and recalls/s, the event loop's
// delay (p50/p99/max, perf_hooks.monitorEventLoopDelay), peak RSS, and a
// final read-back of every acknowledged record (a fresh ledger on the store).
// Targets: event-loop p99 within 5 ms of the no-op harness; 0 lost or wrong.
// Run: npm run bench -- load   (LOAD_THREADS, LOAD_SECONDS change the load)

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')
const { monitorEventLoopDelay, performance } = require('node:perf_hooks')
const { table } = require('../util.js')

const THREADS = Number(process.env.LOAD_THREADS || 200)
const SECONDS = Number(process.env.LOAD_SECONDS || 10)
const RECALLS = 2 // per record
// Between two calls a thread waits 0-100 ms (the model thinking), so every
// harness, the no-op one included, runs as long and offers the same load.
const THINK_MS = 100
const HARNESSES = ['no-op', 'memory', 'sqlite', 'redis']

// 16 payloads, sizes log-uniform between 20 KB and 5 MB, half JSON, half text.
function pool() {
  const out = []
  const K = 16
  for (let k = 0; k < K; k++) {
    const bytes = Math.round(20e3 * Math.pow(5e6 / 20e3, k / (K - 1)))
    if (k % 2 === 0) {
      const rows = []
      let size = 0
      for (let i = 0; size < bytes; i++) {
        const row = { id: i, sku: `SKU-${k}-${i}`, title: `item ${i} of payload ${k}`, price: (i * 37) % 1000 }
        rows.push(row)
        size += JSON.stringify(row).length + 1
      }
      out.push({ kind: 'json', text: JSON.stringify({ meta: { k, count: rows.length }, rows }), last: rows.length - 1 })
    } else {
      const lines = []
      let size = 0
      for (let i = 0; size < bytes; i++) {
        const line = `2026-01-01T00:00:${String(i % 60).padStart(2, '0')} INFO worker-${i % 8} payload ${k} request ${i} ok`
        lines.push(line)
        size += line.length + 1
      }
      out.push({ kind: 'text', text: lines.join('\n') })
    }
  }
  return out
}

// A ledger that does nothing: the harness's own cost.
function noopLedger() {
  let n = 0
  return {
    record: async (input) => ({ memId: `trm_${(n++).toString(16).padStart(12, '0')}`, namespace: input.namespace }),
    fetch: async () => '',
    close: async () => {},
  }
}

async function harness(name) {
  const { Ledger, recall } = require('../..')
  const { startRedis } = require('../../__test__/support/redis-server.js')
  const payloads = pool()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-load-'))
  let server = null
  let store = null
  if (name === 'sqlite') store = `sqlite:${path.join(dir, 'load.db')}`
  if (name === 'redis') {
    server = await startRedis()
    store = server.url
  }
  const ledger = name === 'no-op' ? noopLedger() : await Ledger.open(store ? { store, timeoutMs: 30000 } : {})
  if (global.gc) global.gc()
  const rssBefore = process.memoryUsage().rss
  let rssPeak = rssBefore
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
  }, 50)
  const delay = monitorEventLoopDelay({ resolution: 1 })
  const acked = []
  let records = 0
  let recalls = 0
  let wrong = 0
  let failed = 0
  let rng = 12345
  const rand = (n) => {
    rng = (rng * 1103515245 + 12345) % 2147483648
    return rng % n
  }

  const think = () => new Promise((r) => setTimeout(r, rand(THINK_MS)))
  let end = 0

  async function thread(t) {
    const mine = []
    const namespace = `thread-${t}`
    for (let r = 0; performance.now() < end; r++) {
      const p = payloads[(t * 7 + r * 5) % payloads.length]
      try {
        const h = await ledger.record({ toolCallId: `call-${t}-${r}`, toolName: p.kind === 'json' ? 'get_catalog' : 'read_log', content: p.text, namespace })
        records++
        mine.push({ memId: h.memId, namespace, p })
        acked.push(mine[mine.length - 1])
      } catch {
        failed++
      }
      for (let q = 0; q < RECALLS && mine.length > 0; q++) {
        await think()
        const e = mine[rand(mine.length)]
        if (name === 'no-op') {
          await recall(ledger, e.memId, { namespace, offset: 0, maxChars: 100 })
        } else if (e.p.kind === 'json') {
          const a = await recall(ledger, e.memId, { namespace, jsonPath: 'rows[-1].id' })
          if (a !== String(e.p.last) && !a.startsWith('[tool_memory not found')) wrong++
        } else {
          const off = rand(Math.max(1, e.p.text.length - 100))
          const a = await recall(ledger, e.memId, { namespace, offset: off, maxChars: 100 })
          if (!a.startsWith(e.p.text.slice(off, off + 100)) && !a.startsWith('[tool_memory not found')) wrong++
        }
        recalls++
      }
      await think()
    }
  }

  delay.enable()
  const t0 = performance.now()
  end = t0 + SECONDS * 1000
  await Promise.all(Array.from({ length: THREADS }, (_, t) => thread(t)))
  const seconds = (performance.now() - t0) / 1000
  delay.disable()
  clearInterval(sampler)

  // Read-back: every acknowledged record, byte for byte, from a fresh ledger on the store.
  let lost = 0
  let dropped = 0
  if (name !== 'no-op') {
    const reader = store ? await Ledger.open({ store, maxBytes: 1, timeoutMs: 30000 }) : ledger
    for (const e of acked) {
      const full = await reader.fetch(e.memId, { namespace: e.namespace, format: 'full' })
      if (full === e.p.text) continue
      // In memory only, maxBytes evicts by design: gone, not wrong.
      if (!store && full.startsWith('[tool_memory not found')) dropped++
      else if (full.startsWith('[tool_memory')) lost++
      else wrong++
    }
    if (reader !== ledger) await reader.close()
  }
  await ledger.close()
  if (server) await server.stop()
  fs.rmSync(dir, { recursive: true, force: true })
  const ms = (ns) => ns / 1e6
  return {
    name,
    seconds,
    records,
    recalls,
    failed,
    mb: acked.reduce((a, e) => a + e.p.text.length, 0) / 1e6,
    p50: ms(delay.percentile(50)),
    p99: ms(delay.percentile(99)),
    max: ms(delay.max),
    rssPeakMb: rssPeak / 2 ** 20,
    rssGrowthMb: (rssPeak - rssBefore) / 2 ** 20,
    acked: acked.length,
    lost,
    wrong,
    dropped,
  }
}

function main() {
  const results = []
  for (const h of HARNESSES) {
    const r = spawnSync(process.execPath, ['--expose-gc', __filename, '--harness', h], { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'inherit'] })
    const line = (r.stdout || '').trim().split('\n').pop()
    if (r.status !== 0 || !line || !line.startsWith('{')) {
      console.error(`load: the ${h} harness failed`)
      process.exit(1)
    }
    results.push(JSON.parse(line))
  }
  const base = results[0]
  const f = (x, d = 1) => x.toFixed(d)
  console.log(`\n## Load: ${THREADS} concurrent threads for ${SECONDS} s, each a record (20 KB-5 MB, JSON and text) then ${RECALLS} recalls, 0-${THINK_MS} ms apart\n`)
  console.log(
    table(
      ['ledger', 'records/s', 'recalls/s', 'MB recorded', 'loop p50', 'loop p99', 'p99 vs no-op', 'loop max', 'RSS peak', 'read back', 'lost / wrong'],
      results.map((r) => [
        r.name,
        f(r.records / r.seconds),
        f(r.recalls / r.seconds),
        f(r.mb, 0),
        `${f(r.p50, 2)} ms`,
        `${f(r.p99, 2)} ms`,
        r === base ? '' : `${r.p99 - base.p99 >= 0 ? '+' : ''}${f(r.p99 - base.p99, 2)} ms`,
        `${f(r.max, 1)} ms`,
        `${f(r.rssPeakMb, 0)} MB`,
        r.name === 'no-op' ? '' : `${r.acked - r.lost - r.wrong - r.dropped} / ${r.acked}${r.dropped ? ` (${r.dropped} evicted by maxBytes)` : ''}`,
        r.name === 'no-op' ? '' : `${r.lost} / ${r.wrong}`,
      ]),
    ),
  )
  const misses = results.filter((r) => r !== base && (r.p99 - base.p99 > 5 || r.lost > 0 || r.wrong > 0 || r.failed > 0))
  console.log(`\nTarget: event-loop p99 within 5 ms of the no-op harness, 0 lost or wrong: ${misses.length === 0 ? 'met' : `missed by ${misses.map((r) => r.name).join(', ')}`}`)
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0].model}, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`)
}

if (process.argv[2] === '--harness') {
  harness(process.argv[3]).then(
    (r) => {
      process.stdout.write(JSON.stringify(r) + '\n')
      process.exit(0)
    },
    (e) => {
      console.error(e)
      process.exit(1)
    },
  )
} else {
  main()
}
