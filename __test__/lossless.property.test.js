'use strict'
// Properties of lossless text: any JS string, lone surrogates included,
// comes back exactly from a full fetch and from recall, its code-point
// ranges are `Array.from` slices, and distinct strings never share an id.

const fc = require('fast-check')
const { Ledger, memIdFor, recall } = require('..')

const SEED = 0x5eed_0f08
// Units chosen to collide under a lossy conversion: lone leads and trails,
// U+FFFD itself, halves of a real pair, plus arbitrary code points.
const unit = fc.oneof(
  fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uFFFD', '\uD83D', '\uDE00', 'a', '\n', 'é'),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u)),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
)
const text = fc.oneof(fc.string({ unit, maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 60 }))

test('record then a full fetch / recall returns the exact string', async () => {
  const ledger = new Ledger()
  await fc.assert(
    fc.asyncProperty(text, fc.boolean(), async (s, sync) => {
      const input = { toolCallId: 'call', toolName: 't', content: s }
      const h = sync ? ledger.recordSync(input) : await ledger.record(input)
      expect(h.memId).toBe(memIdFor('call', s))
      expect(h.sizeChars).toBe(Array.from(s).length)
      expect(ledger.fetchSync(h.memId, { format: 'full' })).toBe(s)
      expect(await ledger.fetch(h.memId, { format: 'full' })).toBe(s)
      expect(await recall(ledger, h.memId, { format: 'full' })).toBe(s)
    }),
    { seed: SEED, numRuns: 300 },
  )
})

test('offset/maxChars ranges are Array.from slices, lone surrogates whole', async () => {
  const ledger = new Ledger()
  await fc.assert(
    fc.asyncProperty(text, fc.nat(70), fc.integer({ min: 1, max: 70 }), async (s, offset, maxChars) => {
      const h = ledger.recordSync({ toolCallId: 'r', toolName: 't', content: s })
      const want = Array.from(s)
        .slice(offset, offset + maxChars)
        .join('')
      expect(ledger.fetchSync(h.memId, { offset, maxChars })).toBe(want)
      // A query for a piece of the payload finds it and returns it within the window.
      const needle = Array.from(s).slice(offset, offset + 3).join('')
      if (needle !== '') expect(ledger.fetchSync(h.memId, { query: needle })).toContain(needle)
    }),
    { seed: SEED, numRuns: 300 },
  )
})

test('distinct strings never share an id', () => {
  fc.assert(
    fc.property(text, text, (a, b) => {
      fc.pre(a !== b)
      expect(memIdFor('call', a)).not.toBe(memIdFor('call', b))
    }),
    { seed: SEED, numRuns: 1000 },
  )
  // Every single lone surrogate, and U+FFFD, after the same prefix.
  const ids = new Set()
  for (let u = 0xd800; u <= 0xdfff; u++) ids.add(memIdFor('call', 'x' + String.fromCharCode(u)))
  ids.add(memIdFor('call', 'x\uFFFD'))
  expect(ids.size).toBe(0x800 + 1)
})
