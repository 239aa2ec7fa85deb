'use strict'
// needs: cargo
// Reads never wait behind writes (issue 43): a recall answerable from memory
// answers while records are being analysed, even when every slot of the
// record lane is held (the test build's gate, `__holdRecordsForTest`), and
// so does a store read. (Long strings and eviction: under-load.test.js.)

const { load } = require('./support/hooks.js')

const settled = (p) => p.then(() => true, () => true)
const pending = async (p) => !(await Promise.race([settled(p), new Promise((r) => setTimeout(() => r(false), 50))]))

const { catalog } = require('./support/catalog.js')

describe('reads beside records', () => {
  const { Ledger: Gated, recall: gatedRecall } = load()

  test('a memory-hit recall answers while records are held in their analysis', async () => {
    const ledger = new Gated()
    const small = await ledger.record({ toolCallId: 'small', toolName: 't', content: '{"rid":"small"}' })
    const big = await ledger.record({ toolCallId: 'big', toolName: 't', content: catalog(1.5e6) })
    ledger.__holdRecordsForTest(true)
    // More records than the record lane has slots: every slot is held.
    const held = Array.from({ length: 5 }, (_, i) => ledger.record({ toolCallId: `held${i}`, toolName: 't', content: catalog(5e5 + i) }))
    try {
      expect(await pending(held[0])).toBe(true)
      // Answered on the calling thread: a small entry, an indexed path, a range.
      expect(await gatedRecall(ledger, small.memId, { jsonPath: 'rid' })).toBe('"small"')
      expect(await gatedRecall(ledger, big.memId, { jsonPath: 'rows[-1].k' })).toMatch(/^\d+$/)
      expect(await gatedRecall(ledger, big.memId, { offset: 0, maxChars: 9 })).toContain('{"rows":[')
      // Answered on the read lane: a query over 1.5 MB, a wildcard path.
      expect(await gatedRecall(ledger, big.memId, { query: 'item 7 heavy' })).toContain('"k":7,')
      expect(await ledger.fetch(big.memId, { jsonPath: 'rows[0:2].k' })).toBe('[0,1]')
      // The held records are still held.
      expect(await pending(held[0])).toBe(true)
    } finally {
      ledger.__holdRecordsForTest(false)
    }
    const handles = await Promise.all(held)
    expect(handles.map((h) => h.toolCallId)).toEqual(['held0', 'held1', 'held2', 'held3', 'held4'])
    await ledger.close()
  })

  test('a store read does not wait behind records held in their analysis', async () => {
    const dir = require('node:fs').mkdtempSync(require('node:path').join(require('node:os').tmpdir(), 'symfonic-lanes-'))
    const store = `sqlite:${dir}/l.db`
    const writer = await Gated.open({ store })
    const h = await writer.record({ toolCallId: 'c', toolName: 't', content: catalog(3e5) })
    const reader = await Gated.open({ store, maxBytes: 1 })
    reader.__holdRecordsForTest(true)
    const held = [0, 1, 2].map((i) => reader.record({ toolCallId: `h${i}`, toolName: 't', content: catalog(2e5 + i) }))
    try {
      // A memory miss: the row is read, re-indexed on the read lane, answered.
      expect(await gatedRecall(reader, h.memId, { jsonPath: 'rows[3].k' })).toBe('3')
      expect(await pending(held[0])).toBe(true)
    } finally {
      reader.__holdRecordsForTest(false)
    }
    await Promise.all(held)
    await Promise.all([writer.close(), reader.close()])
    require('node:fs').rmSync(dir, { recursive: true, force: true })
  })
})
