'use strict'
// Bounded memory with a store: 10,000 records of 100 KB go through a ledger
// whose memory holds at most 64 MiB; RSS stays bounded, and every id is still
// recallable, from the store.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { Ledger } = require('..')

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-store-mem-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const N = 10000
const payload = (i) => `record ${i} `.padEnd(100 * 1024, `line of record ${i} with some text. `)

test('10,000 records of 100 KB through maxBytes 64 MiB: RSS bounded, every id recallable', async () => {
  const ledger = new Ledger({ store: `sqlite:${path.join(dir, 'mem.db')}`, maxBytes: 64 * 1024 * 1024 })
  const ids = []
  const rssAt = () => {
    if (global.gc) global.gc()
    return process.memoryUsage().rss
  }
  // Warm up allocators and the store, then measure growth past that.
  for (let i = 0; i < 200; i++) ids.push((await ledger.record({ toolCallId: `c${i}`, toolName: 't', content: payload(i) })).memId)
  const before = rssAt()
  let peak = before
  for (let i = 200; i < N; i++) {
    ids.push((await ledger.record({ toolCallId: `c${i}`, toolName: 't', content: payload(i) })).memId)
    if (i % 1000 === 0) peak = Math.max(peak, process.memoryUsage().rss)
  }
  peak = Math.max(peak, rssAt())
  const stats = ledger.stats()
  expect(stats.bytes).toBeLessThanOrEqual(64 * 1024 * 1024 + 200 * 1024)
  expect(stats.entries).toBeLessThan(N)
  // 1 GB went through; the process grew by far less (the memory bound plus slack).
  expect(peak - before).toBeLessThan(256 * 1024 * 1024)
  // Every id answers, most of them from the store.
  for (let i = 0; i < N; i += 97) {
    const head = await ledger.fetch(ids[i], { offset: 0, maxChars: 12 })
    expect(head).toBe(payload(i).slice(0, 12))
  }
  expect(ledger.stats().storeHits).toBeGreaterThan(50)
}, 120000)
