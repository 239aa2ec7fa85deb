'use strict'
// A payload over the ledger's limit (4,000,000,000 bytes of UTF-8) is refused
// by its length, before anything is copied: a Buffer of 4e9+1 bytes (never
// touched, so it takes address space, not memory) is refused by `record`,
// `recordSync` and as a view, with ERR_SYMFONIC_CONTENT_TOO_LARGE, and the
// process's memory does not grow by a copy of it.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { Ledger } = require('..')

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'symfonic-limit-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const LIMIT = 4_000_000_000
const tooLarge = {
  code: 'ERR_SYMFONIC_CONTENT_TOO_LARGE',
  message: `ERR_SYMFONIC_CONTENT_TOO_LARGE: content is ${LIMIT + 1} bytes of UTF-8; at most ${LIMIT} bytes can be recorded`,
}

test('a Buffer one byte over the limit is refused before it crosses, sync and async, with or without a store', async () => {
  const big = Buffer.allocUnsafe(LIMIT + 1)
  const rss = process.memoryUsage().rss
  // (recordSync serves ledgers in memory only.)
  const file = new Ledger({ store: `sqlite:${path.join(dir, 'ledger.db')}` })
  for (const ledger of [new Ledger(), new Ledger({ store: 'sqlite::memory:' }), file]) {
    const input = (content) => ({ toolCallId: 'c', toolName: 't', content })
    if (ledger !== file) expect(() => ledger.recordSync(input(big))).toThrow(expect.objectContaining(tooLarge))
    await expect(ledger.record(input(big))).rejects.toMatchObject(tooLarge)
    await expect(ledger.record(input(new Uint8Array(big.buffer, 0, LIMIT + 1)))).rejects.toMatchObject(tooLarge)
    expect(ledger.stats().entries).toBe(0)
    await ledger.close()
  }
  // A copy would be 4 GB of touched pages; the refusals touched none.
  expect(process.memoryUsage().rss - rss).toBeLessThan(256 * 1024 * 1024)
})

test('the refusal does not wait behind records in flight', async () => {
  const ledger = new Ledger({ maxBytes: 16 * 2 ** 20 })
  const body = 'x'.repeat(200_000)
  const order = []
  // Enough records to fill the ledger's budget for records in flight, so that later ones wait their turn.
  const queued = Array.from({ length: 100 }, (_, i) => ledger.record({ toolCallId: `q${i}`, toolName: 't', content: body + i }).then(() => order.push('recorded')))
  const refused = ledger.record({ toolCallId: 'big', toolName: 't', content: Buffer.allocUnsafe(LIMIT + 1) }).catch((e) => order.push(e.code))
  await Promise.all([...queued, refused])
  expect(order[0]).toBe('ERR_SYMFONIC_CONTENT_TOO_LARGE')
  expect(order.filter((x) => x === 'recorded')).toHaveLength(100)
})
