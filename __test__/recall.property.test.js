'use strict'
// Property: whatever a model sends, `recall` answers a string within the cap,
// never throws and never rejects, and never emits a lone surrogate.

const fc = require('fast-check')
const { Ledger, recall, MAX_OUTPUT_CHARS } = require('..')

const ledger = new Ledger()
const ids = [
  ledger.recordSync({ toolCallId: 'text', toolName: 't', content: 'é😀 line\n'.repeat(30_000) }).memId,
  ledger.recordSync({
    toolCallId: 'json',
    toolName: 't',
    content: JSON.stringify({ meta: { count: 7 }, rows: Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `n😀${i}` })) }),
  }).memId,
]

// The documented cap: a number ≥ 1 (or a numeric string), floored; else the default.
function capOf(m) {
  const n = typeof m === 'number' ? m : typeof m === 'string' && m.trim() !== '' ? Number(m) : NaN
  return n >= 1 ? Math.floor(n) : MAX_OUTPUT_CHARS
}

const numberish = fc.oneof(fc.integer({ min: -100, max: 600_000 }), fc.double(), fc.string(), fc.anything())
const options = fc.record(
  {
    format: fc.oneof(fc.constantFrom('summary', 'full', 'FULL', ''), fc.anything()),
    query: fc.oneof(fc.constantFrom('😀', 'line', 'LINE', 'n😀42', '"id":'), fc.string(), fc.anything()),
    offset: numberish,
    maxChars: numberish,
    max_chars: numberish,
    jsonPath: fc.oneof(fc.constantFrom('meta.count', 'rows[-1]', 'rows[*].id', 'rows[5:9]', '$.rows.1.name', 'x['), fc.string(), fc.anything()),
    json_path: fc.oneof(fc.string(), fc.anything()),
    namespace: fc.oneof(fc.constant(''), fc.string(), fc.anything()),
    maxOutputChars: fc.oneof(fc.integer({ min: 1, max: 5000 }), numberish),
  },
  { requiredKeys: [] },
)

test('recall answers a string within the cap for arbitrary arguments', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.constantFrom(...ids), fc.string(), fc.anything()), fc.oneof(options, fc.anything()), async (memId, opts) => {
      const out = await recall(ledger, memId, opts)
      expect(typeof out).toBe('string')
      const cap = opts && typeof opts === 'object' && !Array.isArray(opts) ? capOf(opts.maxOutputChars) : MAX_OUTPUT_CHARS
      expect(Array.from(out).length).toBeLessThanOrEqual(cap)
      expect(out).toBe(Buffer.from(out, 'utf8').toString('utf8'))
    }),
    { numRuns: 400 },
  )
})
