'use strict'
// Property: whatever values a model sends, `recall` (and the recall tool)
// answers a string within the cap, never throws and never emits a lone
// surrogate; only a programmer's mistake (an unknown option name, options
// that are not an object) rejects, and always with a TypeError.

const fc = require('fast-check')
const { Ledger, recall, MAX_OUTPUT_CHARS } = require('..')
const { createRecallToolResultTool } = require('../langchain')

const ledger = new Ledger()
const ids = [
  ledger.recordSync({ toolCallId: 'text', toolName: 't', content: 'é😀 line\n'.repeat(30_000) }).memId,
  ledger.recordSync({
    toolCallId: 'json',
    toolName: 't',
    content: JSON.stringify({ meta: { count: 7 }, rows: Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `n😀${i}` })) }),
  }).memId,
  ledger.recordSync({
    toolCallId: 'log',
    toolName: 't',
    content: Array.from({ length: 20_000 }, (_, i) => `2024-01-01 ${i % 13 ? 'INFO' : 'ERROR'} req ${i} \ud800 done`).join('\r\n'),
  }).memId,
]
const KEYS = ['format', 'query', 'offset', 'maxChars', 'jsonPath', 'pattern', 'ignoreCase', 'context', 'lines', 'namespace', 'maxOutputChars']

// The documented cap: a number ≥ 1 (or a numeric string), floored; else the default.
function capOf(m) {
  const n = typeof m === 'number' ? m : typeof m === 'string' && m.trim() !== '' ? Number(m) : NaN
  return n >= 1 ? Math.floor(n) : MAX_OUTPUT_CHARS
}

const numberish = fc.oneof(fc.integer({ min: -100, max: 600_000 }), fc.double(), fc.string(), fc.anything())
// Patterns a model writes, broken ones, and ones built to be expensive.
const patterns = fc.oneof(
  fc.constantFrom('ERROR', '(?i)error|warn', '^2024.*req \\d+7\\b', '\\w{1,50}x', '[^x]*y', '(a|aa)*b', 'a(', '\\p{Nope}', '😀', '.', '^$', '\\n', '[\\s\\S]{0,200}Q'),
  fc.stringMatching(/^[a-z0-9.*+?()[\]{}|\\^$ -]{0,30}$/),
  fc.string(),
  fc.anything(),
)
const lines = fc.oneof(fc.constantFrom('1-5', '19990-', '7', '0', '-', '5-1', '99999999999999999999-', '3..9', '120 – 180'), fc.string(), fc.integer(), fc.anything())
const options = fc.record(
  {
    format: fc.oneof(fc.constantFrom('summary', 'full', 'FULL', ''), fc.anything()),
    query: fc.oneof(fc.constantFrom('😀', 'line', 'LINE', 'n😀42', '"id":'), fc.string(), fc.anything()),
    offset: numberish,
    maxChars: numberish,
    jsonPath: fc.oneof(fc.constantFrom('meta.count', 'rows[-1]', 'rows[*].id', 'rows[5:9]', '$.rows.1.name', 'x[', 'rows'), fc.string(), fc.anything()),
    pattern: patterns,
    ignoreCase: fc.oneof(fc.boolean(), fc.anything()),
    context: numberish,
    lines,
    namespace: fc.oneof(fc.constant(''), fc.string(), fc.anything()),
    maxOutputChars: fc.oneof(fc.integer({ min: 1, max: 5000 }), numberish),
  },
  { requiredKeys: [] },
)

function checkAnswer(out, cap) {
  expect(typeof out).toBe('string')
  expect(Array.from(out).length).toBeLessThanOrEqual(cap)
}

test('recall answers a string within the cap for arbitrary option values', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.constantFrom(...ids), fc.string(), fc.anything()), options, async (memId, opts) => {
      const out = await recall(ledger, memId, opts)
      checkAnswer(out, capOf(opts.maxOutputChars))
      // Lone surrogates come back only from the payload that holds them (the log).
      if (memId !== ids[2]) expect(out.isWellFormed()).toBe(true)
    }),
    { numRuns: 400 },
  )
})

test('recall rejects a programmer mistake with a TypeError, and only then', async () => {
  const unknownKey = fc.string({ minLength: 1 }).filter((k) => !KEYS.includes(k) && k !== '__proto__')
  await fc.assert(
    fc.asyncProperty(fc.oneof(options.chain((o) => unknownKey.map((k) => ({ ...o, [k]: 1 }))), fc.anything().filter((v) => v !== undefined && v !== null && (typeof v !== 'object' || Array.isArray(v)))), async (opts) => {
      await expect(recall(ledger, ids[0], opts)).rejects.toThrow(TypeError)
    }),
    { numRuns: 200 },
  )
})

test('the recall tool answers any model arguments without throwing, within its cap', async () => {
  const tool = createRecallToolResultTool(ledger, { namespace: '', maxOutputChars: 3000 })
  const args = fc.record(
    {
      mem_id: fc.oneof(fc.constantFrom(...ids), fc.string(), fc.anything()),
      json_path: fc.oneof(fc.string(), fc.anything()),
      pattern: patterns,
      ignore_case: fc.oneof(fc.boolean(), fc.constantFrom('true', 'no'), fc.anything()),
      context: numberish,
      lines: fc.oneof(lines, fc.tuple(fc.integer(), fc.integer())),
      query: fc.oneof(fc.string(), fc.anything()),
      offset: numberish,
      max_chars: numberish,
      format: fc.oneof(fc.constantFrom('summary', 'full'), fc.anything()),
      surprise: fc.anything(),
    },
    { requiredKeys: [] },
  )
  await fc.assert(
    fc.asyncProperty(args, async (a) => {
      const out = await tool.invoke(a)
      checkAnswer(out, 3000)
    }),
    { numRuns: 300 },
  )
})
