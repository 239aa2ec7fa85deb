'use strict'
// Reads never wait behind writes (issue 43): a recall answerable from memory
// answers while records are being analysed, even when every slot of the
// record lane is held (the test build's gate, `__holdRecordsForTest`); a
// long string crosses a slice per turn and records exactly, concatenated or
// not; an entry being recalled is not evicted by the records around it.

const { load } = require('./support/hooks.js')
const { Ledger, recall, memIdFor } = require('..')

const settled = (p) => p.then(() => true, () => true)
const pending = async (p) => !(await Promise.race([settled(p), new Promise((r) => setTimeout(() => r(false), 50))]))

// A JSON catalog of about `bytes` bytes; `extra` goes into each row's title.
function catalog(bytes, extra = '') {
  const rows = []
  for (let k = 0, size = 0; size < bytes; k++) {
    const row = `{"k":${k},"t":"item ${k}${extra} heavy duty garden hose"}`
    rows.push(row)
    size += row.length + 1
  }
  return `{"rows":[${rows.join(',')}]}`
}

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

describe('long strings cross a slice per turn', () => {
  const SLICE = 1 << 18

  test('a concatenated 5 MB string records exactly, pairs cut by a slice edge included', async () => {
    const ledger = new Ledger({ maxBytes: 2 ** 30 })
    const base = catalog(5e6, ' 花园 😀')
    // A surrogate pair across the first slice edge, and a lone surrogate across the second.
    const head = '{"rid":"' + 'a'.repeat(SLICE - 9) + '😀' + 'b'.repeat(SLICE - 2) + '\ud800' + '",'
    const content = head + base.slice(1)
    expect(content.length).toBeGreaterThan(5e6)
    const h = await ledger.record({ toolCallId: 'cons', toolName: 't', content })
    expect(h.memId).toBe(memIdFor('cons', content))
    expect(h.sizeChars).toBe(Array.from(content).length)
    expect((await ledger.fetch(h.memId, { format: 'full' })) === content).toBe(true)
    expect(await ledger.fetch(h.memId, { offset: SLICE - 1, maxChars: 2 })).toBe('😀b')
    await ledger.close()
  })

  test('records in flight cross in turn, each exactly, and the loop keeps turning', async () => {
    const ledger = new Ledger({ maxBytes: 2 ** 30 })
    const base = catalog(3e6)
    const contents = Array.from({ length: 6 }, (_, i) => `{"rid":"${i}",` + base.slice(1))
    let ticks = 0
    const timer = setInterval(() => ticks++, 1)
    const handles = await Promise.all(contents.map((content, i) => ledger.record({ toolCallId: `c${i}`, toolName: 't', content })))
    clearInterval(timer)
    // 6 strings of 3 M units are 72 slices: the loop turned between them.
    expect(ticks).toBeGreaterThan(5)
    for (const [i, h] of handles.entries()) {
      expect(h.memId).toBe(memIdFor(`c${i}`, contents[i]))
      expect(await recall(ledger, h.memId, { jsonPath: 'rid' })).toBe(`"${i}"`)
    }
    await ledger.close()
  })
})

test('an entry being recalled survives the eviction pressure of large records', async () => {
  // The probe's load in one ledger: 8 writers of 3 MB records cycle a 40 MB
  // ledger many times over while a reader recalls a small entry every few ms.
  const ledger = new Ledger({ maxBytes: 40 * 2 ** 20 })
  const small = await ledger.record({ toolCallId: 'small', toolName: 't', content: '{"rid":"small"}' })
  const base = catalog(3e6)
  let stop = false
  let records = 0
  const writers = Array.from({ length: 8 }, async (_, w) => {
    for (let i = 0; !stop; i++) {
      await ledger.record({ toolCallId: `w${w}x${i}`, toolName: 't', content: `{"w":"${w}-${i}",` + base.slice(1) })
      records++
    }
  })
  const answers = []
  const t0 = Date.now()
  while (Date.now() - t0 < 3000 || records < 40) {
    answers.push(await recall(ledger, small.memId, { jsonPath: 'rid' }))
    await new Promise((r) => setTimeout(r, 5))
  }
  stop = true
  await Promise.all(writers)
  expect(ledger.stats().evictions).toBeGreaterThan(20)
  expect(answers.filter((a) => a !== '"small"')).toEqual([])
  await ledger.close()
}, 60000)
