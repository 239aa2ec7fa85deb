'use strict'
// Peak RSS of one process running many concurrent "threads" (async loops,
// as agent conversations are) that record tool results and read them back,
// against the same harness with a no-op ledger: how the memory a ledger
// takes under concurrency relates to its `maxBytes`.
// Target: the ledger's peak above the harness's within 3 x maxBytes, the
// multiple docs/stores.md ("Sizing") tells users to allow.
// Run: npm run bench -- rss
// One configuration: node benchmark/suites/rss.js <threads> <rounds> <maxBytesMiB> <memory|sqlite> <scale>
//
// Each variant runs in a fresh child process; its peak RSS is the kernel's
// high-water mark (VmHWM in /proc/self/status), read at its end. The payloads
// come from a fixed pool of 48 distinct payloads (JSON catalogs and logs; a
// third of the threads pass them as Buffers) of 0.6-1.4 MB times `scale`, so
// the harness's own memory is the same in every variant and small; every
// record has its own call id, so every record is a distinct entry the ledger
// must hold or evict. Per round a thread records one result, recalls a query
// of it, and every third round fetches a whole earlier result back.

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')

const { table } = require('../util.js')

const TARGET = 3
// threads, rounds, maxBytes in MiB, store, payload scale (0.4: 0.24-0.56 MB,
// short enough that strings and Buffers are copied whole at the call).
const CASES = [
  [200, 8, 256, 'memory', 1],
  [200, 8, 256, 'sqlite', 1],
  [1000, 4, 64, 'memory', 0.4],
  [1000, 4, 64, 'sqlite', 0.4],
]

function hwm() {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))
  return Number(m[1]) * 1024
}

function pool(scale) {
  const out = []
  for (let k = 0; k < 48; k++) {
    const n = Math.round((2500 + ((k * 397) % 3300)) * scale) // 0.6-1.4 MB at scale 1
    if (k % 2 === 0) {
      out.push(JSON.stringify({ page: k, rows: Array.from({ length: n }, (_, i) => ({ id: i, sku: `S-${k}-${i}`, title: `item ${i} of page ${k}`, price: (i * 7) % 1000 / 4, stock: i % 13 })) }))
    } else {
      out.push(Array.from({ length: n * 3 }, (_, i) => `2026-03-0${1 + (i % 9)}T10:${String(i % 60).padStart(2, '0')}:00Z ${i % 17 ? 'INFO' : 'ERROR'} worker-${i % 8} page ${k} request ${i}`).join('\n'))
    }
  }
  return out
}

// A ledger that does nothing: the harness's own cost.
class NoopLedger {
  async record(input) {
    return { memId: `trm_${input.toolCallId}`, namespace: input.namespace }
  }
  async fetch() {
    return '[noop]'
  }
  stats() {
    return { bytes: 0, entries: 0, evictions: 0 }
  }
}

async function child([threads, rounds, maxMiB, , scale], variant) {
  const { Ledger, recall } = require('../..')
  const payloads = pool(scale)
  const buffers = payloads.map((s) => Buffer.from(s))
  const poolBytes = payloads.reduce((a, s) => a + s.length, 0) * 2
  global.gc()
  const base = process.memoryUsage().rss
  let ledger
  if (variant === 'noop') ledger = new NoopLedger()
  else if (variant === 'memory') ledger = new Ledger({ maxBytes: maxMiB * 2 ** 20 })
  else ledger = new Ledger({ maxBytes: maxMiB * 2 ** 20, store: `sqlite:${path.join(os.tmpdir(), `symfonic-rss-${process.pid}.db`)}` })
  const read = (id, ns, o) => (variant === 'noop' ? ledger.fetch() : recall(ledger, id, { namespace: ns, ...o }))
  let payloadBytes = 0
  const t0 = Date.now()
  await Promise.all(
    Array.from({ length: threads }, async (_, t) => {
      const ns = `thread-${t}`
      const ids = []
      for (let r = 0; r < rounds; r++) {
        const k = (t * 7 + r * 13) % payloads.length
        const content = t % 3 === 2 ? buffers[k] : payloads[k]
        payloadBytes += content.length
        const h = await ledger.record({ toolCallId: `t${t}-r${r}`, toolName: k % 2 ? 'logs' : 'catalog', toolArgs: { page: k }, content, namespace: ns })
        ids.push(h.memId)
        await read(h.memId, ns, { query: 'item 77' })
        if (r % 3 === 2) await read(ids[r - 2], ns, { format: 'full', maxOutputChars: 1e7 })
      }
    }),
  )
  const s = ledger.stats()
  const out = { variant, base, peak: hwm(), poolBytes, payloadBytes, ms: Date.now() - t0, held: s.bytes, entries: s.entries, evictions: s.evictions }
  fs.writeSync(1, JSON.stringify(out) + '\n')
  if (variant === 'sqlite') for (const x of ['', '-wal', '-shm']) fs.rmSync(path.join(os.tmpdir(), `symfonic-rss-${process.pid}.db${x}`), { force: true })
}

// The ledger's peak and the no-op harness's, each in a fresh process.
function measure(cfg) {
  const rows = []
  for (const variant of ['noop', cfg[3]]) {
    const r = spawnSync(process.execPath, ['--expose-gc', __filename, ...cfg.map(String), variant], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
    if (r.status !== 0) throw new Error(`${variant} failed: ${r.status} ${r.signal}`)
    rows.push(JSON.parse(r.stdout.trim().split('\n').pop()))
  }
  return rows
}

const mib = (b) => (b / 2 ** 20).toFixed(0)

function main() {
  const args = process.argv.slice(2)
  const cases = args.length ? [[200, 8, 256, 'memory', 1].map((d, i) => (args[i] === undefined ? d : i === 3 ? args[i] : Number(args[i])))] : CASES
  const out = []
  let worst = 0
  for (const cfg of cases) {
    const [threads, rounds, maxMiB, store, scale] = cfg
    const [noop, led] = measure(cfg)
    const over = (led.peak - noop.peak) / (maxMiB * 2 ** 20)
    worst = Math.max(worst, over)
    out.push([
      `${threads} × ${rounds}, ${(0.6 * scale).toFixed(2)}-${(1.4 * scale).toFixed(2)} MB (${mib(led.payloadBytes)} MiB in all)`,
      `${maxMiB} MiB`,
      store,
      `${mib(led.peak - noop.peak)} MiB`,
      `${over.toFixed(2)} ×`,
      `${mib(noop.peak)} MiB`,
      `${mib(led.held)} MiB, ${led.evictions} evictions`,
      `${led.ms} ms`,
    ])
  }
  console.log(`## RSS and maxBytes under concurrency (load ${os.loadavg()[0].toFixed(1)})\n`)
  console.log(table(['threads × rounds, results', 'maxBytes', 'store', 'peak above the no-op harness', 'of maxBytes', 'harness peak', 'held at the end', 'records and reads'], out))
  console.log(`\nTarget (the ledger's peak above the harness within ${TARGET} × maxBytes): ${worst <= TARGET ? 'met' : 'NOT met'} (worst ${worst.toFixed(2)} ×).\n`)
}

if (process.argv[7]) {
  const cfg = process.argv.slice(2, 7).map((a, i) => (i === 3 ? a : Number(a)))
  child(cfg, process.argv[7]).catch((e) => {
    console.error(e)
    process.exit(1)
  })
} else {
  main()
}
