'use strict'
// Under an agent server's load (issue 43): a long string crosses a slice per
// turn of the event loop and records exactly, concatenated or not, surrogate
// pairs cut by a slice edge included; an entry being recalled is not
// evicted by the records around it.

const { Ledger, recall, memIdFor } = require('..')
const { catalog } = require('./support/catalog.js')

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
