'use strict'
// Records in flight are bounded by bytes (lib/in-flight.js): a thousand
// conversations recording at once do not make the process hold a thousand
// payload copies. Measured in a fresh process by its peak RSS (the kernel's
// high-water mark): 1,000 concurrent records of 0.1-0.25 MB each (short
// enough to be copied whole at the call) into a ledger of maxBytes 64 MiB.
// Without the bound this held 264 MB above the start; with it, 109 MB
// (benchmark/HISTORY.md, "RSS and maxBytes under concurrency").

const { spawnSync } = require('node:child_process')
const path = require('node:path')

const CHILD = `
const fs = require('node:fs')
const { Ledger, recall } = require(${JSON.stringify(path.join(__dirname, '..'))})
const hwm = () => Number(/VmHWM:\\s+(\\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]) * 1024
const payloads = Array.from({ length: 48 }, (_, k) =>
  JSON.stringify({ page: k, rows: Array.from({ length: 3000 + ((k * 397) % 3000) }, (_, i) => ({ id: i, sku: 'S-' + k + '-' + i, title: 'item ' + i })) }))
global.gc()
const start = hwm() > process.memoryUsage().rss ? hwm() : process.memoryUsage().rss
const ledger = new Ledger({ maxBytes: 64 * 2 ** 20 })
let bytes = 0
Promise.all(Array.from({ length: 1000 }, async (_, t) => {
  const content = payloads[t % payloads.length]
  bytes += content.length
  const h = await ledger.record({ toolCallId: 'c' + t, toolName: 't', content })
  await recall(ledger, h.memId, { query: 'item 7' })
})).then(() => fs.writeSync(1, JSON.stringify({ start, peak: hwm(), bytes, held: ledger.stats().bytes })))
`

test('a thousand concurrent records of 0.1-0.25 MB stay within 2.5 x maxBytes above the start', () => {
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', CHILD], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  expect(r.status).toBe(0)
  const { start, peak, bytes, held } = JSON.parse(r.stdout)
  const maxBytes = 64 * 2 ** 20
  expect(bytes).toBeGreaterThan(3 * maxBytes) // the records far outweigh what the ledger may hold
  expect(held).toBeLessThanOrEqual(maxBytes)
  expect(peak - start).toBeLessThan(2.5 * maxBytes)
}, 60000)

test('a record that waits its turn reads its Buffer then: one transferred meanwhile rejects, the others record', async () => {
  const { Ledger, memIdFor } = require('..')
  const ledger = new Ledger({ maxBytes: 16 * 2 ** 20 })
  const body = 'x'.repeat(200_000)
  const ahead = Array.from({ length: 100 }, (_, i) => ledger.record({ toolCallId: `a${i}`, toolName: 't', content: body + i }))
  const moved = Buffer.alloc(26, 'moved away before its turn') // its own ArrayBuffer, not the pool's
  const kept = Buffer.from('kept as given')
  const p = ledger.record({ toolCallId: 'm', toolName: 't', content: moved })
  const q = ledger.record({ toolCallId: 'k', toolName: 't', content: kept })
  structuredClone(moved.buffer, { transfer: [moved.buffer] })
  await expect(p).rejects.toThrow(/^Ledger\.record\(input\): content: the Buffer of 26 bytes is 0 bytes now/)
  expect((await q).memId).toBe(memIdFor('k', 'kept as given'))
  await Promise.all(ahead)
  const { entries, evictions } = ledger.stats()
  expect(entries + evictions).toBe(101)
})
